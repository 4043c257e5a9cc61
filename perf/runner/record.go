package runner

import (
	"context"
	"sync"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// Record samples the resources of dep's processes every ResourceInterval of the scenario until
// stop or the end of the run's test (recorder), and returns stop: the series, after it logs how
// many readings failed, as what's.
func (s *session) Record(dep perf.Deployment, roles map[string]string, what string) (stop func() []perf.Series) {
	rec := startRecorder(s.t.Context(), dep, s.sc.ResourceInterval(), roles)
	return func() []perf.Series {
		series, errs := rec.stop()
		if len(errs) > 0 {
			s.t.Logf("%s: %d resource readings failed, first: %v", what, len(errs), errs[0])
		}
		return series
	}
}

// recorder samples a deployment's processes in the background: every interval it reads
// Deployment.Usage and turns cumulative CPU seconds into cores over the interval.
type recorder struct {
	cancel context.CancelFunc
	done   chan struct{}
	order  []string // the processes, in Deployment.Processes order
	mu     sync.Mutex
	series map[string]*perf.Series
	errs   []error
}

// startRecorder reads dep.Usage every interval until stop or the end of ctx. roles maps process
// names to their Role in the series. Each reading is bounded by the interval; a failed reading
// is kept as an error for stop and sampling goes on.
func startRecorder(ctx context.Context, dep perf.Deployment, interval time.Duration, roles map[string]string) *recorder {
	ctx, cancel := context.WithCancel(ctx)
	r := &recorder{cancel: cancel, done: make(chan struct{}), order: dep.Processes(), series: map[string]*perf.Series{}}
	for _, p := range r.order {
		r.series[p] = &perf.Series{Process: p, Role: roles[p]}
	}
	go r.loop(ctx, dep, interval)
	return r
}

func (r *recorder) loop(ctx context.Context, dep perf.Deployment, interval time.Duration) {
	defer close(r.done)
	last := map[string]perf.Usage{}
	var lastAt time.Time
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, interval)
		usage, err := dep.Usage(rctx)
		cancel()
		now := time.Now()
		r.mu.Lock()
		if err != nil && ctx.Err() == nil {
			r.errs = append(r.errs, err)
		}
		for name, u := range usage {
			s, ok := r.series[name]
			if !ok {
				continue
			}
			point := perf.Sample{At: now, RSSBytes: u.RSSBytes}
			if prev, ok := last[name]; ok && now.After(lastAt) {
				point.CPUCores = (u.CPUSeconds - prev.CPUSeconds) / now.Sub(lastAt).Seconds()
			}
			s.Points = append(s.Points, point)
			last[name] = u
		}
		lastAt = now
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// stop ends sampling and returns one series per process, in Deployment.Processes order, and
// the errors of failed readings, if any.
func (r *recorder) stop() ([]perf.Series, []error) {
	r.cancel()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]perf.Series, 0, len(r.order))
	for _, name := range r.order {
		if s, ok := r.series[name]; ok {
			out = append(out, *s)
		}
	}
	return out, r.errs
}
