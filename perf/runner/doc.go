// Package runner runs a scenario (Run): it resolves the configuration and the env overrides,
// creates the result file under the run's id before anything starts, hands the scenario's plan
// a session (perf.Session) to start deployments and record phases in, reads exits, derives
// figures and verdicts (package report), writes the result file, pushes it and writes it to a
// Prometheus by remote write (package push; a failed write is a warning),
// prints the summary and fails the test once per failed bound.
//
// It also owns the run's progress lines, the step-down ladder for plans whose preflight picks
// the load (perf.Laddered), the plan-only pass (DAPR_PERF_PLAN_ONLY) and the writing of the
// result file on SIGINT or SIGTERM, through the hook it hands the platform with each start
// (perf.WithInterruptHook). runner imports perf, report, push and the tester client (to watch a
// tester's live progress), and knows plans only as perf.Plan.
package runner
