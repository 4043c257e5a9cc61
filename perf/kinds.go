package perf

// The plan kinds, as Report.Plan names them. A result file written before Report.Plan existed
// has "" there; report.KindOf infers its kind from the sections it carries.
const (
	KindOverhead   = "overhead"
	KindGrowth     = "growth"
	KindStages     = "stages"
	KindIterations = "iterations"
	KindDelivery   = "delivery"
	KindJobs       = "jobs.trigger"
	KindReminders  = "reminders"
	KindFaults     = "faults"
	KindCurve      = "curve"
)
