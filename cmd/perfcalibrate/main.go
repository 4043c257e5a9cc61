// Command perfcalibrate measures what the comparison verdict does on A/B runs whose truth is
// known: same-build (A/A) runs, where every change it calls is a false alarm, and runs whose
// build B was slowed on purpose (DAPR_PERF_AB_DELAY), where every regression it calls is a
// detection. It prints a Markdown table per figure (perf/calibrate):
//
//	perfcalibrate [-rounds 6] [-n 1000] [-seed 1] [-save FILE] PATH...
//	perfcalibrate [-rounds 6] [-n 1000] [-seed 1] -stored FILE
//
// PATH is a result file or a folder searched for them; every one must be an A/B run, all on one
// machine. -save also writes their rounds to FILE (calibrate.Stored: the pairs of every figure
// and the machine, a few kilobytes a run); when FILE is there already, its runs are kept and a
// result file of a run id it holds is skipped, so a calibration grows over sittings on
// machines that keep no result files. -stored reads the rounds from such a file
// instead of result files, so that a published calibration can be redone. Runs are
// grouped by their injected delay (0: A/A). For each group and figure (report.ABFigures) the
// table gives the runs judged as they ran, then -n comparisons of -rounds rounds resampled with
// replacement from the group's rounds (the bootstrap), with the Wilson 95 % interval of the
// rate: false alarms (regressed or improved) for A/A, regressed for a slowed B. The verdict is
// report.DefaultChangeRule's, one look.
//
// Exit codes: 0 the table was printed; 1 a file could not be read, is no A/B run or ran on
// another machine (named); 2 a bad flag, or no path and no -stored.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/daprperf/daprperf/perf/calibrate"
	"github.com/daprperf/daprperf/perf/report"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("perfcalibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rounds := fs.Int("rounds", 6, "rounds each resampled comparison draws first")
	budget := fs.Int("budget", 16, "rounds an adaptive paired comparison may grow to (DAPR_PERF_AB_MAX_ROUNDS)")
	n := fs.Int("n", 1000, "resampled comparisons per group, figure and column")
	power := fs.Float64("power", 0.8, "the power the smallest change caught is found at, in (0, 1)")
	seed := fs.Uint64("seed", 1, "the resampling's seed")
	save := fs.String("save", "", "also write the runs' rounds to this file")
	stored := fs.String("stored", "", "read the rounds from this file (written by -save) instead of result files")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (fs.NArg() == 0) == (*stored == "") || *rounds < 1 || *budget < *rounds || *n < 1 || !(*power > 0 && *power < 1) {
		fmt.Fprintln(stderr, "perfcalibrate: usage: perfcalibrate [-rounds K >= 1] [-budget B >= K] [-n N >= 1] [-power 0 < P < 1] [-seed S] [-save FILE] PATH... | -stored FILE")
		return 2
	}
	data, err := readRuns(*stored, *save, fs.Args(), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "perfcalibrate: %v\n", err)
		return 1
	}
	if *save != "" {
		if err := calibrate.WriteStored(*save, data); err != nil {
			fmt.Fprintf(stderr, "perfcalibrate: %v\n", err)
			return 1
		}
	}
	// groups[delay][figure] are the runs of one injected delay, figure by figure.
	groups := map[float64]map[string][]calibrate.Run{}
	for fig, runs := range data.Figures {
		for _, r := range runs {
			if groups[r.InjectedDelay] == nil {
				groups[r.InjectedDelay] = map[string][]calibrate.Run{}
			}
			groups[r.InjectedDelay][fig] = append(groups[r.InjectedDelay][fig], r)
		}
	}
	printTable(stdout, groups, table{n: *n, seed: *seed, power: *power, comparisons: []calibrate.Comparison{
		{Rounds: *rounds}, {Rounds: *rounds, Budget: *budget}, {Rounds: *rounds, Unpaired: true},
	}})
	return 0
}

// readRuns reads the rounds from the file stored when it is set, else from the result files
// under paths (but invalid or incomplete runs, named on stderr), added to those of the file
// save when it is there.
func readRuns(stored, save string, paths []string, stderr io.Writer) (calibrate.Stored, error) {
	if stored != "" {
		return calibrate.ReadStored(stored)
	}
	var data calibrate.Stored
	if save != "" {
		if _, err := os.Stat(save); err == nil {
			if data, err = calibrate.ReadStored(save); err != nil {
				return data, err
			}
		}
	}
	for _, path := range paths {
		files, err := report.RunFiles(path)
		if err == nil && len(files) == 0 {
			err = fmt.Errorf("no result file under %s", path)
		}
		if err != nil {
			return data, err
		}
		for _, f := range files {
			rep, err := report.ReadReport(f)
			if err != nil {
				return data, err
			}
			if data.Has(rep.RunID) {
				continue
			}
			if !rep.Validity.Valid || rep.Incomplete {
				// A comparison is never made of an invalid or incomplete run (its build B's
				// rounds did not keep their schedule, or are missing), so it is not calibrated.
				fmt.Fprintf(stderr, "perfcalibrate: %s: left out: an invalid or incomplete run is not judged\n", f)
				continue
			}
			if err := data.Add(rep); err != nil {
				return data, fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	return data, nil
}

// table is what printTable draws: the comparisons made of every group's rounds.
type table struct {
	comparisons []calibrate.Comparison
	n           int
	seed        uint64
	power       float64
}

// printTable prints the Markdown tables of groups, by injected delay then figure: for same-build
// runs their false alarms and the smallest change each comparison catches at t.power, for
// slowed ones their detections.
func printTable(stdout io.Writer, groups map[float64]map[string][]calibrate.Run, t table) {
	rule := report.DefaultChangeRule()
	fmt.Fprintf(stdout, "%s\n\nAs run: each run judged once, all its rounds paired. Resampled: %d comparisons per column, rounds drawn with replacement from the group's rounds (seed %d); a rate's interval is Wilson's at 95 %%.\n",
		report.RuleLine(rule), t.n, t.seed)
	delays := make([]float64, 0, len(groups))
	for d := range groups {
		delays = append(delays, d)
	}
	slices.Sort(delays)
	header := func(first ...string) string {
		h, sep := "| figure | runs | rounds |", "|---|---:|---:|"
		for _, f := range first {
			h += " " + f + " |"
			sep += "---:|"
		}
		for _, c := range t.comparisons {
			h += " " + c.String() + " |"
			sep += "---:|"
		}
		return h + "\n" + sep + "\n"
	}
	for _, d := range delays {
		figs := make([]string, 0, len(groups[d]))
		for f := range groups[d] {
			figs = append(figs, f)
		}
		slices.Sort(figs)
		count := func(c calibrate.Counts) int { return c.Regressed }
		title := "Build B slowed by " + report.FormatValue(d, "s", false) + ": regressed (detections)"
		if d == 0 {
			count = func(c calibrate.Counts) int { return c.FalseAlarms() }
			title = "Same build (A/A): false alarms (regressed or improved)"
		}
		cols := []string{"as run"}
		if d != 0 {
			cols = []string{"B − A, median", "as run"}
		}
		fmt.Fprintf(stdout, "\n### %s\n\n%s", title, header(cols...))
		for _, f := range figs {
			runs := groups[d][f]
			total := 0
			for _, r := range runs {
				total += len(r.Pairs)
			}
			real := calibrate.Real(runs, rule)
			fmt.Fprintf(stdout, "| %s | %d | %d |", f, len(runs), total)
			if d != 0 {
				diff, rel := calibrate.Shift(runs)
				fmt.Fprintf(stdout, " %s (%+.1f %%) |", report.FormatValue(diff, unitOf(f), true), 100*rel)
			}
			fmt.Fprintf(stdout, " %d of %d |", count(real), real.N)
			for _, cmp := range t.comparisons {
				fmt.Fprintf(stdout, " %s |", rate(count(calibrate.Resample(runs, cmp, t.n, rule, t.seed)), t.n))
			}
			fmt.Fprintln(stdout)
		}
		if d != 0 {
			continue
		}
		fmt.Fprintf(stdout, "\n### Smallest change caught with %.0f %% power, from the A/A rounds with B's shifted\n\n", 100*t.power)
		fmt.Fprintf(stdout, "A model of a change that moves every round of B alike, found by bisection in whole percent; \"none\" when even +100 %% is caught less often.\n\n%s", header("A's median"))
		for _, f := range figs {
			runs := groups[d][f]
			var as []float64
			for _, r := range runs {
				for _, p := range r.Pairs {
					as = append(as, p.A)
				}
			}
			slices.Sort(as)
			fmt.Fprintf(stdout, "| %s | %d | %d | %s |", f, len(runs), len(as), report.FormatValue(as[len(as)/2], unitOf(f), false))
			for _, cmp := range t.comparisons {
				mde, ok := calibrate.MDE(runs, cmp, t.n, rule, t.seed, t.power)
				cell := "none"
				if ok {
					cell = fmt.Sprintf("+%.0f %%", 100*mde)
				}
				fmt.Fprintf(stdout, " %s |", cell)
			}
			fmt.Fprintln(stdout)
		}
	}
}

// unitOf is the unit of the figure named name (report.ABFigures), "" when none is.
func unitOf(name string) string {
	for _, f := range report.ABFigures() {
		if f.Name == name {
			return f.Unit
		}
	}
	return ""
}

// rate writes x of n with its rate and Wilson 95 % interval: "3 of 1000: 0.30 % (0.10 to 0.88 %)".
func rate(x, n int) string {
	low, high, err := calibrate.Interval(x, n, 0.95)
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d of %d: %s (%s to %s)", x, n, pct(float64(x)/float64(n)), strings.TrimSuffix(pct(low), " %"), pct(high))
}

// pct writes a rate as a percentage: "0.40 %".
func pct(x float64) string { return strings.TrimSpace(fmt.Sprintf("%.2f %%", 100*x)) }
