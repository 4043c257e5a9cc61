package charts

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// writeFaultAndHosts writes what a run knows of its fault and its actor hosts: the fault
// injected (its target, delay, share of failed calls and window), and a row per actor host
// with its activations, the ids it held, double activations, timer and reminder fires (extra
// ones beyond each reminder's own count named) and errors. Nothing for a run with neither.
func writeFaultAndHosts(b *strings.Builder, rep *perf.Report) {
	if f := rep.Faults; f != nil {
		b.WriteString("\n## The fault injected\n\n")
		fmt.Fprintf(b, "Into the actor host %s: each call held %v, %.0f %% of them answered with a failure, over a window of %v.", cell(orNone(f.Target)), f.Delay, 100*f.FailFraction, f.Window)
		if f.Note != "" {
			note := strings.TrimSuffix(f.Note, ".")
			fmt.Fprintf(b, " %s.", strings.ToUpper(note[:1])+note[1:])
		}
		b.WriteString("\n")
	}
	if len(rep.Actors) == 0 {
		return
	}
	b.WriteString("\n## Actor hosts\n\n")
	var rows [][]string
	for _, a := range rep.Actors {
		reminders := fmtCount(a.ReminderFires)
		if a.RemindersFired > 0 {
			reminders += fmt.Sprintf(" (%s reminders, at most %d fires of one)", fmtCount(int64(a.RemindersFired)), a.MaxFiresPerReminder)
		}
		errs := fmtCount(a.Errors)
		if a.LastError != "" {
			errs += ": " + cell(a.LastError)
		}
		rows = append(rows, []string{cell(a.App), fmtCount(a.Activations), fmtCount(a.Deactivations), fmtCount(int64(a.IDs)),
			fmtCount(a.MaxActivationsPerID), fmtCount(a.DoubleActivations), fmtCount(a.TimerFires), reminders, errs})
	}
	writeTable(b, []string{"host", "activations", "deactivations", "ids", "most activations of one id", "double activations", "timer fires", "reminder fires", "errors"}, "l", rows)
}
