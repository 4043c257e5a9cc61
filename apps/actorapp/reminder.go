package actorapp

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// ReminderData is the reminder data a scenario registers so that the host can time each fire:
// the "data" of daprd's reminder body, which daprd hands back in every callback
// ({"data": ..., "dueTime": ..., "period": ...}, Dapr's actor API). Due is the first fire's
// scheduled time (RFC 3339 with nanoseconds), Period the time between fires (a Go duration).
type ReminderData struct {
	Due    time.Time `json:"due"`
	Period string    `json:"period,omitempty"`
}

// reminderKey is one reminder: its actor and its name.
type reminderKey struct {
	actor actorKey
	name  string
}

// reminderLog is what the host knows of reminder fires; the Handler's mutex guards it.
//
// A fire's lag is its arrival minus its scheduled time, due + (k-1) x period for the k-th fire
// of its reminder to arrive here. Fires arriving out of order are matched by arrival order, so
// with a period as short as Dapr's trigger test's (1 ms) the lag is within a period of the
// fire's own. Fires whose body carries no due time (Dapr's registration load: dueTime 24h, no
// data) are counted, never timed.
type reminderLog struct {
	fires map[reminderKey]int64
	lags  []time.Duration
	// timed are the arrival times of the timed fires, in arrival order (appended under the
	// mutex, so non-decreasing): the n-th is when n fires had arrived.
	timed []time.Time
	first time.Time
}

// fire records one fire of k that arrived at now; ok says whether due and period are known.
func (l *reminderLog) fire(k reminderKey, now, due time.Time, period time.Duration, ok bool) {
	if l.fires == nil {
		l.fires = map[reminderKey]int64{}
	}
	l.fires[k]++
	if l.first.IsZero() {
		l.first = now
	}
	if !ok {
		return
	}
	scheduled := due.Add(time.Duration(l.fires[k]-1) * period)
	l.lags = append(l.lags, now.Sub(scheduled))
	l.timed = append(l.timed, now)
}

// nth is when the n-th timed fire arrived; false when fewer have.
func (l *reminderLog) nth(n int) (time.Time, bool) {
	if n < 1 || n > len(l.timed) {
		return time.Time{}, false
	}
	return l.timed[n-1], true
}

// stats fills st's reminder fields.
func (l *reminderLog) stats(st *Stats) {
	st.RemindersFired = len(l.fires)
	for _, n := range l.fires {
		st.MaxFiresPerReminder = max(st.MaxFiresPerReminder, n)
	}
	st.ReminderFiresTimed = int64(len(l.timed))
	if !l.first.IsZero() {
		first := l.first
		st.ReminderFirstFire = &first
	}
	if n := len(l.timed); n > 0 {
		last := l.timed[n-1]
		st.ReminderLastTimedFire = &last
		lags := slices.Clone(l.lags)
		slices.Sort(lags)
		at := func(p float64) float64 { return lags[min(len(lags)-1, int(p/100*float64(len(lags))))].Seconds() }
		st.ReminderLagSeconds = map[string]float64{"p50": at(50), "p90": at(90), "p99": at(99), "max": lags[len(lags)-1].Seconds()}
		answers := make([]perf.Answer, n)
		for i := range n {
			answers[i] = perf.Answer{End: l.timed[i].UnixNano(), Latency: l.lags[i]}
		}
		st.ReminderTimelineStart = l.timed[0]
		st.ReminderTimeline = perf.Timeline(l.timed[0], time.Time{}, answers)
	}
}

// reminderSchedule reads a reminder callback's body: the due time and period of its
// ReminderData, else a dueTime daprd sends as an RFC 3339 time; ok is false when neither is
// there (the fire is then counted, not timed).
func reminderSchedule(body io.Reader) (due time.Time, period time.Duration, ok bool) {
	var cb struct {
		Data    json.RawMessage `json:"data"`
		DueTime string          `json:"dueTime"`
		Period  string          `json:"period"`
	}
	b, err := io.ReadAll(io.LimitReader(body, 64<<10))
	if err != nil || json.Unmarshal(b, &cb) != nil {
		return time.Time{}, 0, false
	}
	var d ReminderData
	raw := cb.Data
	var s string
	if json.Unmarshal(raw, &s) == nil { // data as a JSON string: base64 of the JSON, as some SDKs expect
		if dec, err := base64.StdEncoding.DecodeString(s); err == nil {
			raw = dec
		} else {
			raw = []byte(s)
		}
	}
	if len(raw) > 0 && json.Unmarshal(raw, &d) == nil && !d.Due.IsZero() {
		period, _ = time.ParseDuration(d.Period)
		return d.Due, max(period, 0), true
	}
	if t, err := time.Parse(time.RFC3339Nano, cb.DueTime); err == nil {
		period, _ = time.ParseDuration(cb.Period)
		return t, max(period, 0), true
	}
	return time.Time{}, 0, false
}
