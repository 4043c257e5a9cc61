// Package driver is daprperf's closed-loop load driver: the four k6 executors Dapr's actor,
// configuration, pub/sub and workflow perf tests use, written in Go over the same per-request
// recording as the tester's fortio runs (service time and response time in perf/hdr
// histograms, every code counted). k6 itself is not used (it is AGPL); only its executors'
// documented semantics are followed (k6 docs, "Executors").
//
// An Executor describes the schedule; a Caller makes one iteration (one request); New pairs
// them, one Caller per virtual user (VU), and Run runs the schedule:
//
//	ex := driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{
//		{Duration: 8 * time.Second, Target: 500}, // 0 -> 500 VUs over 8 s, linearly
//	}}
//	callers := make([]driver.Caller, ex.PeakVUs()) // one per VU, each with its own connection
//	for i := range callers {
//		callers[i] = driver.CallerFunc(func(ctx context.Context) (string, bool) { ... })
//	}
//	d, err := driver.New(ex, callers)
//	res, err := d.Run(ctx)          // blocks for at most ex.MaxRunDuration()
//	p95 := res.Service.Percentile(95)
//
// While Run runs, Active, InFlight and Iterations may be read from any goroutine. The four
// kinds and their k6 counterparts:
//
//   - ConstantVUs (k6 constant-vus): VUs users, each looping iterations back to back for
//     Duration.
//   - RampingVUs (k6 ramping-vus): StartVUs users, then for each Stage a linear ramp to its
//     Target over its Duration (one VU is added or removed at each of |delta| evenly spaced
//     instants, the last at the stage's end). A VU ramped down finishes its iteration, given
//     GracefulRampDown, and starts no other.
//   - SharedIterations (k6 shared-iterations): VUs users sharing exactly Iterations
//     iterations, for at most Duration (k6's maxDuration); iterations not started by then are
//     Dropped.
//   - ConstantArrivalRate (k6 constant-arrival-rate): Rate iterations per second for
//     Duration, open loop, on at most MaxVUs users (all pre-allocated: k6's preAllocatedVUs =
//     maxVUs). Iteration i is due at i/Rate; a late one is still started and its response
//     time counts from its slot (coordinated omission corrected); a slot that finds every VU
//     busy is Dropped, as k6's dropped_iterations.
//
// At the schedule's end every kind gives the iterations in flight GracefulStop to finish;
// an iteration still running then has its context cancelled and is counted Interrupted, not
// recorded (k6 does the same). Every loop is bounded in time by MaxRunDuration and in count
// by MaxIterations.
//
// Package driver imports only perf/hdr: perf (Params.Executor) and apps/tester (which runs it
// with its HTTP and gRPC callers) import it, never the other way.
package driver

import (
	"errors"
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

// Kind names an executor with k6's name for it.
type Kind string

// The executors.
const (
	ConstantArrivalRate Kind = "constant-arrival-rate"
	ConstantVUs         Kind = "constant-vus"
	RampingVUs          Kind = "ramping-vus"
	SharedIterations    Kind = "shared-iterations"
)

// Bounds of an Executor, stated once so that errors and docs agree.
const (
	// MaxVUsLimit is the most VUs an executor may use: perf.MaxConnections, one connection each.
	MaxVUsLimit = 10_000
	// MaxIterations bounds the iterations of any run, whatever its kind: a closed loop against
	// an app that fails at once could otherwise spin for its whole duration.
	MaxIterations = 100_000_000
	// MaxRate is the highest arrival rate, iterations per second (perf.MaxQPS).
	MaxRate = 1_000_000
	// MaxScheduleDuration bounds every duration of a schedule (perf.MaxDuration).
	MaxScheduleDuration = 24 * time.Hour
	// MaxStages bounds the stages of a ramp.
	MaxStages = 100
	// DefaultGracefulStop and DefaultGracefulRampDown are k6's defaults (30 s).
	DefaultGracefulStop     = 30 * time.Second
	DefaultGracefulRampDown = 30 * time.Second
)

// Stage is one step of a ramp: the VU count goes linearly to Target over Duration (0 jumps
// at once).
type Stage struct {
	Duration time.Duration `json:"duration"`
	Target   int           `json:"target"`
}

// Executor describes one closed-loop (or, for ConstantArrivalRate, open-loop) schedule. Only
// the fields of its Kind may be set; Validate names any other. Durations are seconds in
// JSON under their names with "Seconds" after them, like every duration of perf.Params.
type Executor struct {
	// Kind is the executor; "" is none (the tester's fortio fixed-rate load).
	Kind Kind `json:"kind"`
	// VUs is the number of virtual users: of ConstantVUs and SharedIterations (1 to
	// MaxVUsLimit; SharedIterations defaults to 1, as k6).
	VUs int `json:"vus,omitempty"`
	// StartVUs is the VU count a RampingVUs run starts with (0 to MaxVUsLimit; k6 defaults
	// to 1, here 0 is 0).
	StartVUs int `json:"startVUs,omitempty"`
	// MaxVUs is the most VUs a ConstantArrivalRate run may have busy at once (1 to
	// MaxVUsLimit).
	MaxVUs int `json:"maxVUs,omitempty"`
	// Iterations is the total a SharedIterations run shares among its VUs (1 to
	// MaxIterations; k6's default 1).
	Iterations int64 `json:"iterations,omitempty"`
	// Rate is the arrival rate of a ConstantArrivalRate run, iterations per second (1 to
	// MaxRate; k6's rate with timeUnit 1s).
	Rate int `json:"rate,omitempty"`
	// Duration is how long ConstantVUs and ConstantArrivalRate run, and the most a
	// SharedIterations run may take (k6's maxDuration, default 10 min); (0, 24 h].
	Duration time.Duration `json:"duration,omitempty"`
	// Stages are the ramp of a RampingVUs run, 1 to MaxStages, each target 0 to MaxVUsLimit.
	Stages []Stage `json:"stages,omitempty"`
	// GracefulRampDown is how long a VU ramped down may finish its iteration (RampingVUs;
	// default 30 s as k6).
	GracefulRampDown time.Duration `json:"gracefulRampDown,omitempty"`
	// GracefulStop is how long iterations in flight at the schedule's end may finish (every
	// kind; default 30 s as k6).
	GracefulStop time.Duration `json:"gracefulStop,omitempty"`
	// VUsAtQPS, when set, is the rate in requests/s that a RampingVUs run's targets stand for
	// (the framework's full load, 1000): a main-phase DAPR_PERF_QPS below it scales each target
	// by QPS/VUsAtQPS, rounded, at least 1 (perf.Env.MainParams), since a closed loop has no rate
	// of its own for the override to lower. 0 never scales.
	VUsAtQPS int `json:"vusAtQPS,omitempty"`
}

// IsZero reports whether e is the zero Executor (no Kind and nothing else set): the tester's
// fortio load. It makes `json:",omitzero"` leave it out.
func (e Executor) IsZero() bool {
	return e.Kind == "" && e.VUs == 0 && e.StartVUs == 0 && e.MaxVUs == 0 && e.Iterations == 0 && e.Rate == 0 &&
		e.Duration == 0 && len(e.Stages) == 0 && e.GracefulRampDown == 0 && e.GracefulStop == 0
}

// ClosedLoop reports whether e's VUs loop back to back (every kind but ConstantArrivalRate):
// such a run has no schedule of requests, so it has no target rate and no response time.
func (e Executor) ClosedLoop() bool { return e.Kind != "" && e.Kind != ConstantArrivalRate }

// withDefaults fills in k6's defaults.
func (e Executor) withDefaults() Executor {
	if e.GracefulStop == 0 {
		e.GracefulStop = DefaultGracefulStop
	}
	if e.Kind == RampingVUs && e.GracefulRampDown == 0 {
		e.GracefulRampDown = DefaultGracefulRampDown
	}
	if e.Kind == SharedIterations {
		if e.VUs == 0 {
			e.VUs = 1
		}
		if e.Iterations == 0 {
			e.Iterations = 1
		}
		if e.Duration == 0 {
			e.Duration = 10 * time.Minute
		}
	}
	return e
}

// Validate reports every invalid field at once, each named as "executor.<json name>" with its
// value and what it accepts. The zero Executor is valid (no executor).
func (e Executor) Validate() error {
	if e.IsZero() {
		return nil
	}
	e = e.withDefaults()
	var errs []error
	bad := func(field string, value any, accepts string) {
		errs = append(errs, fmt.Errorf("executor.%s = %v: must be %s", field, value, accepts))
	}
	unused := func(field string, set bool) {
		if set {
			errs = append(errs, fmt.Errorf("executor.%s: not a field of kind %q (only of %s)", field, e.Kind, fieldKinds[field]))
		}
	}
	vus := func(field string, n, lo int) {
		if n < lo || n > MaxVUsLimit {
			bad(field, n, fmt.Sprintf("an integer from %d to %d", lo, MaxVUsLimit))
		}
	}
	duration := func(field string, d time.Duration, zeroOK bool) {
		lo := "above 0"
		if zeroOK {
			lo = "0 or more"
		}
		if d < 0 || (!zeroOK && d == 0) || d > MaxScheduleDuration {
			bad(field, d, fmt.Sprintf("%s and at most %v", lo, MaxScheduleDuration))
		}
	}
	switch e.Kind {
	case ConstantVUs:
		vus("vus", e.VUs, 1)
		duration("duration", e.Duration, false)
		unused("startVUs", e.StartVUs != 0)
		unused("maxVUs", e.MaxVUs != 0)
		unused("iterations", e.Iterations != 0)
		unused("rate", e.Rate != 0)
		unused("stages", len(e.Stages) != 0)
		unused("gracefulRampDown", e.GracefulRampDown != 0)
	case RampingVUs:
		vus("startVUs", e.StartVUs, 0)
		if len(e.Stages) == 0 || len(e.Stages) > MaxStages {
			bad("stages", fmt.Sprintf("(%d stages)", len(e.Stages)), fmt.Sprintf("1 to %d stages of {duration, target}", MaxStages))
		}
		var total time.Duration
		for i, s := range e.Stages {
			duration(fmt.Sprintf("stages[%d].duration", i), s.Duration, true)
			vus(fmt.Sprintf("stages[%d].target", i), s.Target, 0)
			total += max(s.Duration, 0)
		}
		if len(e.Stages) > 0 && (total <= 0 || total > MaxScheduleDuration) {
			bad("stages", fmt.Sprintf("(%v in all)", total), fmt.Sprintf("above 0 and at most %v in all", MaxScheduleDuration))
		}
		if e.PeakVUs() == 0 && len(e.Stages) > 0 {
			bad("stages", "(every target 0)", "a ramp with at least one VU at some point")
		}
		duration("gracefulRampDown", e.GracefulRampDown, false)
		unused("vus", e.VUs != 0)
		unused("maxVUs", e.MaxVUs != 0)
		unused("iterations", e.Iterations != 0)
		unused("rate", e.Rate != 0)
		unused("duration", e.Duration != 0)
	case SharedIterations:
		vus("vus", e.VUs, 1)
		if e.Iterations < 1 || e.Iterations > MaxIterations {
			bad("iterations", e.Iterations, fmt.Sprintf("an integer from 1 to %d", MaxIterations))
		}
		duration("duration", e.Duration, false)
		unused("startVUs", e.StartVUs != 0)
		unused("maxVUs", e.MaxVUs != 0)
		unused("rate", e.Rate != 0)
		unused("stages", len(e.Stages) != 0)
		unused("gracefulRampDown", e.GracefulRampDown != 0)
	case ConstantArrivalRate:
		if e.Rate < 1 || e.Rate > MaxRate {
			bad("rate", e.Rate, fmt.Sprintf("an integer from 1 to %d (iterations/s)", MaxRate))
		}
		duration("duration", e.Duration, false)
		vus("maxVUs", e.MaxVUs, 1)
		if e.Rate >= 1 && e.Duration > 0 && e.scheduledCount() > MaxIterations {
			bad("rate", e.Rate, fmt.Sprintf("such that rate x duration is at most %d iterations", MaxIterations))
		}
		unused("vus", e.VUs != 0)
		unused("startVUs", e.StartVUs != 0)
		unused("iterations", e.Iterations != 0)
		unused("stages", len(e.Stages) != 0)
		unused("gracefulRampDown", e.GracefulRampDown != 0)
	default:
		errs = append(errs, fmt.Errorf("executor.kind = %q: must be %q, %q, %q or %q (or \"\" with no other field for the fortio fixed-rate load)",
			e.Kind, ConstantArrivalRate, ConstantVUs, RampingVUs, SharedIterations))
	}
	duration("gracefulStop", e.GracefulStop, false)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("driver: invalid executor: %w", err)
	}
	return nil
}

// fieldKinds says which kinds each field belongs to, for Validate's errors.
var fieldKinds = map[string]string{
	"vus":              string(ConstantVUs) + " and " + string(SharedIterations),
	"startVUs":         string(RampingVUs),
	"maxVUs":           string(ConstantArrivalRate),
	"iterations":       string(SharedIterations),
	"rate":             string(ConstantArrivalRate),
	"duration":         string(ConstantVUs) + ", " + string(SharedIterations) + " and " + string(ConstantArrivalRate),
	"stages":           string(RampingVUs),
	"gracefulRampDown": string(RampingVUs),
}

// PeakVUs is the most VUs e can have at once, so the number of Callers New needs: VUs,
// MaxVUs, or the largest of StartVUs and the stages' targets. 0 for the zero Executor.
func (e Executor) PeakVUs() int {
	e = e.withDefaults()
	switch e.Kind {
	case ConstantVUs, SharedIterations:
		return e.VUs
	case ConstantArrivalRate:
		return e.MaxVUs
	case RampingVUs:
		n := e.StartVUs
		for _, s := range e.Stages {
			n = max(n, s.Target)
		}
		return n
	}
	return 0
}

// ScheduleDuration is how long e's schedule lasts, before GracefulStop: Duration, or the sum
// of the stages (for SharedIterations the most it may last).
func (e Executor) ScheduleDuration() time.Duration {
	e = e.withDefaults()
	if e.Kind == RampingVUs {
		var total time.Duration
		for _, s := range e.Stages {
			total += s.Duration
		}
		return total
	}
	return e.Duration
}

// MaxRunDuration is the most a run of e can take: its schedule, then GracefulStop (and for
// a ramp, GracefulRampDown for the VUs ramped down in its last instants).
func (e Executor) MaxRunDuration() time.Duration {
	e = e.withDefaults()
	return e.ScheduleDuration() + max(e.GracefulStop, e.GracefulRampDown)
}

// PlannedIterations is the number of iterations e's schedule fixes in advance: Iterations
// for SharedIterations, Rate x Duration for ConstantArrivalRate, 0 for the VU loops (whose
// count only their pace decides, bounded by MaxIterations).
func (e Executor) PlannedIterations() int64 {
	e = e.withDefaults()
	switch e.Kind {
	case SharedIterations:
		return e.Iterations
	case ConstantArrivalRate:
		return e.scheduledCount()
	}
	return 0
}

// scheduledCount is Rate x Duration, the slots of a ConstantArrivalRate run (rounded down).
func (e Executor) scheduledCount() int64 {
	return int64(float64(e.Rate) * e.Duration.Seconds())
}

// Target is the VU count a RampingVUs schedule asks for at offset at from its start, by the
// same rule the run follows: from each stage's start level, one VU added (or removed) at
// each of |delta| evenly spaced instants, the k-th at start + k x duration / |delta|. Past the
// last stage it is the last target. For the other kinds it is MaxVUs during the schedule.
func (e Executor) Target(at time.Duration) int {
	e = e.withDefaults()
	if e.Kind != RampingVUs {
		if at < e.ScheduleDuration() {
			return e.PeakVUs()
		}
		return 0
	}
	level := e.StartVUs
	var start time.Duration
	for _, s := range e.Stages {
		delta := s.Target - level
		if at < start+s.Duration && delta != 0 {
			steps := abs(delta)
			k := int(int64(at-start) * int64(steps) / int64(s.Duration)) // steps taken by at
			if delta < 0 {
				return level - k
			}
			return level + k
		}
		level = s.Target
		start += s.Duration
	}
	return level
}

// step is one change of a ramp's VU count: at offset At the count becomes VUs.
type step struct {
	At  time.Duration
	VUs int
}

// steps lists every change of a RampingVUs schedule in time order (at most MaxStages x
// MaxVUsLimit), by Target's rule.
func (e Executor) steps() []step {
	var out []step
	level := e.StartVUs
	if level > 0 {
		out = append(out, step{0, level})
	}
	var start time.Duration
	for _, s := range e.Stages {
		delta := s.Target - level
		n := abs(delta)
		for k := 1; k <= n; k++ {
			at := start + time.Duration(int64(s.Duration)*int64(k)/int64(n))
			v := level + k
			if delta < 0 {
				v = level - k
			}
			out = append(out, step{at, v})
		}
		level = s.Target
		start += s.Duration
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Share is tester i's part (0 <= i < n) of e when n testers run it together, as k6 splits a
// test over execution segments: every count (VUs, StartVUs, MaxVUs, Iterations, Rate and each
// stage's Target) is divided by n, the first count%n testers taking one more, so the n shares
// add up to e exactly. Durations and graceful stops are e's own. It is an error when n < 1, i
// is out of range, or a share would have no VU or no iteration to run, naming the field.
func (e Executor) Share(i, n int) (Executor, error) {
	if n < 1 || i < 0 || i >= n {
		return Executor{}, fmt.Errorf("driver: share %d of %d: must be 0 <= i < n", i, n)
	}
	if e.IsZero() || n == 1 {
		return e, nil
	}
	e = e.withDefaults()
	part := func(x int64) int64 {
		s := x / int64(n)
		if int64(i) < x%int64(n) {
			s++
		}
		return s
	}
	out := e
	out.VUs = int(part(int64(e.VUs)))
	out.StartVUs = int(part(int64(e.StartVUs)))
	out.MaxVUs = int(part(int64(e.MaxVUs)))
	out.Iterations = part(e.Iterations)
	out.Rate = int(part(int64(e.Rate)))
	out.Stages = nil
	for _, s := range e.Stages {
		out.Stages = append(out.Stages, Stage{Duration: s.Duration, Target: int(part(int64(s.Target)))})
	}
	switch {
	case out.PeakVUs() < 1:
		return Executor{}, fmt.Errorf("driver: %s with at most %d VUs cannot be split over %d testers: one would have none", e.Kind, e.PeakVUs(), n)
	case e.Kind == SharedIterations && out.Iterations < 1:
		return Executor{}, fmt.Errorf("driver: executor.iterations = %d cannot be split over %d testers: one would have none", e.Iterations, n)
	case e.Kind == ConstantArrivalRate && out.Rate < 1:
		return Executor{}, fmt.Errorf("driver: executor.rate = %d cannot be split over %d testers: one would have a rate of 0", e.Rate, n)
	}
	return out, nil
}

// MarshalJSON writes Stage with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (s Stage) MarshalJSON() ([]byte, error) {
	type plain Stage
	return secondsjson.Marshal(plain(s))
}

// UnmarshalJSON reads Stage's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (s *Stage) UnmarshalJSON(b []byte) error {
	type plain Stage
	return secondsjson.Unmarshal(b, (*plain)(s))
}

// MarshalJSON writes Executor with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (e Executor) MarshalJSON() ([]byte, error) {
	type plain Executor
	return secondsjson.Marshal(plain(e))
}

// UnmarshalJSON reads Executor's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (e *Executor) UnmarshalJSON(b []byte) error {
	type plain Executor
	return secondsjson.Unmarshal(b, (*plain)(e))
}
