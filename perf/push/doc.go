// Package push sends a run's figures to a Prometheus Pushgateway (Push), under the grouping key
// job=daprperf, perf_test (Dapr's dashboard label), test, version and run_id, so that no run
// overwrites another. Every report pushes the common figures (pass, missed bounds, every gate
// figure, named loads, per-process CPU and memory); the overhead and growth kinds add their own
// (pushKinds). Metric names carry base units. docs/results.md lists every metric.
//
// push imports perf and report.
package push
