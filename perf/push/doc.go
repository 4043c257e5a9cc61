// Package push sends a run's figures to a Prometheus Pushgateway (Push), under the grouping key
// job=daprperf, perf_test (Dapr's dashboard label), test and version, every metric labelled with
// the run's run_id: the gateway keeps the latest run of each scenario and version, Prometheus
// keeps them all apart. Every report pushes the common figures (pass, missed bounds, every gate
// figure, named loads, per-process CPU and memory); the overhead and growth kinds add their own
// (pushKinds). Metric names carry base units. docs/results.md lists every metric.
//
// push imports perf and report.
package push
