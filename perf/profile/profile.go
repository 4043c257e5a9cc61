// Package profile reads a Go process's pprof profiles over HTTP (net/http/pprof's
// /debug/pprof/..., which daprd serves on its profiling port) during a measured load, and
// sums them up as the top functions of CPU and of allocation (github.com/google/pprof's
// profile format, as go tool pprof reads it).
package profile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/pprof/profile"

	"github.com/daprperf/daprperf/perf"
)

// fetchTimeout bounds one read of a heap or goroutine profile; the CPU profile gets its window
// on top.
const fetchTimeout = 15 * time.Second

// maxProfileBytes bounds one profile's body.
const maxProfileBytes = 64 << 20

// fetch reads the profile at url: its raw body (gzipped protobuf) and the profile parsed.
func fetch(ctx context.Context, url string, timeout time.Duration) ([]byte, *profile.Profile, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxProfileBytes))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, bytes.TrimSpace(b[:min(len(b), 200)]))
	}
	p, err := profile.ParseData(b)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return b, p, nil
}

// CPUWindow is the CPU profile's window and its start within a load planned to last d: the
// load's middle, at most perf.ProfileCPUWindow seconds and at least one (pprof takes whole
// seconds), starting after lead.
func CPUWindow(d time.Duration) (lead time.Duration, seconds int) {
	seconds = min(perf.ProfileCPUWindow, int((d-2*time.Second)/time.Second))
	seconds = max(seconds, 1)
	lead = max((d-time.Duration(seconds)*time.Second)/2, 0)
	return lead, seconds
}

// Capture is the profiles of one process being read during one load (Start), summed up and
// written by Finish.
type Capture struct {
	base     string
	out      perf.SidecarProfiles
	raw      map[string][]byte
	parsed   map[string]*profile.Profile
	cpuDone  chan struct{}
	ended    chan struct{} // closed by Finish: a CPU window not yet begun is not begun
	cancel   context.CancelFunc
	errs     []string
	cpuError string
}

// Start begins reading the profiles of the process serving pprof at base (http://host:port)
// for a load planned to last d: the heap now, and the CPU profile over the load's middle
// (CPUWindow) in the background. out carries the process, role and load names.
func Start(ctx context.Context, base string, d time.Duration, out perf.SidecarProfiles) *Capture {
	ctx, cancel := context.WithCancel(ctx)
	c := &Capture{base: base, out: out, raw: map[string][]byte{}, parsed: map[string]*profile.Profile{}, cpuDone: make(chan struct{}), ended: make(chan struct{}), cancel: cancel}
	c.read(ctx, "heap-start", "/debug/pprof/heap", fetchTimeout)
	lead, secs := CPUWindow(d)
	c.out.CPUWindowSeconds = float64(secs)
	go func() {
		defer close(c.cpuDone)
		select {
		case <-ctx.Done():
			c.cpuError = "cpu: " + ctx.Err().Error()
			return
		case <-c.ended:
			c.cpuError = fmt.Sprintf("cpu: the load ended before the profile's window began (%v in)", lead)
			return
		case <-time.After(lead):
		}
		url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, secs)
		b, p, err := fetch(ctx, url, time.Duration(secs)*time.Second+fetchTimeout)
		if err != nil {
			c.cpuError = "cpu: " + err.Error()
			return
		}
		c.raw["cpu"], c.parsed["cpu"] = b, p
	}()
	return c
}

// read reads the profile at path as kind, keeping an error in c.errs.
func (c *Capture) read(ctx context.Context, kind, path string, timeout time.Duration) {
	b, p, err := fetch(ctx, c.base+path, timeout)
	if err != nil {
		c.errs = append(c.errs, kind+": "+err.Error())
		return
	}
	c.raw[kind], c.parsed[kind] = b, p
}

// Finish waits for the CPU profile, reads the heap and the goroutines at the load's end, writes
// every profile read to dir as <prefix>.<kind>.pb.gz, and returns the summary with the files'
// paths relative to rel. A profile that could not be read or written is an entry of Errors.
func (c *Capture) Finish(ctx context.Context, dir, rel, prefix string) perf.SidecarProfiles {
	close(c.ended)
	<-c.cpuDone
	c.cancel()
	if c.cpuError != "" {
		c.errs = append(c.errs, c.cpuError)
	}
	c.read(ctx, "heap-end", "/debug/pprof/heap", fetchTimeout)
	c.read(ctx, "goroutine", "/debug/pprof/goroutine", fetchTimeout)
	out := c.out
	if p := c.parsed["cpu"]; p != nil {
		out.TopCPU, out.CPUSampleSeconds = cpuTop(p)
	}
	if s, e := c.parsed["heap-start"], c.parsed["heap-end"]; s != nil && e != nil {
		var err error
		if out.TopAlloc, out.AllocBytes, out.InUseGrowthBytes, err = allocTop(s, e); err != nil {
			c.errs = append(c.errs, "heap: "+err.Error())
		}
	}
	if p := c.parsed["goroutine"]; p != nil {
		out.Goroutines = total(p, 0)
	}
	if len(c.raw) > 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			c.errs = append(c.errs, "write: "+err.Error())
		}
	}
	kinds := make([]string, 0, len(c.raw))
	for k := range c.raw {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		name := prefix + "." + k + ".pb.gz"
		if err := os.WriteFile(filepath.Join(dir, name), c.raw[k], 0o644); err != nil {
			c.errs = append(c.errs, "write: "+err.Error())
			continue
		}
		if out.Files == nil {
			out.Files = map[string]string{}
		}
		r, err := filepath.Rel(rel, filepath.Join(dir, name))
		if err != nil {
			r = filepath.Join(dir, name)
		}
		out.Files[k] = filepath.ToSlash(r)
	}
	out.Errors = c.errs
	return out
}

// Heap reads the heap profile of the process serving pprof at base; with gc, the process runs
// a garbage collection first (net/http/pprof's gc=1), so that its in-use figures are the
// objects live now rather than at its last collection.
func Heap(ctx context.Context, base string, gc bool) (*profile.Profile, error) {
	path := "/debug/pprof/heap"
	if gc {
		path += "?gc=1"
	}
	_, p, err := fetch(ctx, base+path, fetchTimeout)
	return p, err
}
