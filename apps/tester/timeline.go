package tester

import (
	"slices"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// maxTimelinePoints bounds the answers a run keeps for its timeline (24 bytes each, so at most
// 48 MiB): 1000 requests/s for 35 minutes. A longer or faster run keeps the timeline up to the
// second the bound was reached.
const maxTimelinePoints = 1 << 21

// point is one answer: when it came (Unix ns), its service time, and whether it failed.
type point struct {
	end     int64
	service time.Duration
	failed  bool
}

// expectedPerShard is the initial room for one shard's points: its share of the requests the
// run plans (a max-rate run: 1000 requests/s), plus a tenth; append grows it past that.
func expectedPerShard(p perf.Params, shards int) int {
	n := p.ExpectedRequests()
	if p.MaxRate || n <= 0 {
		n = int64(p.Duration.Seconds() * 1000)
	}
	return int(n/int64(shards)) + int(n/int64(shards)/10) + 16
}

// addPoint keeps one answer for the timeline, unless the shard's share of maxTimelinePoints
// (pointLimit) is full. Called under s.mu.
func (s *shard) addPoint(end int64, service time.Duration, failed bool) {
	if len(s.points) >= s.pointLimit {
		if s.droppedFrom == 0 || end < s.droppedFrom {
			s.droppedFrom = end
		}
		return
	}
	s.points = append(s.points, point{end: end, service: service, failed: failed})
}

// timeline returns the run second by second from start (perf.Second): second k holds the
// answers in [start+k s, start+(k+1) s). Answers before start count in second 0. When a shard
// dropped answers, the timeline ends before the second of the first one dropped. Call once the
// run has ended.
func (r *recorder) timeline(start time.Time) []perf.Second {
	var cut time.Time // the end of the first answer left out, zero: none
	var all []point
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if s.droppedFrom != 0 && (cut.IsZero() || s.droppedFrom < cut.UnixNano()) {
			cut = time.Unix(0, s.droppedFrom)
		}
		all = append(all, s.points...)
		s.mu.Unlock()
	}
	return seconds(start, cut, all)
}

// seconds buckets answers into the seconds from start (perf.Second): second k holds the
// answers in [start+k s, start+(k+1) s), answers before start in second 0, each second's
// service times' percentiles exact by nearest rank. When cut is not zero (answers from then on
// were not kept) the timeline ends before cut's second.
func seconds(start, cut time.Time, answers []point) []perf.Second {
	t0 := start.UnixNano()
	var secs [][]point
	for _, pt := range answers {
		k := int(max((pt.end-t0)/int64(time.Second), 0))
		for len(secs) <= k {
			secs = append(secs, nil)
		}
		secs[k] = append(secs[k], pt)
	}
	if !cut.IsZero() {
		if k := int(max((cut.UnixNano()-t0)/int64(time.Second), 0)); k < len(secs) {
			secs = secs[:k]
		}
	}
	out := make([]perf.Second, len(secs))
	var times []time.Duration
	for k, pts := range secs {
		out[k].T = k
		out[k].Requests = int64(len(pts))
		if len(pts) == 0 {
			continue
		}
		times = times[:0]
		for _, pt := range pts {
			times = append(times, pt.service)
			if pt.failed {
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

// samples returns the service time of every answer kept for the timeline, in nanoseconds
// (perf.Params.KeepSamples). Every answer is kept: KeepSamples bounds the load at
// perf.MaxSamples requests, below maxTimelinePoints. Call once the run has ended.
func (r *recorder) samples() []int64 {
	var out []int64
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		for _, pt := range s.points {
			out = append(out, int64(pt.service))
		}
		s.mu.Unlock()
	}
	return out
}
