package perf

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/daprperf/daprperf/perf/driver"
)

// Option changes one field of Params; see NewParams.
type Option func(*Params)

// WithQPS sets the target rate in requests per second.
func WithQPS(qps int) Option { return func(p *Params) { p.QPS = qps } }

// WithConnections sets the number of concurrent connections.
func WithConnections(n int) Option { return func(p *Params) { p.Connections = n } }

// WithDuration sets how long the load runs.
func WithDuration(d time.Duration) Option { return func(p *Params) { p.Duration = d } }

// WithPayloadSize sets the size of a generated request payload, in bytes.
func WithPayloadSize(bytes int) Option { return func(p *Params) { p.PayloadBytes = bytes } }

// WithPayload sets a literal request payload; it wins over WithPayloadSize.
func WithPayload(body string) Option { return func(p *Params) { p.Payload = body } }

// WithProtocol sets the wire protocol, HTTP or GRPC.
func WithProtocol(proto Protocol) Option { return func(p *Params) { p.Protocol = proto } }

// WithTarget sets the load target: a URL for HTTP, host:port for gRPC.
func WithTarget(target string) Option { return func(p *Params) { p.Target = target } }

// WithPercentiles sets the percentiles to compute, each in (0, 100).
func WithPercentiles(ps ...float64) Option {
	return func(p *Params) { p.Percentiles = append([]float64(nil), ps...) }
}

// Environment variables that override Params. The main-phase names are Dapr's own.
const (
	EnvQPS            = "DAPR_PERF_QPS"
	EnvConnections    = "DAPR_PERF_CONNECTIONS"
	EnvDuration       = "DAPR_TEST_DURATION"
	EnvPayloadSize    = "DAPR_PAYLOAD_SIZE"
	EnvPayload        = "DAPR_PAYLOAD"
	EnvWarmupQPS      = "DAPR_PERF_WARMUP_QPS"
	EnvWarmupDuration = "DAPR_PERF_WARMUP_DURATION"
)

// NewParams returns DefaultParams changed by opts, or the error of Params.Validate.
func NewParams(opts ...Option) (Params, error) {
	p := build(opts)
	return p, p.Validate()
}

// MainParams returns DefaultParams, changed by opts, then by the main-phase variables of env
// (DAPR_PERF_QPS, DAPR_PERF_CONNECTIONS, DAPR_TEST_DURATION, DAPR_PAYLOAD_SIZE in bytes,
// DAPR_PAYLOAD), which win over code; invalid params are Params.Validate's error. On an
// executor's load they set what they mean there (overrideExecutor).
func (env Env) MainParams(opts ...Option) (Params, error) {
	p := build(opts)
	SetIf(&p.QPS, env.QPS)
	SetIf(&p.Connections, env.Connections)
	SetIf(&p.Duration, env.Duration)
	SetIf(&p.PayloadBytes, env.PayloadSize)
	SetIf(&p.Payload, env.Payload)
	overrideExecutor(&p.Executor, env.QPS, env.Connections, env.Duration)
	return p, p.Validate()
}

// overrideExecutor applies the load variables to the executors they have a meaning for, as
// they apply to fortio's load: the rate (qps) to a constant-arrival-rate's Rate, the
// connections to a constant-vus's VUs, the duration to the Duration of both. A ramp's stages
// and shared iterations keep the scenario's (their shape is the test), but a ramp whose
// VUsAtQPS is set scales its targets under a lower qps.
func overrideExecutor(ex *driver.Executor, qps, conns *int, d *time.Duration) {
	switch ex.Kind {
	case driver.ConstantArrivalRate:
		SetIf(&ex.Rate, qps)
		SetIf(&ex.Duration, d)
	case driver.ConstantVUs:
		SetIf(&ex.VUs, conns)
		SetIf(&ex.Duration, d)
	case driver.RampingVUs:
		if qps == nil || ex.VUsAtQPS <= 0 || *qps >= ex.VUsAtQPS {
			return
		}
		f := float64(*qps) / float64(ex.VUsAtQPS)
		ex.Stages = slices.Clone(ex.Stages)
		for i := range ex.Stages {
			ex.Stages[i].Target = max(1, int(float64(ex.Stages[i].Target)*f+0.5))
		}
	}
}

// WarmupParams is MainParams for the warmup phase: it takes DAPR_PERF_WARMUP_QPS and
// DAPR_PERF_WARMUP_DURATION, and never the main-phase variables.
func (env Env) WarmupParams(opts ...Option) (Params, error) {
	p := build(opts)
	SetIf(&p.QPS, env.WarmupQPS)
	SetIf(&p.Duration, env.WarmupDuration)
	overrideExecutor(&p.Executor, env.WarmupQPS, nil, env.WarmupDuration)
	return p, p.Validate()
}

// SetIf copies *v over *dst when the variable was set.
func SetIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func build(opts []Option) Params {
	p := DefaultParams()
	for _, o := range opts {
		o(&p)
	}
	return p
}

// Setup is a load a run sends once before its first phase, through the tester, to put the
// deployment in the state its phases need: e.g. a state.save through daprd that seeds the
// key a state.get scenario then reads in both of its phases (through daprd, and straight
// from the store, where it reads the row daprd wrote).
//
//	perf.Setup{Name: "seed", Route: perf.Route{To: "tester", ThroughSidecar: true,
//		Operation: perf.Operation{Kind: perf.OpStateSave, Store: "statestore", Key: "abc123"}},
//		Options: []perf.Option{perf.WithQPS(10), perf.WithConnections(1), perf.WithDuration(time.Second), perf.WithPayloadSize(1024)}}
type Setup struct {
	// Name says what it is for, in the log and in errors ("seed abc123").
	Name string
	// Route is where it goes, as a phase's Route (routed over the scenario's transport).
	Route Route
	// Options build its Params (defaults, then Options; no env override applies: the setup
	// is not a measured phase). Its QPS, connections and duration must fit in the tester's
	// limits, which the scenario's own loads set (TesterLimitsFor).
	Options []Option
}

// SetupParams returns su's Params: defaults, then su.Options, validated.
func (su Setup) SetupParams() (Params, error) {
	p := build(su.Options)
	if err := p.Validate(); err != nil {
		return Params{}, fmt.Errorf("setup %q: %w", su.Name, err)
	}
	return p, nil
}

// ValidateSetup checks every Setup's name and Params before anything starts.
func (sc Scenario) ValidateSetup() error {
	var errs []error
	for i, su := range sc.Setup {
		if su.Name == "" {
			errs = append(errs, fmt.Errorf("setup[%d]: Name must say what it is for", i))
		}
		if _, err := su.SetupParams(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// EnvIdleWindow overrides Scenario.IdleWindow: a Go duration from 0s to 1h.
const EnvIdleWindow = "DAPR_PERF_IDLE_WINDOW"

// IdleWindowFromEnv returns DAPR_PERF_IDLE_WINDOW when set, else the scenario's window (10 s
// when zero), raised to MinIdleWindow when shorter; note says why when the variable was raised
// (for the result's warnings).
func (sc Scenario) IdleWindowFromEnv(env Env) (d time.Duration, note string) {
	switch {
	case env.IdleWindow != nil:
		d = *env.IdleWindow
	case sc.IdleWindow > 0:
		d = sc.IdleWindow
	default:
		d = 10 * time.Second
	}
	if d < sc.MinIdleWindow {
		if env.IdleWindow != nil {
			note = fmt.Sprintf("%s=%v raised to %v: the scenario's own checks need that idle window after the last main phase", EnvIdleWindow, d, sc.MinIdleWindow)
		}
		d = sc.MinIdleWindow
	}
	return d, note
}
