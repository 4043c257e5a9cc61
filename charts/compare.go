package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// The verdicts of a comparison row.
const (
	beyondNoise = "beyond noise"
	withinNoise = "within noise"
	singleRun   = "no interval (single run)"
	noInterval  = "no interval (not recorded for this figure)"
)

// comparison is version A against version B, scenario by scenario.
type comparison struct {
	A, B      string
	Scenarios []scenarioComparison
	// OnlyA and OnlyB name the scenarios (Key) present in one version only.
	OnlyA, OnlyB []string
}

// scenarioComparison is one scenario present in both versions.
type scenarioComparison struct {
	Key  string
	A, B scenario
	Rows []compareRow
}

// compareRow is one line of a comparison table, formatted.
type compareRow struct {
	Figure, A, B, Change, Verdict string
}

// compareFigure is a figure compared between two reports.
type compareFigure struct {
	Name string
	// Value is the figure in its unit; false when the report lacks it.
	Value func(*perf.Report) (float64, bool)
	// Interval bounds Value, when the report records an interval for it; nil when the
	// figure never has one.
	Interval func(*perf.Report) (lo, hi float64, ok bool)
	// Format writes a value (and, for ranges, a bound) for a cell.
	Format func(float64) string
}

// compareFigures lists the compared figures, in table order: main latency p50/p90/p99,
// overhead p50/p90/p99 (median), the sidecars' CPU and memory, and the actual QPS.
func compareFigures() []compareFigure {
	ms := func(s float64) string { return fmt.Sprintf("%.3f ms", s*1e3) }
	signedMs := func(s float64) string { return fmtSignedMs(s) + " ms" }
	var out []compareFigure
	for _, p := range []float64{50, 90, 99} {
		out = append(out, compareFigure{
			Name: "latency " + perf.PercentileName(p) + " (main)",
			Value: func(r *perf.Report) (float64, bool) {
				d, ok := medianPercentile(r.MainResults(), p)
				return d.Seconds(), ok
			},
			Format: ms,
		})
	}
	for _, f := range summaryOverheads() {
		out = append(out, compareFigure{
			Name: "overhead " + f + " (median)",
			Value: func(r *perf.Report) (float64, bool) {
				o, ok := r.OverheadOf(f)
				return o.MedianSeconds, ok
			},
			Interval: func(r *perf.Report) (float64, float64, bool) {
				o, ok := r.OverheadOf(f)
				return o.LowSeconds, o.HighSeconds, ok && o.HasInterval
			},
			Format: signedMs,
		})
	}
	for _, s := range []struct{ name, role string }{
		{"callee sidecar", roleCalleeSidecar},
		{"caller sidecar", roleCallerSidecar},
	} {
		out = append(out,
			compareFigure{
				Name: s.name + " CPU",
				Value: func(r *perf.Report) (float64, bool) {
					res, ok := resourceOf(r, s.role)
					return res.MeanCPUMillicores, ok
				},
				Format: func(x float64) string { return fmt.Sprintf("%.0f mCPU", x) },
			},
			compareFigure{
				Name: s.name + " memory",
				Value: func(r *perf.Report) (float64, bool) {
					res, ok := resourceOf(r, s.role)
					return res.PeakRSSMiB, ok
				},
				Format: func(x float64) string { return fmt.Sprintf("%.1f MiB", x) },
			})
	}
	return append(out, compareFigure{
		Name:   "actual QPS (lowest main phase)",
		Value:  lowestActualQPS,
		Format: fmtQPS,
	})
}

// compare writes the comparison of the versions a and b (directories under root) to out
// (default <root>/README.md) and its chart next to it.
func compare(root, a, b, out string, w io.Writer) error {
	c, err := loadComparison(root, a, b)
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(root, "README.md")
	}
	chart := "compare-" + fileSafe(c.A) + "-" + fileSafe(c.B) + ".png"
	fig, err := compareChart(c)
	if err != nil {
		return fmt.Errorf("charts: compare chart: %w", err)
	}
	chartPath := filepath.Join(filepath.Dir(out), chart)
	if err := fig.writePNG(chartPath); err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(compareMarkdown(c, filepath.Dir(out), chart)), 0o644); err != nil {
		return fmt.Errorf("charts: %w", err)
	}
	fmt.Fprintf(w, "%s: %d scenarios compared, %s\n", out, len(c.Scenarios), chartPath)
	return nil
}

// loadComparison reads both versions and compares every scenario present in both.
func loadComparison(root, a, b string) (comparison, error) {
	c := comparison{A: filepath.Clean(a), B: filepath.Clean(b)}
	load := func(v string) (map[string]scenario, error) {
		scs, err := loadReports(filepath.Join(root, v))
		if err != nil {
			return nil, err
		}
		return byKey(scs)
	}
	sa, err := load(c.A)
	if err != nil {
		return comparison{}, err
	}
	sb, err := load(c.B)
	if err != nil {
		return comparison{}, err
	}
	keys := make([]string, 0, len(sa))
	for k := range sa {
		if _, ok := sb[k]; ok {
			keys = append(keys, k)
		} else {
			c.OnlyA = append(c.OnlyA, k)
		}
	}
	for k := range sb {
		if _, ok := sa[k]; !ok {
			c.OnlyB = append(c.OnlyB, k)
		}
	}
	slices.Sort(keys)
	slices.Sort(c.OnlyA)
	slices.Sort(c.OnlyB)
	if len(keys) == 0 {
		return comparison{}, fmt.Errorf("charts: compare: no scenario in both %s and %s",
			filepath.Join(root, c.A), filepath.Join(root, c.B))
	}
	for _, k := range keys {
		c.Scenarios = append(c.Scenarios, scenarioComparison{
			Key: k, A: sa[k], B: sb[k],
			Rows: compareRows(sa[k].Report, sb[k].Report),
		})
	}
	return c, nil
}

// compareRows compares every figure of a with b.
func compareRows(a, b *perf.Report) []compareRow {
	figs := compareFigures()
	out := make([]compareRow, 0, len(figs))
	for _, f := range figs {
		va, okA := f.Value(a)
		vb, okB := f.Value(b)
		row := compareRow{Figure: f.Name, A: "n/a", B: "n/a", Change: "n/a"}
		var ia, ib [2]float64
		var hasA, hasB bool
		if f.Interval != nil {
			ia[0], ia[1], hasA = f.Interval(a)
			ib[0], ib[1], hasB = f.Interval(b)
		}
		if okA {
			row.A = withInterval(f, va, ia, hasA)
		}
		if okB {
			row.B = withInterval(f, vb, ib, hasB)
		}
		if okA && okB {
			row.Change = changePercent(va, vb)
		}
		row.Verdict = noiseVerdict(f.Interval != nil, hasA && okA, hasB && okB, ia, ib, a, b)
		out = append(out, row)
	}
	return out
}

func withInterval(f compareFigure, v float64, iv [2]float64, has bool) string {
	s := f.Format(v)
	if has {
		s += fmt.Sprintf(" [%s, %s]", f.Format(iv[0]), f.Format(iv[1]))
	}
	return s
}

// changePercent is (b − a) / |a| as a signed percentage with one decimal: "+20.0 %".
func changePercent(a, b float64) string {
	if a == 0 {
		if b == 0 {
			return "0.0 %"
		}
		return "n/a (from 0)"
	}
	return fmt.Sprintf("%+.1f %%", (b-a)/math.Abs(a)*100)
}

// noiseVerdict says whether a change is beyond the noise of the two runs: both must have an
// interval, and they must not overlap.
func noiseVerdict(figureHasInterval, hasA, hasB bool, ia, ib [2]float64, a, b *perf.Report) string {
	switch {
	case hasA && hasB:
		if ia[0] <= ib[1] && ib[0] <= ia[1] {
			return withinNoise
		}
		return beyondNoise
	case len(a.Rounds) < 2 || len(b.Rounds) < 2 || figureHasInterval:
		return singleRun
	}
	return noInterval
}

// fileSafe makes a version usable in a file name.
func fileSafe(s string) string {
	return strings.NewReplacer("/", "_", string(filepath.Separator), "_", " ", "_").Replace(s)
}
