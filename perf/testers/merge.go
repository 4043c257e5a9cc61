package testers

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/hdr"
)

// MergeResults is the one result of load p run as shares by several testers (perf.Params.Split),
// rs their results in tester order:
//   - the latencies are the testers' HDR histograms merged, count by count, so every
//     percentile is the one a single histogram fed every request would give (at HDR's 3
//     significant digits: the counts are the same); the mean and standard deviation are
//     pooled exactly from each tester's count, mean and deviation, the extremes are exact;
//   - counts (requests, sockets, return codes, the schedule's scheduled, skipped and late,
//     the executor's iterations) are summed, and rates (requested and actual QPS) too;
//   - StartTime is the first tester's start, ActualDuration runs to the last one's end, and
//     StartSpreadSeconds is how far apart the testers really started;
//   - Testers keeps each tester's own result, its histograms and timeline included. The
//     merged Timeline is nil: per-second percentiles cannot be merged.
//
// Errors: no results, a result without its HDR histogram, or results of different protocols.
func MergeResults(p perf.Params, rs []perf.Result) (perf.Result, error) {
	if len(rs) == 0 {
		return perf.Result{}, errors.New("testers: merge: no results")
	}
	if len(rs) == 1 {
		return rs[0], nil
	}
	stored := p
	stored.Payload = "" // never store the request payload
	stored.PayloadBytes = rs[0].Params.PayloadBytes
	stored.StartAt = rs[0].Params.StartAt
	out := perf.Result{Params: stored, Baseline: rs[0].Baseline, RetCodes: map[string]int64{}, Testers: rs}
	var first, lastStart, end time.Time
	services := make([]perf.Latency, 0, len(rs))
	responses := make([]perf.Latency, 0, len(rs))
	for i, r := range rs {
		if r.Params.Protocol != rs[0].Params.Protocol {
			return perf.Result{}, fmt.Errorf("testers: merge: tester %d ran protocol %s, tester 1 %s", i+1, r.Params.Protocol, rs[0].Params.Protocol)
		}
		if first.IsZero() || r.StartTime.Before(first) {
			first = r.StartTime
		}
		if r.StartTime.After(lastStart) {
			lastStart = r.StartTime
		}
		if e := r.StartTime.Add(r.ActualDuration); e.After(end) {
			end = e
		}
		out.RequestedQPS += r.RequestedQPS
		out.ActualQPS += r.ActualQPS
		out.Requests += r.Requests
		out.Sockets += r.Sockets
		out.WarmupRequests += r.WarmupRequests
		for code, n := range r.RetCodes {
			out.RetCodes[code] += n
		}
		out.Schedule.Scheduled += r.Schedule.Scheduled
		out.Schedule.Skipped += r.Schedule.Skipped
		out.Schedule.Late += r.Schedule.Late
		out.Schedule.MaxLateSeconds = max(out.Schedule.MaxLateSeconds, r.Schedule.MaxLateSeconds)
		services = append(services, r.Latency)
		if r.ResponseTime != nil {
			responses = append(responses, *r.ResponseTime)
		}
	}
	out.StartTime = first
	out.ActualDuration = end.Sub(first)
	out.StartSpreadSeconds = lastStart.Sub(first).Seconds()
	var err error
	if out.Latency, err = MergeLatencies(services, p.Percentiles); err != nil {
		return perf.Result{}, fmt.Errorf("testers: merge: service time: %w", err)
	}
	if len(responses) == len(rs) {
		rt, err := MergeLatencies(responses, p.Percentiles)
		if err != nil {
			return perf.Result{}, fmt.Errorf("testers: merge: response time: %w", err)
		}
		out.ResponseTime = &rt
	}
	out.Executor = mergeExecutors(rs)
	return out, nil
}

// MergeLatencies is the latency of the union of ls's requests, with the percentiles ps: the
// HDR histograms merged, the exact extremes, and the mean and population standard deviation
// pooled from each part's count n_i, mean m_i and deviation s_i:
// mean = Σ n_i m_i / N, variance = Σ n_i (s_i² + m_i²) / N − mean².
// Errors: a part without a histogram (HDR), or one that does not decode.
func MergeLatencies(ls []perf.Latency, ps []float64) (perf.Latency, error) {
	all := hdr.New()
	var n, sum, sumSq float64
	for i := range ls {
		h, err := ls[i].Histogram()
		if err != nil {
			return perf.Latency{}, fmt.Errorf("part %d: %w", i+1, err)
		}
		all.Merge(h)
		c := float64(h.Count())
		n += c
		sum += c * ls[i].AvgSeconds
		sumSq += c * (ls[i].StdDevSeconds*ls[i].StdDevSeconds + ls[i].AvgSeconds*ls[i].AvgSeconds)
	}
	out, err := perf.NewLatency(all, ps)
	if err != nil {
		return perf.Latency{}, err
	}
	out.MinSeconds, out.MaxSeconds = all.Min().Seconds(), all.Max().Seconds()
	if n > 0 {
		out.AvgSeconds = sum / n
		out.StdDevSeconds = math.Sqrt(max(sumSq/n-out.AvgSeconds*out.AvgSeconds, 0))
	}
	return out, nil
}

// mergeExecutors sums the testers' executor figures (nil unless every tester ran one). MaxVUs
// and MaxActiveVUs are sums of each tester's: MaxActiveVUs is then an upper bound of the VUs
// active at once across testers, whose peaks need not coincide. The VU timeline stays in each
// tester's own result.
func mergeExecutors(rs []perf.Result) *perf.ExecutorStats {
	var out *perf.ExecutorStats
	for _, r := range rs {
		if r.Executor == nil {
			return nil
		}
		if out == nil {
			out = &perf.ExecutorStats{Kind: r.Executor.Kind}
		}
		out.Iterations += r.Executor.Iterations
		out.Scheduled += r.Executor.Scheduled
		out.Dropped += r.Executor.Dropped
		out.Interrupted += r.Executor.Interrupted
		out.MaxVUs += r.Executor.MaxVUs
		out.MaxActiveVUs += r.Executor.MaxActiveVUs
	}
	return out
}
