// Package jobapp is the jobs scenario's app: it schedules one-shot jobs through its own daprd
// (POST /v1.0-alpha1/jobs/{name}) and counts every trigger daprd delivers back to it
// (POST /job/{name}): per job name how often it fired, and the trigger lag, receipt minus due
// time. Its HTTP API (NewHandler):
//
//	GET  /healthz         200 once it listens
//	POST /job/{name}      a trigger from daprd: counted, 200
//	POST /schedule        {"prefix","count","dueIn","connections","timeout"}: schedules count jobs
//	                      "<prefix>-<seq>" due in dueIn through daprd, then answers a ScheduleResult
//	GET  /stats           the Stats of every job scheduled since the last reset
//	POST /reset           forget every job and trigger, 204
//
// Its own cost per trigger is a map update under one mutex and an append of one lag (a few
// hundred nanoseconds); Stats sorts the lags (20,000 in a few milliseconds).
package jobapp

import (
	"slices"
	"sync"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// Counter counts the triggers of the jobs it was told about. It is safe for concurrent use.
type Counter struct {
	mu         sync.Mutex
	due        map[string]time.Time // scheduled job name -> its due time
	fires      map[string]int       // job name -> triggers received
	lags       []time.Duration      // first trigger of each job: receipt - due
	unexpected int64                // triggers of names never scheduled here
	errors     int64                // schedule requests daprd refused
	lastError  string
	firstFire  time.Time
	lastFire   time.Time
	lastFirst  time.Time // the latest first trigger of a job
	// fireTimes are the triggers for the timeline (at most perf.MaxDeliveryPoints): each one's
	// receipt and lag, a job's second trigger marked; cut the receipt of the first left out.
	fireTimes []perf.Answer
	cut       time.Time
}

// NewCounter returns an empty Counter.
func NewCounter() *Counter {
	return &Counter{due: map[string]time.Time{}, fires: map[string]int{}}
}

// Scheduled records that job name was scheduled (daprd answered 2xx) and is due at due.
func (c *Counter) Scheduled(name string, due time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.due[name] = due
}

// ScheduleFailed records a schedule request that daprd refused or that never got an answer.
func (c *Counter) ScheduleFailed(err string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errors++
	c.lastError = err
}

// Fired records one trigger of job name received at at. A name never scheduled counts as
// unexpected; a name that fired before counts again (Stats.FiredTwice) and adds no lag.
func (c *Counter) Fired(name string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	due, ok := c.due[name]
	if !ok {
		c.unexpected++
		return
	}
	c.fires[name]++
	if len(c.fireTimes) < perf.MaxDeliveryPoints {
		c.fireTimes = append(c.fireTimes, perf.Answer{End: at.UnixNano(), Latency: at.Sub(due), Failed: c.fires[name] > 1})
	} else if c.cut.IsZero() {
		c.cut = at
	}
	if c.firstFire.IsZero() || at.Before(c.firstFire) {
		c.firstFire = at
	}
	if at.After(c.lastFire) {
		c.lastFire = at
	}
	if c.fires[name] == 1 {
		c.lags = append(c.lags, at.Sub(due))
		if at.After(c.lastFirst) {
			c.lastFirst = at
		}
	}
}

// Reset forgets every job and trigger.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.due, c.fires, c.lags, c.fireTimes, c.cut = map[string]time.Time{}, map[string]int{}, nil, nil, time.Time{}
	c.unexpected, c.errors, c.lastError = 0, 0, ""
	c.firstFire, c.lastFire, c.lastFirst = time.Time{}, time.Time{}, time.Time{}
}

// Stats are the counts of the jobs scheduled since the last reset: perf.JobAppStats, the
// type the jobs plan reads from GET /stats, so the two sides cannot drift apart.
type Stats = perf.JobAppStats

// Stats returns the counts so far.
func (c *Counter) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Stats{Scheduled: int64(len(c.due)), ScheduleErrors: c.errors, LastError: c.lastError, Unexpected: c.unexpected}
	for _, d := range c.due {
		if st.FirstDueUnixNano == 0 || d.UnixNano() < st.FirstDueUnixNano {
			st.FirstDueUnixNano = d.UnixNano()
		}
		st.LastDueUnixNano = max(st.LastDueUnixNano, d.UnixNano())
	}
	for _, n := range c.fires {
		st.Fired++
		st.MaxFiresPerJob = max(st.MaxFiresPerJob, n)
		if n > 1 {
			st.FiredTwice++
			st.ExtraFires += int64(n - 1)
		}
	}
	st.NeverFired = st.Scheduled - st.Fired
	if !c.firstFire.IsZero() {
		st.FirstFireUnixNano, st.LastFireUnixNano = c.firstFire.UnixNano(), c.lastFire.UnixNano()
		st.LastFirstFireUnixNano = c.lastFirst.UnixNano()
		st.TimelineStart = time.Unix(0, st.FirstDueUnixNano)
		st.Timeline = perf.Timeline(st.TimelineStart, c.cut, c.fireTimes)
	}
	if len(c.lags) > 0 {
		lags := slices.Clone(c.lags)
		slices.Sort(lags)
		st.LagSeconds = map[string]float64{
			"min": lags[0].Seconds(), "max": lags[len(lags)-1].Seconds(),
			"p50": rank(lags, 50).Seconds(), "p90": rank(lags, 90).Seconds(), "p99": rank(lags, 99).Seconds(),
		}
	}
	return st
}

// rank is the nearest-rank percentile p (0 < p <= 100) of sorted: the smallest value with at
// least p percent of the values at or below it.
func rank(sorted []time.Duration, p float64) time.Duration {
	i := int(float64(len(sorted))*p/100+0.999999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
