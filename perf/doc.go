// Package perf is daprperf's vocabulary: what a scenario is (Scenario, App, Sidecar,
// Component, Route, Operation), the loads (Params and its options, read with Dapr's env
// overrides), what a run produces (Result, Report and its sections, Figures, Verdict), and the
// seams the other packages meet at:
//
//   - Platform and Deployment, which local and kube implement;
//   - Plan, Session and RunConfig, between the plans (package plan) and the runner (package
//     runner);
//   - LiveSource, the tester's live progress as the runner's progress lines read it.
//
// perf imports only the leaves (perf/driver, perf/growth, perf/hdr, perf/stats). The client of
// the tester app's HTTP API is package perf/testers; what the tester shares with it and with
// the platforms that start it (Params, Result, LiveProgress, TesterLimits, its flags and token)
// is here. Deriving figures and verdicts from a Report is package report; pushing one is
// package push; running a scenario is package runner (runner.Run). docs/architecture.md draws
// the packages and the path of one run through them.
package perf
