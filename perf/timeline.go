package perf

import (
	"slices"
	"time"
)

// Answer is one answered request, or one delivered message, kept for a Timeline: when it came
// (Unix ns), its latency (a request's service time, a message's delivery latency), and whether
// it counts as an error of its second (a failed request, a duplicated message).
type Answer struct {
	End     int64
	Latency time.Duration
	Failed  bool
}

// Timeline buckets answers into the seconds from start: second k holds the answers in
// [start+k s, start+(k+1) s) (answers before start in second 0), with their count, errors and
// latency percentiles, exact by nearest rank over that second's answers; a second without
// answers has zeros. When cut is not zero (answers from then on were not kept) the timeline
// ends before cut's second. answers is not modified.
func Timeline(start, cut time.Time, answers []Answer) []Second {
	t0 := start.UnixNano()
	var secs [][]Answer
	for _, a := range answers {
		k := int(max((a.End-t0)/int64(time.Second), 0))
		for len(secs) <= k {
			secs = append(secs, nil)
		}
		secs[k] = append(secs[k], a)
	}
	if !cut.IsZero() {
		if k := int(max((cut.UnixNano()-t0)/int64(time.Second), 0)); k < len(secs) {
			secs = secs[:k]
		}
	}
	out := make([]Second, len(secs))
	var times []time.Duration
	for k, as := range secs {
		out[k].T = k
		out[k].Requests = int64(len(as))
		if len(as) == 0 {
			continue
		}
		times = times[:0]
		for _, a := range as {
			times = append(times, a.Latency)
			if a.Failed {
				out[k].Errors++
			}
		}
		slices.Sort(times)
		out[k].P50Seconds = nearestRank(times, 50).Seconds()
		out[k].P90Seconds = nearestRank(times, 90).Seconds()
		out[k].P99Seconds = nearestRank(times, 99).Seconds()
		out[k].MaxSeconds = times[len(times)-1].Seconds()
	}
	return out
}

// nearestRank is the p-th percentile of sorted by nearest rank: the smallest value with at
// least p % of the values at or below it (the value of rank ceil(p/100 x n)).
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	rank := int(p / 100 * float64(n))
	if float64(rank) < p/100*float64(n) {
		rank++
	}
	return sorted[min(max(rank, 1), n)-1]
}
