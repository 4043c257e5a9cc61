package perf

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Result is the outcome of one load run, as the tester returns it and the report stores it.
// Latencies are in seconds (float64), as fortio measures them; accessors return time.Duration.
// The request payload is never stored: Params.Payload is emptied and PayloadBytes keeps its size.
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
	// Latency summarises the request durations.
	Latency Latency `json:"latency"`
	// RetCodes counts answers by code: for HTTP the status code as text ("200", "503"), with
	// "-1" for a socket error; for gRPC the status name ("OK", "Unavailable").
	RetCodes map[string]int64 `json:"retCodes"`
	// Schedule says whether the generator kept to its schedule (coordinated omission).
	Schedule Schedule `json:"schedule"`
}

// Latency is the distribution of request durations; every figure is in seconds.
type Latency struct {
	MinSeconds    float64 `json:"minSeconds"`
	AvgSeconds    float64 `json:"avgSeconds"`
	MaxSeconds    float64 `json:"maxSeconds"`
	StdDevSeconds float64 `json:"stdDevSeconds"`
	// Resolution is the histogram's bucket width used for this run.
	Resolution time.Duration `json:"resolution"`
	// Percentiles holds the computed percentiles, looked up by value with Result.Percentile.
	Percentiles []PercentileValue `json:"percentiles"`
	// Histogram holds the non-empty buckets, in ascending order.
	Histogram []Bucket `json:"histogram"`
}

// PercentileValue is one computed percentile: P in (0, 100), Seconds its latency.
type PercentileValue struct {
	P       float64 `json:"p"`
	Seconds float64 `json:"seconds"`
}

// Bucket is one histogram bucket: requests whose latency fell in [StartSeconds, EndSeconds).
type Bucket struct {
	StartSeconds float64 `json:"startSeconds"`
	EndSeconds   float64 `json:"endSeconds"`
	Count        int64   `json:"count"`
}

// Schedule records how far the load generator fell behind its fixed-rate schedule. Latency is
// timed from the actual send, so a generator that falls behind hides queueing delay
// (coordinated omission): the run must then be treated as invalid, not as fast.
type Schedule struct {
	// Scheduled is the number of requests the schedule planned (QPS x duration).
	Scheduled int64 `json:"scheduled"`
	// Skipped counts slots that fixed-rate pacing dropped because the previous request of the
	// same connection was still running when they came due.
	Skipped int64 `json:"skipped"`
	// Late counts requests sent more than one inter-request period after their slot.
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

// Percentile returns the latency below which p percent of requests fell, looked up by value
// among the computed percentiles (never by position). It is an error if p was not computed.
func (r *Result) Percentile(p float64) (time.Duration, error) {
	for _, q := range r.Latency.Percentiles {
		if math.Abs(q.P-p) < 1e-9 {
			return seconds(q.Seconds), nil
		}
	}
	have := make([]float64, 0, len(r.Latency.Percentiles))
	for _, q := range r.Latency.Percentiles {
		have = append(have, q.P)
	}
	return 0, fmt.Errorf("perf: percentile p%v was not computed (have %v)", p, have)
}

// Mean returns the mean latency.
func (r *Result) Mean() time.Duration { return seconds(r.Latency.AvgSeconds) }

// Min and Max return the extreme latencies.
func (r *Result) Min() time.Duration { return seconds(r.Latency.MinSeconds) }

// Max returns the largest latency.
func (r *Result) Max() time.Duration { return seconds(r.Latency.MaxSeconds) }

// Errors counts every failed request: for HTTP every non-2xx status and every socket error
// (-1); for gRPC every status but OK. Dapr's suite counts only 200/204/400/500, so a 503 or a
// gRPC error passes there unnoticed.
func (r *Result) Errors() int64 {
	var n int64
	for code, count := range r.RetCodes {
		if !codeOK(r.Params.Protocol, code) {
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

// QPSRatio is ActualQPS / RequestedQPS (0 when nothing was requested).
func (r *Result) QPSRatio() float64 {
	if r.RequestedQPS <= 0 {
		return 0
	}
	return r.ActualQPS / r.RequestedQPS
}

func codeOK(proto Protocol, code string) bool {
	if proto == GRPC {
		return code == "OK"
	}
	n, err := strconv.Atoi(code)
	return err == nil && n >= 200 && n < 300
}

// SortedCodes returns the return codes in a stable order, for printing.
func (r *Result) SortedCodes() []string {
	codes := make([]string, 0, len(r.RetCodes))
	for c := range r.RetCodes {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// seconds converts fortio's float seconds to a Duration, rounded to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
