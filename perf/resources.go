package perf

import (
	"context"
	"sync"
	"time"

	"github.com/daprperf/daprperf/perf/stats"
)

// Series is one process's resource use over a phase, sampled at a fixed interval.
type Series struct {
	// Process is the process name from Deployment.Processes ("httpapp", "httpapp-daprd").
	Process string `json:"process"`
	// Role is what the process is in the scenario: "caller-sidecar", "callee-sidecar", "app",
	// "tester".
	Role   string   `json:"role,omitempty"`
	Points []Sample `json:"points"`
}

// Sample is one reading. CPUCores is the mean over the interval that ends at At: 1.0 is one
// core fully busy. The first reading of a series has no interval and CPUCores 0.
type Sample struct {
	At       time.Time `json:"at"`
	CPUCores float64   `json:"cpuCores"`
	RSSBytes uint64    `json:"rssBytes"`
}

// MeanCPU is the mean of CPUCores over the samples after the first, in cores.
func (s Series) MeanCPU() float64 {
	if len(s.Points) < 2 {
		return 0
	}
	var sum float64
	for _, p := range s.Points[1:] {
		sum += p.CPUCores
	}
	return sum / float64(len(s.Points)-1)
}

// PeakRSS is the largest RSS sampled, in bytes.
func (s Series) PeakRSS() uint64 {
	var peak uint64
	for _, p := range s.Points {
		peak = max(peak, p.RSSBytes)
	}
	return peak
}

// Slope is the least-squares RSS growth over time, in bytes per second, with the fit's R²
// (0 when fewer than three samples).
func (s Series) Slope() (bytesPerSecond, r2 float64) {
	if len(s.Points) < 3 {
		return 0, 0
	}
	xs := make([]float64, len(s.Points))
	ys := make([]float64, len(s.Points))
	for i, p := range s.Points {
		xs[i] = p.At.Sub(s.Points[0].At).Seconds()
		ys[i] = float64(p.RSSBytes)
	}
	return stats.LinearFit(xs, ys)
}

// Recorder samples a deployment's processes in the background; see Record.
type Recorder struct {
	stop   context.CancelFunc
	done   chan struct{}
	order  []string
	mu     sync.Mutex
	series map[string]*Series
	errs   []error
}

// Record reads dep.Usage every interval until Stop, turning cumulative CPU seconds into cores
// per interval. roles maps process names to their Role in the series. Each reading is bounded
// by the interval; a failed reading is kept as an error for Stop and sampling goes on.
func Record(ctx context.Context, dep Deployment, interval time.Duration, roles map[string]string) *Recorder {
	ctx, cancel := context.WithCancel(ctx)
	r := &Recorder{stop: cancel, done: make(chan struct{}), order: dep.Processes(), series: map[string]*Series{}}
	for _, p := range r.order {
		r.series[p] = &Series{Process: p, Role: roles[p]}
	}
	go r.loop(ctx, dep, interval)
	return r
}

func (r *Recorder) loop(ctx context.Context, dep Deployment, interval time.Duration) {
	defer close(r.done)
	last := map[string]Usage{}
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
			point := Sample{At: now, RSSBytes: u.RSSBytes}
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

// Stop ends sampling and returns one series per process, in Deployment.Processes order, and
// the errors of failed readings, if any.
func (r *Recorder) Stop() ([]Series, []error) {
	r.stop()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Series, 0, len(r.order))
	for _, name := range r.order {
		if s, ok := r.series[name]; ok {
			out = append(out, *s)
		}
	}
	return out, r.errs
}
