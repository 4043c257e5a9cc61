package perf

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/daprperf/daprperf/perf/hdr"
	"github.com/daprperf/daprperf/perf/secondsjson"
)

// Result is the outcome of one load run, as the tester returns it and the report stores it.
// Latencies are in seconds (float64) in the file; accessors return time.Duration. The request
// payload is never stored: Params.Payload is emptied and PayloadBytes keeps its size.
type Result struct {
	Params Params `json:"params"`
	// StartTime is when the load started.
	StartTime time.Time `json:"startTime"`
	// RequestedQPS and ActualQPS are in requests per second.
	RequestedQPS float64 `json:"requestedQPS"`
	ActualQPS    float64 `json:"actualQPS"`
	// ActualDuration is how long the load ran.
	ActualDuration time.Duration `json:"actualDuration"`
	// Requests is the number of requests sent and answered (or failed).
	Requests int64 `json:"requests"`
	// WarmupRequests is the number of requests sent before the schedule, one per connection,
	// in no figure (not in Requests, RetCodes, the latencies, the timeline or the QPS): fortio's
	// HTTP runner sends them so that each connection is open and the first timed request pays
	// no connect time. The target saw Requests + WarmupRequests calls. 0 when the load sent none
	// (gRPC, the tester's own HTTP callers, the closed-loop driver) and in result files written
	// before it existed.
	WarmupRequests int64 `json:"warmupRequests,omitempty"`
	// Latency is the service time of every request: from its actual send to its answer, the
	// figure Dapr's suite reports and the one the overhead gates use.
	Latency Latency `json:"latency"`
	// ResponseTime is the response time of every request: from the slot the fixed-rate schedule
	// gave it (its intended start) to its answer, as wrk2 measures. It includes the time a
	// request waited for its connection, which service time hides (coordinated omission). Nil
	// for a max-rate run, which has no schedule, and in result files written before it existed.
	ResponseTime *Latency `json:"responseTime,omitempty"`
	// Sockets is the number of TCP connections the load opened (each connection's first dial
	// plus every reconnect); Params.Connections is what was asked for. More sockets than
	// connections means connection churn.
	Sockets int64 `json:"sockets"`
	// RetCodes counts answers by code: for HTTP the status code as text ("200", "503"), with
	// "-1" for a socket error; for gRPC the status name ("OK", "Unavailable").
	RetCodes map[string]int64 `json:"retCodes"`
	// Schedule says whether the load generator kept to its schedule.
	Schedule Schedule `json:"schedule"`
	// Baseline is what the operation's phases are compared with (Operation.BaselineKind), so
	// that a result says "baseline: no-op (Dapr's)" where that is what was used; "" in result
	// files written before operations.
	Baseline BaselineKind `json:"baseline,omitempty"`
	// Executor is what the closed-loop driver reports when Params.Executor ran the load
	// (dropped and interrupted iterations, VUs over time); nil for fortio's load.
	Executor *ExecutorStats `json:"executor,omitempty"`
	// Timeline is the run second by second, by when each request (or the closed-loop driver's
	// iteration) was answered; nil in result files written before it existed, and for the
	// driver's loads in files written before it kept one.
	Timeline []Second `json:"timeline,omitempty"`
	// Testers are the results of each tester when several shared the load (Params.Split), in
	// tester order, each with its own share in Params; this result is their merge
	// (testers.MergeResults). Nil for one tester.
	Testers []Result `json:"testers,omitempty"`
	// StartSpreadSeconds is how far apart the Testers really started: the last StartTime minus
	// the first, in seconds (0 for one tester).
	StartSpreadSeconds float64 `json:"startSpreadSeconds,omitempty"`
	// ServiceSamples are the service times of every answered request, in nanoseconds in no
	// particular order, when Params.KeepSamples asked for them: for checks that need the raw
	// values, such as a merge of several testers' histograms. Nil otherwise.
	ServiceSamples []int64 `json:"serviceSamples,omitempty"`
}

// Second is one second of a load run: the requests answered in [T, T+1) seconds after the
// run's StartTime, how many failed, and their service times' percentiles, exact by nearest
// rank over that second's requests (no histogram). A second without requests has zeros.
type Second struct {
	T          int     `json:"t"`
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors,omitempty"`
	P50Seconds float64 `json:"p50Seconds"`
	P90Seconds float64 `json:"p90Seconds"`
	P99Seconds float64 `json:"p99Seconds"`
	MaxSeconds float64 `json:"maxSeconds"`
}

// Latency is the distribution of one latency figure over every request of a run, recorded in
// an HdrHistogram (package hdr: 3 significant digits, relative error below 0.1 %, 1 ns to
// 1 h). Every figure is in seconds; MinSeconds, AvgSeconds, MaxSeconds and StdDevSeconds are
// exact.
type Latency struct {
	MinSeconds    float64 `json:"minSeconds"`
	AvgSeconds    float64 `json:"avgSeconds"`
	MaxSeconds    float64 `json:"maxSeconds"`
	StdDevSeconds float64 `json:"stdDevSeconds"`
	// SignificantDigits is the histogram's precision (hdr.SignificantDigits); 0 in result files
	// written before the HDR histogram, whose percentiles were interpolated in fortio's buckets.
	SignificantDigits int `json:"significantDigits,omitempty"`
	// Percentiles holds the percentiles computed when the run ended (Params.Percentiles), looked
	// up by value with Result.Percentile.
	Percentiles []PercentileValue `json:"percentiles"`
	// HDR is the whole histogram in HdrHistogram's V2 compressed encoding (base64, values in
	// nanoseconds), from which any percentile can be computed later and rounds can be merged.
	HDR string `json:"hdr,omitempty"`
}

// PercentileValue is one computed percentile: P in (0, 100), Seconds its latency.
type PercentileValue struct {
	P       float64 `json:"p"`
	Seconds float64 `json:"seconds"`
}

// Schedule records how far the load generator fell behind its fixed-rate schedule. Each
// connection sends at a fixed rate; a request whose slot passed while its connection was busy
// is sent as soon as the connection is free and its response time counts from the slot, so
// no request is dropped while the run lasts. Requests still owed when the run's time is up
// are not sent: they are Skipped.
type Schedule struct {
	// Scheduled is the number of requests the schedule planned (QPS x duration).
	Scheduled int64 `json:"scheduled"`
	// Skipped counts scheduled requests never sent: those still owed when the run's time ended.
	Skipped int64 `json:"skipped"`
	// Late counts requests sent more than one inter-request period (connections / QPS) after
	// their slot.
	Late int64 `json:"late"`
	// MaxLateSeconds is the largest delay between a slot and its request's send, in seconds.
	MaxLateSeconds float64 `json:"maxLateSeconds"`
}

// BehindFraction is (Skipped + Late) / Scheduled: the share of the schedule that was not kept.
func (s Schedule) BehindFraction() float64 {
	if s.Scheduled <= 0 {
		return 0
	}
	return float64(s.Skipped+s.Late) / float64(s.Scheduled)
}

// Percentile returns the service time at percentile p, 0 < p < 100 (see Latency.Percentile).
func (r *Result) Percentile(p float64) (time.Duration, error) { return r.Latency.Percentile(p) }

// ResponsePercentile returns the response time at percentile p, 0 < p < 100. It is an error
// when the result has no response time (a max-rate run, or an older result file).
func (r *Result) ResponsePercentile(p float64) (time.Duration, error) {
	if r.ResponseTime == nil {
		return 0, fmt.Errorf("perf: the result has no response time (max-rate run or older result file)")
	}
	return r.ResponseTime.Percentile(p)
}

// Percentile returns the latency below which p percent of requests fell, 0 < p < 100. A
// percentile computed when the run ended is looked up by value (never by position); any other
// is computed from the stored HDR histogram by the nearest-rank rule (hdr.Histogram.Percentile).
// It is an error when p is out of range, or was not computed and there is no histogram.
func (l *Latency) Percentile(p float64) (time.Duration, error) {
	if !(p > 0 && p < 100) {
		return 0, fmt.Errorf("perf: percentile %v: must be in the open range (0, 100)", p)
	}
	for _, q := range l.Percentiles {
		if math.Abs(q.P-p) < 1e-9 {
			return seconds(q.Seconds), nil
		}
	}
	if l.HDR == "" {
		have := make([]float64, 0, len(l.Percentiles))
		for _, q := range l.Percentiles {
			have = append(have, q.P)
		}
		return 0, fmt.Errorf("perf: percentile p%v was not computed (have %v) and the result stores no histogram", p, have)
	}
	h, err := l.Histogram()
	if err != nil {
		return 0, err
	}
	return h.Percentile(p), nil
}

// Histogram decodes the stored HDR histogram, its percentiles clamped to [MinSeconds,
// MaxSeconds]. It is an error when there is none or it does not decode.
func (l *Latency) Histogram() (*hdr.Histogram, error) {
	if l.HDR == "" {
		return nil, fmt.Errorf("perf: the result stores no histogram")
	}
	h, err := hdr.Decode(l.HDR, seconds(l.MinSeconds), seconds(l.MaxSeconds))
	if err != nil {
		return nil, fmt.Errorf("perf: stored histogram: %w", err)
	}
	return h, nil
}

// NewLatency summarises h: exact extremes and moments, the percentiles ps, and the encoded
// histogram. It fails only if the histogram cannot be encoded.
func NewLatency(h *hdr.Histogram, ps []float64) (Latency, error) {
	enc, err := h.Encode()
	if err != nil {
		return Latency{}, err
	}
	l := Latency{
		MinSeconds: h.Min().Seconds(), AvgSeconds: h.MeanSeconds(), MaxSeconds: h.Max().Seconds(),
		StdDevSeconds: h.StdDevSeconds(), SignificantDigits: hdr.SignificantDigits, HDR: enc,
	}
	for _, p := range ps {
		l.Percentiles = append(l.Percentiles, PercentileValue{P: p, Seconds: h.Percentile(p).Seconds()})
	}
	return l, nil
}

// Min and Max return the extreme service times.
func (r *Result) Min() time.Duration { return seconds(r.Latency.MinSeconds) }

// Max returns the largest service time.
func (r *Result) Max() time.Duration { return seconds(r.Latency.MaxSeconds) }

// CoordinatedOmissionFactor is the ratio of response-time p99 to service-time p99 above which
// a run is flagged for coordinated omission: requests waited at least as long again for their
// turn as they took to serve, so service time understates what a client at the scheduled rate
// would see. Timer slack and connection scheduling alone keep the ratio near 1 on loopback.
const CoordinatedOmissionFactor = 2.0

// CoordinatedOmission returns response-time p99 / service-time p99 and whether it exceeds
// CoordinatedOmissionFactor. Without a response time (a max-rate run) it returns 0, false.
func (r *Result) CoordinatedOmission() (ratio float64, flagged bool) {
	svc, err := r.Percentile(99)
	if err != nil || svc <= 0 {
		return 0, false
	}
	resp, err := r.ResponsePercentile(99)
	if err != nil {
		return 0, false
	}
	ratio = float64(resp) / float64(svc)
	return ratio, ratio > CoordinatedOmissionFactor
}

// ConnectionChurn reports whether the load opened more TCP connections than it was given:
// reconnects that add connection set-up to the measured latency.
func (r *Result) ConnectionChurn() bool { return r.Sockets > int64(r.Params.Connections) }

// Errors counts every failed request: for HTTP every non-2xx status and every socket error
// (-1); for gRPC every status but OK; for a direct-to-store phase (Params.Operation.Direct)
// every code but DirectOK, whatever the transport. Dapr's suite counts only 200/204/400/500,
// so a 503 or a gRPC error passes there unnoticed.
func (r *Result) Errors() int64 {
	var n int64
	proto := r.Params.Protocol
	if r.Params.Operation.Direct != "" {
		proto = GRPC // the store's client codes: DirectOK, like gRPC's, or an error class
	}
	for code, count := range r.RetCodes {
		if !codeOK(proto, code) {
			n += count
		}
	}
	return n
}

// SuccessRatio is the share of requests that did not fail, from 0 to 1 (1 when none ran).
func (r *Result) SuccessRatio() float64 {
	if r.Requests == 0 {
		return 1
	}
	return 1 - float64(r.Errors())/float64(r.Requests)
}

// PlannedQPSRatio is ActualQPS over the rate the schedule planned: Schedule.Scheduled requests
// over Params.Duration, at most RequestedQPS. fortio plans whole calls per connection,
// floor(QPS x duration / connections) each (192 of 200 at 20 QPS over 16 connections for
// 10 s), so for a short phase at a low rate the plan is up to connections / (QPS x duration)
// below RequestedQPS without the load failing anything; validity and the preflight judge the
// load against its plan. It is QPSRatio when nothing was scheduled (a closed loop, an old
// result file).
func (r *Result) PlannedQPSRatio() float64 {
	if r.Schedule.Scheduled <= 0 || r.Params.Duration <= 0 || r.RequestedQPS <= 0 {
		return r.QPSRatio()
	}
	planned := min(r.RequestedQPS, float64(r.Schedule.Scheduled)/r.Params.Duration.Seconds())
	return r.ActualQPS / planned
}

// KeptQPSRatio is PlannedQPSRatio with the last request's own time allowed for, the rate
// figure of validity and of the preflight. fortio places each connection's last call at the
// end of the phase, so the elapsed time behind ActualQPS is the duration plus that call's
// service time: a phase that sent every request on its slot still shows duration / (duration
// + service time), 0.986 for a 30 s phase whose last request took 0.42 s (100 single
// publishes on a slow 2-core machine). The allowance is the phase's slowest service time
// (Latency.MaxSeconds) over its duration, so a load that fell behind by more than one
// request's time still shows. Without a duration it is PlannedQPSRatio.
func (r *Result) KeptQPSRatio() float64 {
	ratio := r.PlannedQPSRatio()
	if d := r.Params.Duration.Seconds(); d > 0 {
		ratio *= 1 + r.Latency.MaxSeconds/d
	}
	return ratio
}

// QPSRatio is ActualQPS / RequestedQPS (0 when nothing was requested).
func (r *Result) QPSRatio() float64 {
	if r.RequestedQPS <= 0 {
		return 0
	}
	return r.ActualQPS / r.RequestedQPS
}

// DirectOK is the code of a request of a direct-to-store phase that succeeded; a failed one
// counts under its error class: "timeout" (the call's deadline passed), "closed" (the
// connection was closed or refused), or "error" (the store answered an error).
const DirectOK = "OK"

func codeOK(proto Protocol, code string) bool {
	if proto == GRPC {
		return code == "OK"
	}
	n, err := strconv.Atoi(code)
	return err == nil && n >= 200 && n < 300
}

// seconds converts fortio's float seconds to a Duration, rounded to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// MarshalJSON writes Result with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return secondsjson.Marshal(plain(r))
}

// UnmarshalJSON reads Result's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	return secondsjson.Unmarshal(b, (*plain)(r))
}
