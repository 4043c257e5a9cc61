package perf

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/secondsjson"
)

// Protocol is the wire protocol of a load run.
type Protocol string

// The protocols a load run speaks.
const (
	HTTP Protocol = "http"
	GRPC Protocol = "grpc"
)

// Limits on Params, stated once so that errors and docs agree.
const (
	// MinDuration is the shortest load run accepted: below it a QPS figure is mostly start-up.
	MinDuration = time.Second
	// MaxDuration bounds every load loop in time.
	MaxDuration = 24 * time.Hour
	// MaxSamples bounds the requests of a load that keeps its samples (KeepSamples).
	MaxSamples = 1 << 16
	// MaxPayloadBytes is the largest request payload accepted: 10 MiB, far beyond Dapr's
	// suite (which uses 0 to 100 KB) but below daprd's default 4 MiB body limit times a margin.
	MaxPayloadBytes = 10 << 20
	// MaxConnections bounds the number of concurrent connections (fortio threads).
	MaxConnections = 10_000
	// MaxQPS bounds the target rate; 1,000,000 requests/s is far beyond any loopback run.
	MaxQPS = 1_000_000
)

// DefaultPercentiles are the percentiles every run computes: p50, p75, p90, p99, p99.9.
var DefaultPercentiles = []float64{50, 75, 90, 99, 99.9}

// Params are the settings of one load run: rates in requests per second, sizes in bytes,
// durations as time.Duration (in JSON, seconds under the name with "Seconds" after it:
// "durationSeconds"). The zero value is not valid: start from DefaultParams or NewParams.
type Params struct {
	// QPS is the target rate in requests per second across all connections; at least 1.
	// Ignored when MaxRate is set.
	QPS int `json:"qps"`
	// MaxRate sends as fast as the connections allow, with no schedule: for throughput
	// benchmarks, never for latency (a closed loop hides queueing).
	MaxRate bool `json:"maxRate,omitempty"`
	// Connections is the number of concurrent connections (fortio threads); at least 1.
	Connections int `json:"connections"`
	// Duration of the run; at least MinDuration.
	Duration time.Duration `json:"duration"`
	// PayloadBytes is the size of a generated request payload, in bytes (0 = no body).
	// Ignored when Payload is set.
	PayloadBytes int `json:"payloadBytes"`
	// Payload is a literal request body; it wins over PayloadBytes.
	Payload string `json:"payload,omitempty"`

	// Protocol is HTTP or GRPC.
	Protocol Protocol `json:"protocol"`
	// Target is where the load goes: a URL for HTTP (http://127.0.0.1:3500/v1.0/invoke/app/method/test),
	// host:port for gRPC, and the store's host:port for a direct-to-store operation
	// (Operation.Direct) over either protocol.
	Target string `json:"target"`
	// AppID is, for gRPC, the app id to invoke through the sidecar's Dapr.InvokeService API.
	// Empty means the target is the app itself, called through AppCallback.OnInvoke (the baseline).
	AppID string `json:"appID,omitempty"`
	// Method is, for gRPC, the invoked method name (default "test").
	Method string `json:"method,omitempty"`
	// UniquePath appends "/<uuid>" to the URL path (HTTP) or the method (gRPC) of every request,
	// as in the method-name memory-growth case (checkout/{orderId}).
	UniquePath bool `json:"uniquePath,omitempty"`
	// Operation is the Dapr API each request drives (operation.go); the zero value is service
	// invocation of Target as given, with AppID and Method.
	Operation Operation `json:"operation,omitzero"`
	// Executor, when set, runs the load with the closed-loop driver (package perf/driver: k6's
	// constant-arrival-rate, constant-vus, ramping-vus or shared-iterations) instead of
	// fortio's fixed-rate load; QPS, MaxRate, Connections and Duration are then not used (the
	// executor has its own VUs, rate and durations; see RunDuration). The zero value is
	// fortio's load, exactly as before.
	Executor driver.Executor `json:"executor,omitzero"`
	// Await, when set, makes each iteration of the executor's load wait for the messages its
	// request stamped to reach the subscriber (await.go); nil does not wait.
	Await *Await `json:"await,omitempty"`
	// StartAt, when set, is the instant the tester waits for before it starts the load: the
	// client gives every tester of a split load (testers.RunLoad with replicas) the same one, so that
	// their loads overlap, and each Result.StartTime says when the load really started. A
	// tester refuses a StartAt more than MaxStartLead ahead of its own clock; one already past
	// starts at once. The zero value starts at once.
	StartAt time.Time `json:"startAt,omitzero"`
	// KeepSamples returns every request's service time in Result.ServiceSamples, for checks that
	// need raw values; only for fortio's load of at most MaxSamples planned requests.
	KeepSamples bool `json:"keepSamples,omitempty"`

	// Percentiles to compute when the run ends, each in (0, 100). Every request is recorded in
	// an HDR histogram (3 significant digits) stored with the result, so any other percentile
	// can be computed later.
	Percentiles []float64 `json:"percentiles"`
}

// DefaultParams are Dapr's perf-suite defaults: 1 QPS, 1 connection, 1 minute, no payload,
// HTTP; plus this framework's DefaultPercentiles. Pacing is always fixed-rate, and latency is
// recorded exactly (see Result.Latency and Result.ResponseTime).
func DefaultParams() Params {
	return Params{
		QPS:         1,
		Connections: 1,
		Duration:    time.Minute,
		Protocol:    HTTP,
		Method:      "test",
		Percentiles: append([]float64(nil), DefaultPercentiles...),
	}
}

// Validate reports every invalid field at once; each error names the field (by its JSON name),
// the value and what it accepts. Target may be empty here: a scenario fills it in per phase.
func (p Params) Validate() error {
	var errs []error
	bad := func(field string, value any, accepts string) {
		errs = append(errs, fmt.Errorf("%s = %v: must be %s", field, value, accepts))
	}
	if !p.MaxRate && (p.QPS < 1 || p.QPS > MaxQPS) {
		bad("qps", p.QPS, fmt.Sprintf("an integer from 1 to %d (requests/s)", MaxQPS))
	}
	if p.Connections < 1 || p.Connections > MaxConnections {
		bad("connections", p.Connections, fmt.Sprintf("an integer from 1 to %d", MaxConnections))
	}
	if p.Duration < MinDuration || p.Duration > MaxDuration {
		bad("duration", p.Duration, fmt.Sprintf("from %v to %v", MinDuration, MaxDuration))
	}
	if p.PayloadBytes < 0 || p.PayloadBytes > MaxPayloadBytes {
		bad("payloadBytes", p.PayloadBytes, fmt.Sprintf("from 0 to %d bytes", MaxPayloadBytes))
	}
	if len(p.Payload) > MaxPayloadBytes {
		bad("payload", fmt.Sprintf("(%d bytes)", len(p.Payload)), fmt.Sprintf("at most %d bytes", MaxPayloadBytes))
	}
	direct := p.Operation.Direct != ""
	switch p.Protocol {
	case HTTP:
		if direct && p.Target != "" && (strings.Contains(p.Target, "/") || !strings.Contains(p.Target, ":")) {
			bad("target", p.Target, "host:port of the store for a direct-to-store operation (operation.direct "+string(p.Operation.Direct)+")")
		} else if p.Target != "" && !direct {
			if u, err := url.Parse(p.Target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad("target", p.Target, "an http:// or https:// URL for protocol http")
			}
		}
	case GRPC:
		if p.Target != "" && (strings.Contains(p.Target, "/") || !strings.Contains(p.Target, ":")) {
			bad("target", p.Target, "host:port for protocol grpc")
		}
		if p.Method == "" {
			bad("method", `""`, "a method name for protocol grpc")
		}
	default:
		bad("protocol", fmt.Sprintf("%q", p.Protocol), `"http" or "grpc"`)
	}
	errs = append(errs, p.operationProblems()...)
	errs = append(errs, p.executorProblems()...)
	errs = append(errs, p.awaitProblems()...)
	if p.KeepSamples && (p.HasExecutor() || p.MaxRate || p.ExpectedRequests() > MaxSamples) {
		bad("keepSamples", true, fmt.Sprintf("false unless the load is fortio's fixed rate with at most %d planned requests", MaxSamples))
	}
	if len(p.Percentiles) == 0 {
		bad("percentiles", "[]", "a non-empty list")
	}
	for _, q := range p.Percentiles {
		if !(q > 0 && q < 100) || math.IsNaN(q) {
			bad("percentiles", q, "each in the open range (0, 100)")
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("perf: invalid params: %w", errors.Join(errs...))
	}
	return nil
}

// RequestBody returns the body each request sends: Payload if set, else PayloadBytes of
// generated text, else nil.
func (p Params) RequestBody() []byte {
	if p.Payload != "" {
		return []byte(p.Payload)
	}
	if p.PayloadBytes == 0 {
		return nil
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, p.PayloadBytes)
	for i := range b {
		b[i] = alphabet[i%len(alphabet)]
	}
	return b
}

// ExpectedRequests is the number of requests a run at these params schedules: QPS x Duration
// (0 with MaxRate: no schedule).
func (p Params) ExpectedRequests() int64 {
	if p.MaxRate {
		return 0
	}
	return int64(float64(p.QPS) * p.Duration.Seconds())
}

// MarshalJSON writes Params with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (p Params) MarshalJSON() ([]byte, error) {
	type plain Params
	return secondsjson.Marshal(plain(p))
}

// UnmarshalJSON reads Params's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (p *Params) UnmarshalJSON(b []byte) error {
	type plain Params
	return secondsjson.Unmarshal(b, (*plain)(p))
}
