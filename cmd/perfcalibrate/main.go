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
	rounds := fs.Int("rounds", 6, "rounds in each resampled comparison")
	n := fs.Int("n", 1000, "resampled comparisons per group and figure")
	seed := fs.Uint64("seed", 1, "the resampling's seed")
	save := fs.String("save", "", "also write the runs' rounds to this file")
	stored := fs.String("stored", "", "read the rounds from this file (written by -save) instead of result files")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (fs.NArg() == 0) == (*stored == "") || *rounds < 1 || *n < 1 {
		fmt.Fprintln(stderr, "perfcalibrate: usage: perfcalibrate [-rounds K >= 1] [-n N >= 1] [-seed S] [-save FILE] PATH... | -stored FILE")
		return 2
	}
	data, err := readRuns(*stored, *save, fs.Args())
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
	printTable(stdout, groups, *rounds, *n, *seed)
	return 0
}

// readRuns reads the rounds from the file stored when it is set, else from the result files
// under paths, added to those of the file save when it is there.
func readRuns(stored, save string, paths []string) (calibrate.Stored, error) {
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
			if err := data.Add(rep); err != nil {
				return data, fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	return data, nil
}

// printTable prints the Markdown tables of groups, by injected delay then figure.
func printTable(stdout io.Writer, groups map[float64]map[string][]calibrate.Run, rounds, n int, seed uint64) {
	rule := report.DefaultChangeRule()
	fmt.Fprintf(stdout, "%s\n\nResampled: %d comparisons of %d rounds each, drawn with replacement from each group's rounds (seed %d); intervals: Wilson, 95 %%.\n",
		report.RuleLine(rule), n, rounds, seed)
	delays := make([]float64, 0, len(groups))
	for d := range groups {
		delays = append(delays, d)
	}
	slices.Sort(delays)
	for _, d := range delays {
		what, count := "false alarms (regressed or improved)", func(c calibrate.Counts) int { return c.FalseAlarms() }
		title := "Same build (A/A)"
		if d > 0 {
			what, count = "regressed (detections)", func(c calibrate.Counts) int { return c.Regressed }
			title = "Build B slowed by " + report.FormatValue(d, "s", false)
		}
		fmt.Fprintf(stdout, "\n### %s\n\n| figure | runs | %s, as run | rounds | resampled: %s | 95 %% interval | same | undecided |\n|---|---:|---:|---:|---:|---|---:|---:|\n",
			title, what, what)
		figs := make([]string, 0, len(groups[d]))
		for f := range groups[d] {
			figs = append(figs, f)
		}
		slices.Sort(figs)
		for _, f := range figs {
			runs := groups[d][f]
			real := calibrate.Real(runs, rule)
			c := calibrate.Resample(runs, rounds, n, rule, seed)
			low, high, _ := calibrate.Interval(count(c), c.N, 0.95)
			total := 0
			for _, r := range runs {
				total += len(r.Pairs)
			}
			fmt.Fprintf(stdout, "| %s | %d | %d | %d | %d of %d (%s) | %s to %s | %d | %d |\n", f, len(runs), count(real), total,
				count(c), c.N, pct(c.Rate(count(c))), pct(low), pct(high), c.Same, c.Undecided)
		}
	}
}

// pct writes a rate as a percentage: "0.40 %".
func pct(x float64) string { return strings.TrimSpace(fmt.Sprintf("%.2f %%", 100*x)) }
