package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
)

func TestReminderLead(t *testing.T) {
	for _, tc := range []struct {
		n    int
		rate float64
		want time.Duration
	}{
		{20000, 1000, 33 * time.Second}, // 20 s x 1.5 + 3 s
		{1000, 100, 18 * time.Second},
		{20000, 10, reminderMaxLead},
		{5, 0, reminderMaxLead}, // no measured rate
	} {
		if got := reminderLead(tc.n, tc.rate); got != tc.want {
			t.Errorf("reminderLead(%d, %g) = %v, want %v", tc.n, tc.rate, got, tc.want)
		}
	}
}

func TestReminderTriggerBody(t *testing.T) {
	rp := &ReminderPlan{Period: time.Millisecond, TTL: 5 * time.Millisecond}
	due := time.Date(2026, 12, 1, 19, 0, 30, 0, time.UTC)
	var b struct {
		DueTime, Period, TTL string
		Data                 struct{ Due, Period string }
	}
	if err := json.Unmarshal([]byte(rp.triggerBody(due)), &b); err != nil {
		t.Fatal(err)
	}
	if b.DueTime != "2026-12-01T19:00:30Z" || b.Period != "1ms" || b.TTL != "5ms" || b.Data.Due != "2026-12-01T19:00:30Z" || b.Data.Period != "1ms" {
		t.Errorf("body = %+v: want Dapr's dueTime/period/ttl and the data the host times fires with", b)
	}
}

func TestReminderPlanConfigureNamesBadFields(t *testing.T) {
	rp := &ReminderPlan{Host: "nohost", ActorType: "a/b", Reminders: 0, FiresPerReminder: 5, Period: time.Millisecond, TTL: time.Millisecond, RegisterVUs: 0}
	sc := perf.Scenario{Test: "r", Transport: perf.GRPC, Apps: []perf.App{{Name: "host", Kind: perf.ActorApp, Sidecar: &perf.Sidecar{}}},
		Main: perf.Route{To: "host", Operation: perf.Operation{Kind: perf.OpActorInvoke}}}
	err := configureErr(rp, sc, &perf.RunConfig{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"Transport", "Main must register", "Host \"nohost\"", "ActorType", "Reminder \"\"", "Reminders = 0", "TTL", "RegisterVUs", "TriggerWindow"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
