package tester

import (
	"time"

	"github.com/daprperf/daprperf/perf"
)

// maxTimelinePoints bounds the answers a run keeps for its timeline (24 bytes each, so at most
// 48 MiB): 1000 requests/s for 35 minutes. A longer or faster run keeps the timeline up to the
// second the bound was reached.
const maxTimelinePoints = 1 << 21

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
	s.points = append(s.points, perf.Answer{End: end, Latency: service, Failed: failed})
}

// timeline returns the run second by second from start (perf.Second): second k holds the
// answers in [start+k s, start+(k+1) s). Answers before start count in second 0. When a shard
// dropped answers, the timeline ends before the second of the first one dropped. Call once the
// run has ended.
func (r *recorder) timeline(start time.Time) []perf.Second {
	var cut time.Time // the end of the first answer left out, zero: none
	var all []perf.Answer
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if s.droppedFrom != 0 && (cut.IsZero() || s.droppedFrom < cut.UnixNano()) {
			cut = time.Unix(0, s.droppedFrom)
		}
		all = append(all, s.points...)
		s.mu.Unlock()
	}
	return perf.Timeline(start, cut, all)
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
			out = append(out, int64(pt.Latency))
		}
		s.mu.Unlock()
	}
	return out
}
