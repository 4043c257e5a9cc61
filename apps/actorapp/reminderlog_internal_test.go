package actorapp

import (
	"testing"
	"time"
)

// The host's reminder timeline: its timed fires second by second from the first, each
// second's count and lag.
func TestReminderTimeline(t *testing.T) {
	var l reminderLog
	due := time.Unix(1_700_000_000, 0)
	k := reminderKey{name: "r"}
	for _, ms := range []int{5, 300, 1200} {
		l.fire(k, due.Add(time.Duration(ms)*time.Millisecond), due, 0, true)
	}
	var st Stats
	l.stats(&st)
	if len(st.ReminderTimeline) != 2 || st.ReminderTimeline[0].Requests != 2 || st.ReminderTimeline[1].Requests != 1 {
		t.Fatalf("timeline %+v, want 2 fires then 1", st.ReminderTimeline)
	}
	if got := st.ReminderTimeline[1].P50Seconds; got != 1.2 {
		t.Errorf("second 1's lag %v, want 1.2 s (a period of 0: every fire due at the first due time)", got)
	}
}
