// Package report derives, judges and renders a perf.Report without running anything: the
// figures (DeriveFigures: medians over rounds and the gates thresholds compare with), the
// overhead per percentile with its interval (ComputeOverheads), validity and verdicts (Judge,
// Evaluate), the text summary (Summary) and reading a result file (ReadReport).
//
// Each plan kind is a Kind (KindOf(report)): what it adds to the figures, its summary header
// and table, its own failed checks and how its loads read in charts. Every consumer of a report
// (the runner, push, charts, compare) asks the Kind instead of testing Report.Plan.
//
// report imports perf and the leaves only.
package report
