package perf

// The plan kinds, as Report.Plan names them. A result file written before Report.Plan existed
// has "" there; KindOf infers its kind from the sections it carries.
const (
	KindOverhead   = "overhead"
	KindGrowth     = "growth"
	KindStages     = "stages"
	KindIterations = "iterations"
	KindDelivery   = "delivery"
	KindJobs       = "jobs.trigger"
	KindReminders  = "reminders"
	KindFaults     = "faults"
)

// Plan is what a scenario does with its deployments between the configuration and the
// figures: the overhead plan (the default, when Scenario.Plan is nil), the growth plan, and
// the plans of named loads, delivery, jobs, reminders and faults, all in package runner, which
// runs them. Kind names the plan in the result file (Report.Plan, one of the Kind* constants).
type Plan interface {
	Kind() string
}
