package perf

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"
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

// mainEnv holds the main-phase overrides; a nil field was not set.
type mainEnv struct {
	QPS         *int           `envconfig:"DAPR_PERF_QPS"`
	Connections *int           `envconfig:"DAPR_PERF_CONNECTIONS"`
	Duration    *time.Duration `envconfig:"DAPR_TEST_DURATION"`
	PayloadSize *int           `envconfig:"DAPR_PAYLOAD_SIZE"` // bytes
	Payload     *string        `envconfig:"DAPR_PAYLOAD"`
}

// warmupEnv holds the warmup overrides; the main-phase variables never touch the warmup.
type warmupEnv struct {
	QPS      *int           `envconfig:"DAPR_PERF_WARMUP_QPS"`
	Duration *time.Duration `envconfig:"DAPR_PERF_WARMUP_DURATION"`
}

// NewParams returns DefaultParams, changed by opts, then by the main-phase environment
// variables (DAPR_PERF_QPS, DAPR_PERF_CONNECTIONS, DAPR_TEST_DURATION, DAPR_PAYLOAD_SIZE in
// bytes, DAPR_PAYLOAD), which win over code. A variable that is set but invalid is an error
// naming it, its value and what it accepts; so are invalid params (see Params.Validate).
func NewParams(opts ...Option) (Params, error) {
	p := build(opts)
	var env mainEnv
	if err := envconfig.Process("", &env); err != nil {
		return Params{}, envError(err)
	}
	errs := []error{
		override(&p.QPS, env.QPS, EnvQPS, intIn(1, MaxQPS), "an integer from 1 to 1000000 (requests/s)"),
		override(&p.Connections, env.Connections, EnvConnections, intIn(1, MaxConnections), "an integer from 1 to 10000"),
		override(&p.Duration, env.Duration, EnvDuration, durationIn, "a Go duration from 1s to 24h, such as 1m"),
		override(&p.PayloadBytes, env.PayloadSize, EnvPayloadSize, intIn(0, MaxPayloadBytes), "a size in bytes from 0 to 10485760"),
		override(&p.Payload, env.Payload, EnvPayload, func(s string) bool { return len(s) <= MaxPayloadBytes }, "at most 10485760 bytes"),
	}
	return finish(p, errs)
}

// NewWarmupParams is NewParams for the warmup phase: it reads DAPR_PERF_WARMUP_QPS and
// DAPR_PERF_WARMUP_DURATION, and never the main-phase variables.
func NewWarmupParams(opts ...Option) (Params, error) {
	p := build(opts)
	var env warmupEnv
	if err := envconfig.Process("", &env); err != nil {
		return Params{}, envError(err)
	}
	errs := []error{
		override(&p.QPS, env.QPS, EnvWarmupQPS, intIn(1, MaxQPS), "an integer from 1 to 1000000 (requests/s)"),
		override(&p.Duration, env.Duration, EnvWarmupDuration, durationIn, "a Go duration from 1s to 24h, such as 10s"),
	}
	return finish(p, errs)
}

func build(opts []Option) Params {
	p := DefaultParams()
	for _, o := range opts {
		o(&p)
	}
	return p
}

func finish(p Params, envErrs []error) (Params, error) {
	if err := errors.Join(envErrs...); err != nil {
		return Params{}, fmt.Errorf("perf: env override: %w", err)
	}
	if err := p.Validate(); err != nil {
		return Params{}, err
	}
	return p, nil
}

// override copies an env value over *dst when it is set and ok, or returns an error naming the
// variable, its raw value and what it accepts.
func override[T any](dst *T, v *T, name string, ok func(T) bool, accepts string) error {
	if v == nil {
		return nil
	}
	if !ok(*v) {
		return fmt.Errorf("%s=%q: must be %s", name, os.Getenv(name), accepts)
	}
	*dst = *v
	return nil
}

func intIn(lo, hi int) func(int) bool { return func(v int) bool { return v >= lo && v <= hi } }

func durationIn(d time.Duration) bool { return d >= MinDuration && d <= MaxDuration }

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
		return fmt.Errorf("perf: env override: %s=%q: must be %s (%v)", pe.KeyName, pe.Value, accepts, pe.Err)
	}
	return fmt.Errorf("perf: env override: %w", err)
}
