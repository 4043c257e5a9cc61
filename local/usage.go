package local

import (
	"context"
	"errors"
	"fmt"

	"github.com/prometheus/procfs"

	"github.com/daprperf/daprperf/perf"
)

// Usage reads each running process's cumulative CPU time (user + system, in seconds) and
// resident set size (in bytes) from /proc/<pid>/stat. A process that has ended is left out
// of the map and named in the error, so a sampler still gets the others.
func (d *Deployment) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	usage := map[string]perf.Usage{}
	var errs []error
	for _, p := range d.processes() {
		u, err := readUsage(fs, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		usage[p.name] = u
	}
	return usage, errors.Join(errs...)
}

// readUsage reads p's usage; a process that has ended is an error.
func readUsage(fs procfs.FS, p *process) (perf.Usage, error) {
	if p.exited() {
		return perf.Usage{}, fmt.Errorf("usage of %s (pid %d): process has exited", p.name, p.pid)
	}
	proc, err := fs.Proc(p.pid)
	if err != nil {
		return perf.Usage{}, fmt.Errorf("usage of %s (pid %d): %w", p.name, p.pid, err)
	}
	st, err := proc.Stat()
	if err != nil {
		return perf.Usage{}, fmt.Errorf("usage of %s (pid %d): %w", p.name, p.pid, err)
	}
	rss := st.ResidentMemory()
	if rss < 0 {
		rss = 0
	}
	return perf.Usage{CPUSeconds: st.CPUTime(), RSSBytes: uint64(rss)}, nil
}
