package perf

import (
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
