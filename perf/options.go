package perf

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"

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

// NewParams returns DefaultParams, changed by opts, then by the main-phase environment
// variables (DAPR_PERF_QPS, DAPR_PERF_CONNECTIONS, DAPR_TEST_DURATION, DAPR_PAYLOAD_SIZE in
// bytes, DAPR_PAYLOAD; read by LoadEnv), which win over code. A variable that is set but
// invalid is an error naming it, its value and what it accepts; so are invalid params (see
// Params.Validate). On an executor's load they set what they mean there (overrideExecutor).
func NewParams(opts ...Option) (Params, error) {
	p := build(opts)
	env, err := LoadEnv()
	if err != nil {
		return Params{}, err
	}
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
// and shared iterations keep the scenario's: their shape is the test.
func overrideExecutor(ex *driver.Executor, qps, conns *int, d *time.Duration) {
	switch ex.Kind {
	case driver.ConstantArrivalRate:
		SetIf(&ex.Rate, qps)
		SetIf(&ex.Duration, d)
	case driver.ConstantVUs:
		SetIf(&ex.VUs, conns)
		SetIf(&ex.Duration, d)
	}
}

// NewWarmupParams is NewParams for the warmup phase: it takes DAPR_PERF_WARMUP_QPS and
// DAPR_PERF_WARMUP_DURATION, and never the main-phase variables.
func NewWarmupParams(opts ...Option) (Params, error) {
	p := build(opts)
	env, err := LoadEnv()
	if err != nil {
		return Params{}, err
	}
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

// envError rewrites envconfig's parse error so that it names the variable, the value and the
// expected type, without envconfig's Go field names.
func envError(err error) error {
	var pe *envconfig.ParseError
	if errors.As(err, &pe) {
		typ := strings.TrimPrefix(pe.TypeName, "*")
		accepts := map[string]string{"int": "an integer", "time.Duration": "a Go duration such as 30s or 1m"}[typ]
		if accepts == "" {
			accepts = "a value of type " + typ
		}
		return fmt.Errorf("%s=%q: must be %s (%v)", pe.KeyName, pe.Value, accepts, pe.Err)
	}
	return err
}
