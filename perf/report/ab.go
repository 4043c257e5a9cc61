package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/daprperf/daprperf/perf"

	"github.com/daprperf/daprperf/perf/stats"
)

// A/B runs: two daprd builds in one run. A platform that runs a second build (B) beside every
// sidecar, on the same apps and tester (package local with DAPR_PERF_DAPRD_B), exposes it as
// perf.SideB. The overhead plan then interleaves the builds round by round on the same machine,
//
//	round 1: baseline, main A, main B
//	round 2: baseline, main B, main A
//	...
//
// (A B, then B A, so that neither build always runs second), and reports each side's figures
// and the difference B − A per round: its median and an order-statistics interval of the
// median with its actual confidence (benchmath.AssumeNothing). Machine drift between rounds
// cancels out of a per-round difference, which comparing runs taken at different times cannot
// do.

// Defaults of a comparison. DefaultConfidence is asked of the intervals of a median that tables
// show beside each side. DefaultMinChange is the smallest relative change of a median that
// counts as regressed or improved (benchstat shows any significant change; a gate needs a
// floor, and 5 % sits well inside this machine's ±20 % run-to-run drift but above what
// interleaved rounds resolve). DefaultMargin is the equivalence margin of the verdict same, set
// to the same 5 % so that a change too small to count as regressed can be shown same.
// DefaultDecideConfidence (0.99) bounds the false alarms (regressed or improved on data of one
// build) of a figure at 1 %, the project's goal, and DefaultSameConfidence (0.90) is
// equivalence at Schuirmann's usual α = 5 % per side (perf.ChangeRule says why).
const (
	DefaultConfidence       = 0.95
	DefaultMinChange        = 0.05
	DefaultMargin           = 0.05
	DefaultDecideConfidence = 0.99
	DefaultSameConfidence   = 0.90
)

// DefaultABMaxRounds is the rounds an A/B run may grow to while a gated figure is undecided,
// when DAPR_PERF_AB_MAX_ROUNDS is unset. From the 6 rounds a comparison is usually asked with,
// 16 allows 6 looks (after 6, 8, ..., 16 rounds); with Bonferroni over them, a look's decision
// interval is at 99.83 %, which the sign-test interval of the median first reaches at 11 rounds
// (2·0.5^11 < 0.0017), so a change seen in every round can be called regressed at 12, and two
// more looks remain for a noisier one. Same needs 98.3 %, first reached at 7 rounds. Each added
// round is a baseline and both main phases: 16 rounds of 1-minute phases are 48 minutes.
const DefaultABMaxRounds = 16

// DefaultChangeRule is the rule of a comparison judged once: DefaultMinChange, DefaultMargin,
// DefaultDecideConfidence, DefaultSameConfidence, one look.
func DefaultChangeRule() perf.ChangeRule {
	return perf.ChangeRule{MinChange: DefaultMinChange, Margin: DefaultMargin, Confidence: DefaultDecideConfidence, SameConfidence: DefaultSameConfidence, Looks: 1}
}

// ABLooks is how many times an A/B run that starts with planned rounds and may grow to
// maxRounds judges its rounds: after the planned ones, then after each added pair (the last
// addition may be a single round): 1 + ⌈(maxRounds − planned) / 2⌉, and 1 when maxRounds <=
// planned.
func ABLooks(planned, maxRounds int) int {
	if maxRounds <= planned {
		return 1
	}
	return 1 + (maxRounds-planned+1)/2
}

// ABRule is DefaultChangeRule over the looks of an A/B run from planned to at most maxRounds
// rounds (ABLooks), so that its false alarms over all looks stay within 1 %.
func ABRule(planned, maxRounds int) perf.ChangeRule {
	r := DefaultChangeRule()
	r.Looks = ABLooks(planned, maxRounds)
	return r
}

// ABGatedFigures are the figures of PairedDifferences whose verdicts decide when an A/B run
// stops adding rounds: the main latency at p50 and p90. Both builds share each round's
// baseline, so these are also the differences of the overhead at p50 and p90, Dapr's gated
// figure and its median. p99 and beyond, CPU and memory are reported and judged, but waiting
// for their noisier rounds would spend the budget on every run.
func ABGatedFigures() []string { return []string{"latency p50", "latency p90"} }

// ABGatedFiguresOf is the gated figures a value of perf.EnvABGate names: "p50+p90"
// (ABGatedFigures), or one percentile, "p50", "p90" or "p99", as "latency <p>"; a bisection
// that reads one figure gates only it, so its comparisons stop when that one is decided. An
// unknown value (Env has checked it) gives ABGatedFigures.
func ABGatedFiguresOf(gate string) []string {
	switch gate {
	case "p50", "p90", "p99":
		return []string{"latency " + gate}
	}
	return ABGatedFigures()
}

// Undecided names the figures of gated that ds leaves undecided: a verdict of
// perf.VerdictUndecided, or no difference of that figure at all.
func Undecided(ds []perf.Difference, gated []string) []string {
	var out []string
	for _, g := range gated {
		i := slices.IndexFunc(ds, func(d perf.Difference) bool { return d.Figure == g })
		if i < 0 || perf.VerdictWord(ds[i].Verdict) == perf.VerdictUndecided {
			out = append(out, g)
		}
	}
	return out
}

// FinishAB derives build B's figures and the differences once the rounds are in, by ab.Rule
// (DefaultChangeRule when nil, and then recorded); the report's validity then covers both
// builds, its warnings the rounds set aside (SetAsideWarnings), and runner.planChecksPass B's
// verdicts. A nil ABReport does nothing.
func FinishAB(ab *perf.ABReport, rep *perf.Report, thresholds []perf.Threshold) {
	if ab == nil {
		return
	}
	side := &perf.Report{Rounds: ab.Rounds, Exits: rep.Exits}
	DeriveOverhead(side)
	Judge(side, thresholds)
	ab.Overhead, ab.Resources, ab.Verdicts = side.Overhead, side.Resources, side.Verdicts
	ab.Validity = perf.Validity{Valid: side.Validity.Valid}
	for _, r := range side.Validity.Reasons {
		if strings.Contains(r, " baseline: ") { // the shared baselines are A's rounds' too
			continue
		}
		ab.Validity.Reasons = append(ab.Validity.Reasons, "build B: "+r)
	}
	if !ab.Validity.Valid {
		rep.Validity.Valid = false
		rep.Validity.Reasons = append(rep.Validity.Reasons, ab.Validity.Reasons...)
	}
	rule := DefaultChangeRule()
	if ab.Rule != nil {
		rule = *ab.Rule
	}
	ab.Rule = &rule
	ab.Differences = PairedDifferences(rep.Rounds, ab.Rounds, rule)
	rep.Warnings = append(rep.Warnings, SetAsideWarnings(ab.SetAside)...)
}

// ABVerdictsPass is true when every one of build B's verdicts that is not WarnOnly passed.
func ABVerdictsPass(ab *perf.ABReport) bool {
	for _, v := range ab.Verdicts {
		if !v.Pass && !v.WarnOnly {
			return false
		}
	}
	return true
}

// PairedDifferences compares the main phases of rounds a and b pairwise (round i of a with
// round i of b; the shorter decides how many): each of ABFigures. Each gets PairedDifference by
// rule. A figure missing from a round is left out.
func PairedDifferences(a, b []perf.Round, rule perf.ChangeRule) []perf.Difference {
	var out []perf.Difference
	for _, f := range ABFigures() {
		as, bs := f.Pairs(a, b)
		if len(as) == 0 {
			continue
		}
		out = append(out, PairedDifference(f.Name, f.Unit, as, bs, false, rule))
	}
	return out
}

// ABFigure is one figure an A/B comparison reads from each round's main phase.
type ABFigure struct {
	// Name is the figure as a comparison names it ("latency p90"); Unit its unit: "s",
	// "cores" or "bytes".
	Name, Unit string
	// Value reads the figure from a round; false when the round lacks it.
	Value func(perf.Round) (float64, bool)
}

// Pairs are the figure's values in round i of a and of b, for every i both have it.
func (f ABFigure) Pairs(a, b []perf.Round) (as, bs []float64) {
	for i := range min(len(a), len(b)) {
		va, okA := f.Value(a[i])
		vb, okB := f.Value(b[i])
		if okA && okB {
			as, bs = append(as, va), append(bs, vb)
		}
	}
	return as, bs
}

// ABFigures are the figures two builds are compared on, lower being better for each: main
// latency at OverheadPercentiles and its mean (seconds), and the mean CPU (cores) and peak RSS
// (bytes) of the caller's and the callee's sidecar. Both builds share each round's baseline,
// so a latency's B − A is the overhead's.
func ABFigures() []ABFigure {
	var figs []ABFigure
	for _, p := range perf.OverheadPercentiles {
		figs = append(figs, ABFigure{"latency " + perf.PercentileName(p), "s", func(r perf.Round) (float64, bool) {
			d, err := r.Main.Percentile(p)
			return d.Seconds(), err == nil
		}})
	}
	figs = append(figs, ABFigure{"latency mean", "s", func(r perf.Round) (float64, bool) { return r.Main.Latency.AvgSeconds, true }})
	for _, role := range []string{perf.RoleCallerSidecar, perf.RoleCalleeSidecar} {
		series := func(r perf.Round) (perf.Series, bool) {
			for _, s := range r.Resources {
				if s.Role == role && len(s.Points) >= 2 {
					return s, true
				}
			}
			return perf.Series{}, false
		}
		figs = append(figs,
			ABFigure{role + " CPU", "cores", func(r perf.Round) (float64, bool) {
				s, ok := series(r)
				return s.MeanCPU(), ok
			}},
			ABFigure{role + " memory", "bytes", func(r perf.Round) (float64, bool) {
				s, ok := series(r)
				return float64(s.PeakRSS()), ok
			}})
	}
	return figs
}

// PairedDifference compares the paired values a[i] and b[i] of one figure (in unit; the
// shorter slice decides how many pairs): the per-round differences B − A, their median with
// its order-statistics interval (benchmath.AssumeNothing, the sign test's interval of a
// median) at rule.DecideConfidence and at rule.EquivalenceConfidence, the change relative to
// the median of a, and rule.Verdict. A and B are the medians of a and b. With no pair it is
// the zero Difference with Verdict undecided.
func PairedDifference(figure, unit string, a, b []float64, higherIsBetter bool, rule perf.ChangeRule) perf.Difference {
	n := min(len(a), len(b))
	diffs := make([]float64, n)
	for i := range n {
		diffs[i] = b[i] - a[i]
	}
	d := perf.Difference{Figure: figure, Unit: unit, HigherIsBetter: higherIsBetter, A: median(a[:n]), B: median(b[:n]), PerRound: diffs, Margin: rule.Margin}
	if n == 0 {
		d.Verdict = perf.VerdictUndecided
		return d
	}
	iv := stats.MedianIntervalAt(diffs, rule.DecideConfidence())
	d.Median, d.Low, d.High, d.Confidence, d.HasInterval = iv.Median, iv.Low, iv.High, iv.Confidence, iv.Method == stats.MethodOrderStatistics
	eq := stats.MedianIntervalAt(diffs, rule.EquivalenceConfidence())
	d.SameLow, d.SameHigh, d.SameConfidence, d.HasSameInterval = eq.Low, eq.High, eq.Confidence, eq.Method == stats.MethodOrderStatistics
	if d.A != 0 {
		d.Change = d.Median / math.Abs(d.A)
	}
	d.Verdict = rule.Verdict(d)
	return d
}

// UnpairedDifference compares two independent samples of one figure (in unit): a, the rounds
// of one run or of several pooled, and b, those of another. Median is the Hodges–Lehmann shift
// of b against a, Low and High its Mann–Whitney interval at rule.DecideConfidence, SameLow
// and SameHigh at rule.EquivalenceConfidence (stats.ShiftInterval); A and B are the medians,
// Change is Median / |A|, and Verdict is rule.Verdict. PerRound is empty. An empty side gives
// Verdict undecided.
func UnpairedDifference(figure, unit string, a, b []float64, higherIsBetter bool, rule perf.ChangeRule) perf.Difference {
	d := perf.Difference{Figure: figure, Unit: unit, HigherIsBetter: higherIsBetter, A: median(a), B: median(b), Margin: rule.Margin}
	if len(a) == 0 || len(b) == 0 {
		d.Verdict = perf.VerdictUndecided
		return d
	}
	iv := stats.ShiftInterval(a, b, rule.DecideConfidence())
	d.Median, d.Low, d.High, d.Confidence, d.HasInterval = iv.Estimate, iv.Low, iv.High, iv.Confidence, iv.Method == stats.MethodOrderStatistics
	eq := stats.ShiftInterval(a, b, rule.EquivalenceConfidence())
	d.SameLow, d.SameHigh, d.SameConfidence, d.HasSameInterval = eq.Low, eq.High, eq.Confidence, eq.Method == stats.MethodOrderStatistics
	if d.A != 0 {
		d.Change = d.Median / math.Abs(d.A)
	}
	d.Verdict = rule.Verdict(d)
	return d
}

// FormatValue writes v, in base unit ("s", "cores" or "bytes"), for tables: seconds as ms with
// 3 decimals, cores as millicores with 0 and bytes as MiB with 1; signed adds a sign. The units
// of files written before the base units ("mCPU", "MiB") print as they are.
func FormatValue(v float64, unit string, signed bool) string {
	f := map[string]string{"s": "%.3f ms", "cores": "%.0f mCPU", "bytes": "%.1f MiB", "mCPU": "%.0f mCPU", "MiB": "%.1f MiB"}[unit]
	if f == "" {
		f = "%.4g " + unit
	}
	switch unit {
	case "s", "cores":
		v *= 1e3
	case "bytes":
		v /= 1 << 20
	}
	if signed {
		f = "%+" + f[1:]
	}
	return fmt.Sprintf(f, v)
}

// abTable renders the A/B part of a summary: the builds, the rounds and why they stopped, per
// figure A, B, the median B − A with its interval and confidence, the change and the verdict,
// then the rule.
func abTable(b *strings.Builder, r *perf.Report) {
	ab := r.AB
	fmt.Fprintf(b, "A/B: A = daprd %s (%s), B = daprd %s (%s); %d interleaved round(s), order %s\n",
		ab.A.Version, OrUnknown(ab.A.Daprd), ab.B.Version, OrUnknown(ab.B.Daprd), len(ab.Rounds), strings.Join(ab.Order, " "))
	if d := ab.B.InjectedDelaySeconds; d > 0 {
		held := ""
		if h := ab.B.HeldDelaySeconds; h > 0 {
			held = fmt.Sprintf(" (a hold lasts %s on this machine)", FormatValue(h, "s", false))
		}
		fmt.Fprintf(b, "B is slowed on purpose (%s): every request to its sidecars held %s%s, through a proxy that A's pass too without delay\n",
			perf.EnvABDelay, FormatValue(d, "s", false), held)
	}
	if line := StopLine(ab.Stop); line != "" {
		b.WriteString(line + "\n")
	}
	b.WriteString(DifferenceTable(ab.Differences))
	if ab.Rule != nil {
		b.WriteString(RuleLine(*ab.Rule) + "\n")
	}
}

// StopLine says how an A/B run's rounds ended: "Rounds: 6 asked, up to 16 while latency p50,
// latency p90 undecided; 10 ran: decided." and, when rounds were set aside, "; 1 round set
// aside and run again, a phase having fallen behind (at most 2)" before the stop. "" for nil
// (files written before it).
func StopLine(s *perf.ABStop) string {
	if s == nil {
		return ""
	}
	line := fmt.Sprintf("Rounds: %d asked, up to %d while %s undecided; %d ran: %s", s.Planned, s.MaxRounds, strings.Join(s.Gated, ", "), s.Ran, s.Reason)
	if len(s.Undecided) > 0 {
		line += " (" + strings.Join(s.Undecided, ", ") + " still undecided)"
	}
	if s.SetAside > 0 {
		rounds := "rounds"
		if s.SetAside == 1 {
			rounds = "round"
		}
		line += fmt.Sprintf("; %d %s set aside and run again, a phase having fallen behind (at most %d)", s.SetAside, rounds, s.SetAsideLimit)
	}
	return line + "."
}

// RuleLine states rule as a page shows it: "Verdict: regressed or improved when the 99 %
// interval of B − A excludes 0 and the change is at least 5 %; same when the 90 % interval lies
// within ± 5 % of A (the margin); undecided otherwise." With several looks it names them and
// the per-look confidences.
func RuleLine(rule perf.ChangeRule) string {
	looks := ""
	if rule.Looks > 1 {
		looks = fmt.Sprintf(" Over %d looks at growing rounds, each look asks %s and %s (Bonferroni).", rule.Looks,
			pct(rule.DecideConfidence()), pct(rule.EquivalenceConfidence()))
	}
	return fmt.Sprintf("Verdict: regressed or improved when the %s interval of B − A excludes 0 and the change is at least %g %%; "+
		"same when the %s interval lies within ± %g %% of A (the margin); undecided otherwise.%s",
		pct(rule.Confidence), 100*rule.MinChange, pct(rule.SameConfidence), 100*rule.Margin, looks)
}

// pct writes a confidence as a percentage with as many decimals as it needs: "99 %", "99.83 %".
func pct(c float64) string {
	return strconv.FormatFloat(math.Round(c*1e4)/1e2, 'f', -1, 64) + " %"
}

// DifferenceTable renders differences as an aligned text table: the interval is the decision
// interval, the verdict the four-way word (VerdictWord maps those of older files).
func DifferenceTable(ds []perf.Difference) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "figure\tA (median)\tB (median)\tB − A (median)\tinterval\tconfidence\tchange\tverdict\t")
	for _, d := range ds {
		iv := fmt.Sprintf("[%s, %s]", FormatValue(d.Low, d.Unit, true), FormatValue(d.High, d.Unit, true))
		conf := ConfidencePct(d.Confidence)
		if !d.HasInterval {
			conf += " (widest)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%+.1f %%\t%s\t\n", d.Figure, FormatValue(d.A, d.Unit, false), FormatValue(d.B, d.Unit, false),
			FormatValue(d.Median, d.Unit, true), iv, conf, 100*d.Change, perf.VerdictWord(d.Verdict))
	}
	_ = w.Flush()
	return b.String()
}

func OrUnknown(s string) string {
	if s == "" {
		return "path unknown"
	}
	return s
}

// ConfidencePct writes a confidence c in [0, 1] as a percentage for tables and pages: with one
// decimal ("95.7 %"), or as many more as it takes, up to four, for c below 1 not to round to
// 100; the digits shown are rounded down, so that it never claims more than it has ("99.98 %"
// for 0.99986, which one decimal would show as 100.0).
func ConfidencePct(c float64) string {
	dec := 1
	for ; dec < 4 && c < 1; dec++ {
		if scale := math.Pow(10, float64(dec)); math.Round(c*100*scale)/scale < 100 {
			break
		}
	}
	scale := math.Pow(10, float64(dec))
	return strconv.FormatFloat(math.Floor(c*100*scale+1e-9)/scale, 'f', dec, 64) + " %"
}
