// Package push sends a run's figures to a Prometheus Pushgateway (Push), under the grouping key
// job=daprperf, perf_test (Dapr's dashboard label), test and version, every metric labelled with
// the run's run_id: the gateway keeps the latest run of each scenario and version, Prometheus
// keeps them all apart. Every report pushes the common figures (pass, missed bounds, every gate
// figure, named loads, per-process CPU and memory); the overhead and growth kinds add their own
// (pushKinds). Metric names carry base units. docs/results.md lists every metric.
//
// Write sends the same series to a Prometheus remote-write endpoint (remote write 1.0), with
// the grouping key's labels and transport and platform on each, stamped with the run's start
// time (SampleTime), so that a Prometheus holds every run at the time it ran: a history across
// runs and daprd versions.
//
// push imports perf and report.
package push
