package plan

import (
	"context"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
)

// RSS sources of a memory-growth run (growth.Variant.RSSSource).
const (
	rssFromPlatform = "platform"      // perf.Deployment.Usage: /proc/<pid> on the local platform
	rssFromDaprd    = "daprd metrics" // each sidecar's own growth.ProcessRSSMetric
)

// rssReader reads the RSS of a variant's sidecars, in bytes, keyed by process name.
//
// On a platform that reads a process at the call (local: /proc/<pid>/stat) it is dep.Usage.
// On one whose usage is a periodic sample (perf.SampledUsage: kubernetes's metrics API, a
// container's working set every 15 s or so), it is each sidecar's own
// process_resident_memory_bytes from its /metrics, read at the call: the same figure as
// local's, from the same /proc file inside the container. A working set sampled every 15 s
// lands steps of several MiB in whichever short round happens to be running, and a flat control
// then reads as retained growth. A sidecar without a metrics endpoint falls back to the
// platform's usage, waiting for a sample taken after the call (usageAfter).
type rssReader struct {
	dep    perf.Deployment
	procs  []string // sidecar process names
	apps   []string // the app of each of procs
	daprd  bool     // read from each sidecar's /metrics
	source string   // rssFromPlatform or rssFromDaprd
}

func newRSSReader(dep perf.Deployment, procs, apps []string) rssReader {
	r := rssReader{dep: dep, procs: procs, apps: apps, source: rssFromPlatform}
	if s, ok := dep.(perf.SampledUsage); ok && s.UsageSampled() {
		r.daprd, r.source = true, rssFromDaprd
		for _, app := range apps {
			if _, err := dep.Endpoint(app, perf.SidecarMetrics); err != nil {
				r.daprd, r.source = false, rssFromPlatform
			}
		}
	}
	return r
}

// read returns each sidecar's RSS now. From the platform's usage, fresh waits for a sample
// taken after the call (a reading after a round); without it the latest sample is taken (the
// idle window's readings). Errors name the sidecar's metrics URL or the platform's usage read.
func (r rssReader) read(ctx context.Context, fresh bool) (map[string]uint64, error) {
	out := make(map[string]uint64, len(r.procs))
	if r.daprd {
		for i, app := range r.apps {
			u, err := r.dep.Endpoint(app, perf.SidecarMetrics)
			if err != nil {
				return nil, err
			}
			if out[r.procs[i]], err = growth.ScrapeProcessRSS(ctx, u); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var usage map[string]perf.Usage
	var err error
	if fresh {
		usage, err = usageAfter(ctx, r.dep, time.Now(), r.procs)
	} else {
		usage, err = r.dep.Usage(ctx)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range r.procs {
		out[p] = usage[p].RSSBytes
	}
	return out, nil
}
