package perf

// StepDown is one full-length attempt, at the load the preflight chose (or the one below it),
// that was invalid: its load, why, and where its result file was set aside.
type StepDown struct {
	// QPS is the attempt's main-phase load.
	QPS int `json:"qps"`
	// Reasons are the attempt's validity reasons (Validity.Reasons).
	Reasons []string `json:"reasons"`
	// File is the attempt's result file, beside result.json: renamed to
	// attempt-<qps>qps.json, so charts and the exit code (which read result.json and
	// result-<n>.json) leave it out; never deleted.
	File string `json:"file"`
}
