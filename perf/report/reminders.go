package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// reminderGates adds the reminder figures: "qps" of the registration, "errors" of both
// registrations, and the trigger phase's (ReminderPlan).
func reminderGates(r *perf.Report, gates map[string]float64) {
	var errs int64
	for _, l := range r.Loads {
		errs += l.Errors()
	}
	if len(r.Loads) > 0 {
		gates["errors"], gates["qps"] = float64(errs), r.Loads[0].ActualQPS
	}
	rr := r.Reminders
	if rr == nil || rr.WindowSeconds == 0 {
		return
	}
	gates["reminders.triggerRate"] = rr.TriggerRate
	gates["reminders.missing"] = float64(rr.Missing)
	gates["reminders.registrationOverran"] = map[bool]float64{true: 1}[rr.RegistrationOverran]
	gates["reminders.registeredSeconds"] = rr.RegisteredSeconds
	for k, v := range rr.LagSeconds {
		gates["reminders.lag."+k] = v
	}
}

// reminderTable is the summary's block of a reminder run.
func reminderTable(b *strings.Builder, r *perf.Report) {
	for _, l := range r.Loads {
		fmt.Fprintf(b, "%s: %d requests, %d errors, %.1f of %.0f requests/s over %d connections, service time p50 %.2f ms, p90 %.2f ms, p99 %.2f ms\n",
			l.Name, l.Requests, l.Errors(), l.ActualQPS, l.RequestedQPS, l.Params.Connections, ms(l.Latency, 50), ms(l.Latency, 90), ms(l.Latency, 99))
	}
	rr := r.Reminders
	if rr == nil {
		return
	}
	fmt.Fprintf(b, "trigger: %d reminders (of %d asked) x %d fires (period %v, ttl %v) due %s, %.1f s after their registration began; registered %d in %.1f s (%d errors)%s\n",
		rr.Reminders, rr.RequestedReminders, rr.FiresPerReminder, secs(rr.PeriodSeconds), secs(rr.TTLSeconds), rr.Due.Format(time.RFC3339), rr.LeadSeconds,
		rr.Registered, rr.RegisteredSeconds, rr.RegisterErrors, map[bool]string{true: ", PAST THE DUE TIME"}[rr.RegistrationOverran])
	fmt.Fprintf(b, "fires: %d of %d expected (%d missing), %d reminders fired (at most %d fires each); trigger rate %.0f fires/s over %.2f s from the due time (window %.0f s)\n",
		rr.Fires, rr.ExpectedFires, rr.Missing, rr.RemindersFired, rr.MaxFiresPerReminder, rr.TriggerRate, rr.TriggerSeconds, rr.WindowSeconds)
	if l := rr.LagSeconds; l != nil {
		fmt.Fprintf(b, "fire lag (arrival - scheduled): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms\n", l["p50"]*1e3, l["p90"]*1e3, l["p99"]*1e3, l["max"]*1e3)
	}
}

func ms(l perf.Latency, p float64) float64 {
	for _, q := range l.Percentiles {
		if q.P == p {
			return q.Seconds * 1e3
		}
	}
	return 0
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
