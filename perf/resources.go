package perf

import (
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
