package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/perf/growth"
)

// Kind is what one plan kind adds to the figures, the summary and the verdicts that every
// report shares. It works from the Report alone, so a result file can be read, judged, pushed
// and drawn without running anything; every consumer of a report (DeriveFigures, Summary,
// Run's verdicts, Push, the charts) asks the report's Kind instead of testing Report.Plan.
type Kind interface {
	// Name is the kind's Report.Plan value (one of the Kind* constants).
	Name() string
	// Figures adds the kind's own figures and gates to f, after the figures every report has
	// (rounds, restarts, actors, overhead); it may set f.NoOverhead.
	Figures(r *perf.Report, f *perf.Figures)
	// Header is the plan part of the summary's first line, after "<test>/<transport>: daprd
	// <version> on <platform>, <n> CPUs (<model>), ".
	Header(r *perf.Report) string
	// Table writes the kind's block of the summary.
	Table(b *strings.Builder, r *perf.Report, f *perf.Figures)
	// Failures are the kind's own checks that failed (the growth detector's), each a line;
	// any of them fails the run as a failed bound does.
	Failures(r *perf.Report) []string
	// LoadsCharted says whether the per-load charts and tables (each load's percentiles, rate
	// and spectrum) show the report's named loads: false for a kind whose loads are steps to a
	// figure drawn on its own (growth's slopes, the curve's points), where one bar per load
	// would be noise.
	LoadsCharted() bool
	// LoadWord names one of the report's named loads (Report.Loads) in titles and axes:
	// "stage", "run", "phase" or "load".
	LoadWord() string
	// LatencyWhat names what a load's latency times, long (for a title) and short (for an
	// axis): one request's service time, or one iteration's whole duration.
	LatencyWhat() (long, short string)
	// Rate is how a load's achieved rate reads: its unit and what one request is.
	Rate() RateWords
	// Missing lists what a complete report of this kind holds and r lacks (its rounds, loads
	// or counted section), one line each; Check adds what every report needs.
	Missing(r *perf.Report) []string
	// Headline is the kind's own figure that a page's finding starts with (Finding), "" for
	// none.
	Headline(r *perf.Report, f *perf.Figures) string
	// SummaryLatency is the latency a summary row of a report without rounds reads: what it is
	// ("delivery latency", "trigger lag", "service time, 8 stages merged") and its value by
	// percentile; nil when the report has none to show (a growth run, a missing section).
	SummaryLatency(r *perf.Report) (what string, at LatencyAt)
}

// RateWords say how a kind's achieved rate reads in charts and tables.
type RateWords struct {
	Unit  string // "requests/s"
	Count string // what is counted, plural: "requests"
	What  string // the rate, for a title: "achieved rate"
	Short string // the unit after a number: "/s"
}

// planKinds are the plan kinds by name.
var planKinds = map[string]Kind{
	perf.KindOverhead:   overheadKind{},
	perf.KindGrowth:     growthKind{},
	perf.KindStages:     stagesKind{},
	perf.KindIterations: iterationsKind{},
	perf.KindDelivery:   deliveryKind{},
	perf.KindJobs:       jobsKind{},
	perf.KindReminders:  remindersKind{},
	perf.KindFaults:     faultsKind{},
	perf.KindCurve:      curveKind{},
}

// Kinds returns the names of every plan kind, in a fixed order.
func Kinds() []string {
	return []string{perf.KindOverhead, perf.KindGrowth, perf.KindStages, perf.KindIterations, perf.KindDelivery, perf.KindJobs, perf.KindReminders, perf.KindFaults, perf.KindCurve}
}

// KindOf returns r's plan kind. Report.Plan names it; a file written before that field
// existed ("") is told by its sections (growth, delivery, jobs) and is otherwise an overhead
// run; an unknown name is read as overhead too, so an old reader still renders what it can.
func KindOf(r *perf.Report) Kind {
	if k, ok := planKinds[r.Plan]; ok {
		return k
	}
	switch {
	case r.Growth != nil:
		return growthKind{}
	case r.Delivery != nil:
		return deliveryKind{}
	case r.Jobs != nil:
		return jobsKind{}
	}
	return overheadKind{}
}

// kindBase gives a kind the defaults: no figures, checks or table of its own, requests timed
// one at a time, loads called "load".
type kindBase struct{}

func (kindBase) Figures(*perf.Report, *perf.Figures)                 {}
func (kindBase) Failures(*perf.Report) []string                      { return nil }
func (kindBase) LoadWord() string                                    { return "load" }
func (kindBase) LoadsCharted() bool                                  { return true }
func (kindBase) Table(*strings.Builder, *perf.Report, *perf.Figures) {}
func (kindBase) Headline(*perf.Report, *perf.Figures) string         { return "" }
func (kindBase) LatencyWhat() (string, string)                       { return "service time", "service time" }
func (kindBase) Rate() RateWords {
	return RateWords{Unit: "requests/s", Count: "requests", What: "achieved rate", Short: "/s"}
}

// overheadKind: interleaved baseline and main rounds (OverheadPlan).
type overheadKind struct{ kindBase }

func (overheadKind) Name() string { return perf.KindOverhead }

func (overheadKind) Headline(r *perf.Report, _ *perf.Figures) string { return overheadHeadline(r) }

func (overheadKind) Header(r *perf.Report) string {
	return fmt.Sprintf("%d round(s), %d QPS x %v, %d connections, %d-byte payload",
		len(r.Rounds), r.Params.QPS, r.Params.Duration, r.Params.Connections, r.Params.PayloadBytes)
}

func (overheadKind) Table(b *strings.Builder, r *perf.Report, f *perf.Figures) {
	if len(r.Rounds) == 0 {
		b.WriteString("no complete round: nothing measured\n")
		return
	}
	latencyTable(b, r, f)
	phaseTable(b, r)
	perEventLines(b, f)
}

// growthKind: rounds of distinct-path load and an idle window, per variant (GrowthPlan).
type growthKind struct{ kindBase }

func (growthKind) Name() string { return perf.KindGrowth }

func (growthKind) LoadsCharted() bool { return false }

func (growthKind) Headline(r *perf.Report, _ *perf.Figures) string { return growthHeadline(r) }

func (growthKind) Header(r *perf.Report) string {
	return fmt.Sprintf("growth plan: %d variant(s), each %d round(s) of %d requests at %d QPS over %d connections",
		len(r.Growth.Variants), r.Growth.Rounds, r.Growth.RequestsPerRound, r.Params.QPS, r.Params.Connections)
}

func (growthKind) Figures(r *perf.Report, f *perf.Figures) {
	f.NoOverhead = "the growth plan runs no baseline phase: it measures sidecar memory across rounds of load, so it has no sidecar overhead"
	if r.Growth == nil {
		return
	}
	var errs int64
	for _, v := range r.Growth.Variants {
		errs += v.Errors
	}
	minRatio := math.Inf(1)
	for i := range r.Loads {
		minRatio = min(minRatio, r.Loads[i].QPSRatio())
	}
	f.Gates["errors"] = float64(errs)
	if !math.IsInf(minRatio, 1) {
		f.Gates["qps.ratio"] = minRatio
	}
}

func (growthKind) Table(b *strings.Builder, r *perf.Report, _ *perf.Figures) {
	if r.Growth == nil {
		return
	}
	b.WriteString(growth.Table(r.Growth) + "\n" + growth.FamilyTable(r.Growth) + "\n" + growth.Findings(r.Growth))
}

func (growthKind) Failures(r *perf.Report) []string {
	if r.Growth == nil {
		return nil
	}
	var out []string
	for _, c := range r.Growth.Checks {
		if !c.Pass {
			out = append(out, "memory-growth detector: "+c.String())
		}
	}
	return out
}

// stagesKind: fixed-rate stages, each its own load and bound (StagePlan).
type stagesKind struct{ kindBase }

func (stagesKind) Name() string { return perf.KindStages }

func (stagesKind) Headline(r *perf.Report, _ *perf.Figures) string { return loadsHeadline(r) }
func (stagesKind) LoadWord() string                                { return "stage" }

func (stagesKind) Header(r *perf.Report) string {
	return fmt.Sprintf("stage plan: %d stage(s) at fixed rates, each its own load and bound", len(r.Loads))
}

func (stagesKind) Figures(r *perf.Report, f *perf.Figures) { deriveStageFigures(r, f) }

func (stagesKind) Table(b *strings.Builder, r *perf.Report, f *perf.Figures) { stageTable(b, r, f) }

// iterationsKind: k6 shared-iterations runs, each iteration timed whole (IterationsPlan).
type iterationsKind struct{ kindBase }

func (iterationsKind) Name() string { return perf.KindIterations }

func (iterationsKind) Headline(r *perf.Report, _ *perf.Figures) string { return loadsHeadline(r) }
func (iterationsKind) LoadWord() string                                { return "run" }

func (iterationsKind) Header(r *perf.Report) string {
	return fmt.Sprintf("iterations plan: %d run(s) of shared iterations, each iteration timed whole", len(r.Loads))
}

func (iterationsKind) Figures(r *perf.Report, f *perf.Figures) { deriveIterationsFigures(r, f) }

func (iterationsKind) Table(b *strings.Builder, r *perf.Report, _ *perf.Figures) {
	iterationsTable(b, r)
}

func (iterationsKind) Rate() RateWords {
	return RateWords{Unit: "workflows/s", Count: "iterations", What: "workflows completed per second (one iteration = one workflow)", Short: " workflows/s"}
}

func (iterationsKind) LatencyWhat() (string, string) {
	return "iteration duration (one workflow, start to completion)", "iteration duration"
}

// deliveryKind: publish at a fixed rate, delivery latency and losses (DeliveryPlan).
type deliveryKind struct{ kindBase }

func (deliveryKind) Name() string { return perf.KindDelivery }

func (deliveryKind) Headline(r *perf.Report, _ *perf.Figures) string { return deliveryHeadline(r) }

func (deliveryKind) Header(r *perf.Report) string {
	return fmt.Sprintf("delivery plan: %d msg/s x %v over %d connections", r.Params.QPS, r.Params.Duration, r.Params.Connections)
}

func (deliveryKind) Figures(r *perf.Report, f *perf.Figures) {
	if len(r.Overhead) == 0 {
		f.NoOverhead = "the delivery plan runs no baseline phase: it measures end-to-end delivery latency (publish to the subscriber's handler) and counts lost and duplicated messages"
	}
	deliveryGates(r, f.Gates)
}

func (deliveryKind) Table(b *strings.Builder, r *perf.Report, _ *perf.Figures) { deliveryTable(b, r) }

// jobsKind: schedule jobs, then count every trigger (JobTriggerPlan).
type jobsKind struct{ kindBase }

func (jobsKind) Name() string { return perf.KindJobs }

func (jobsKind) Headline(r *perf.Report, _ *perf.Figures) string { return jobsHeadline(r) }

func (jobsKind) Header(r *perf.Report) string {
	return fmt.Sprintf("jobs trigger plan: %d jobs/s x %v over %d connections, then every trigger counted",
		r.Params.QPS, r.Params.Duration, r.Params.Connections)
}

func (jobsKind) Figures(r *perf.Report, f *perf.Figures) {
	f.NoOverhead = "the jobs trigger plan runs no baseline phase: it counts every job's triggers and measures the trigger lag (receipt minus due time)"
	jobsGates(r, f.Gates)
}

func (jobsKind) Table(b *strings.Builder, r *perf.Report, _ *perf.Figures) { jobsTable(b, r) }

// remindersKind: register reminders, then measure their triggers (ReminderPlan).
type remindersKind struct{ kindBase }

func (remindersKind) Name() string { return perf.KindReminders }

func (remindersKind) Headline(r *perf.Report, _ *perf.Figures) string { return remindersHeadline(r) }

func (remindersKind) Header(r *perf.Report) string {
	registration := fmt.Sprintf("registration at %d requests/s x %v over %d connections", r.Params.QPS, r.Params.Duration, r.Params.Connections)
	switch registered := len(r.Loads) > 0 && r.Loads[0].Name == "registration"; {
	case registered && r.Reminders == nil:
		return "reminder plan: " + registration + " (Dapr's registration test alone)"
	case !registered && r.Reminders != nil:
		return fmt.Sprintf("reminder plan: a trigger phase of %d reminders (Dapr's trigger test alone)", r.Reminders.Reminders)
	}
	return "reminder plan: " + registration + ", then a trigger phase"
}

func (remindersKind) Figures(r *perf.Report, f *perf.Figures) {
	f.NoOverhead = "the reminder plan runs no baseline phase: Dapr's actor_reminder measures registration and trigger throughput"
	reminderGates(r, f.Gates)
}

func (remindersKind) Table(b *strings.Builder, r *perf.Report, _ *perf.Figures) { reminderTable(b, r) }

// faultsKind: closed-loop phases, a base and then faults on one replica (FaultPlan).
type faultsKind struct{ kindBase }

func (faultsKind) Name() string { return perf.KindFaults }

func (faultsKind) Headline(r *perf.Report, f *perf.Figures) string { return faultsHeadline(r, f) }
func (faultsKind) LoadWord() string                                { return "phase" }

func (faultsKind) Header(r *perf.Report) string {
	return fmt.Sprintf("fault plan: %d closed-loop phase(s), base then faults on one replica", len(r.Loads))
}

func (faultsKind) Figures(r *perf.Report, f *perf.Figures) { deriveFaultFigures(r, f) }

func (faultsKind) Table(b *strings.Builder, r *perf.Report, f *perf.Figures) { faultTable(b, r, f) }
