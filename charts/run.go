// Package charts turns perf result files into PNG charts, Markdown tables and self-contained
// HTML pages, publishes a run as a version's reference, compares results, and derives a run's
// exit code. Run is the command line cmd/charts gives it (its usage there); the pages are
// drawn from the result files alone (perf.Report), nothing parsed from logs.
package charts

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/daprperf/daprperf/perf/report"
)

const usage = `usage: charts [-reports DIR]
       charts [-reports DIR] publish [-force] <run id | run dir>
       charts [-reports DIR] compare [-out FILE] [-alpha P] [-min-change X] [-margin X] [-confidence C] [-gate LIST] [-allow-param-change] <A> [<B>]
       charts [-reports DIR] report <run id | run dir>
       charts exitcode [-go-test-exit N] <run dir>
       charts summary <run dir>
       charts check [-run-id ID] [-packages DIR] <run dir>
`

// Run wires the command line args (without the program name) to the commands, writing to
// stdout and stderr, and returns the exit code: generate and publish exit 0
// done, 1 failed, 2 bad usage; compare and exitcode have their own (cmd/charts says which).
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("charts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reports := fs.String("reports", "reports", "report root `DIR`: DIR/v<version>/<test>/<transport>/result.json, runs in DIR/runs/<run id>/")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return fail(generate(*reports, stdout), stderr)
	}
	sub := flag.NewFlagSet("charts "+rest[0], flag.ContinueOnError)
	sub.SetOutput(stderr)
	sub.Usage = func() {
		fmt.Fprint(stderr, usage)
		sub.PrintDefaults()
	}
	switch rest[0] {
	case "publish":
		force := sub.Bool("force", false, "publish an incomplete, invalid or failed run too")
		if err := sub.Parse(rest[1:]); err != nil {
			return 2
		}
		if sub.NArg() != 1 {
			sub.Usage()
			return 2
		}
		return fail(publish(*reports, sub.Arg(0), *force, stdout), stderr)
	case "compare":
		opts := defaultCompareOptions()
		opts.Reports = *reports
		sub.StringVar(&opts.Reports, "reports", opts.Reports, "report root `DIR` for run ids and versions")
		sub.StringVar(&opts.Out, "out", "", "write the Markdown to `FILE` (and the chart next to it) instead of stdout")
		sub.Float64Var(&opts.Alpha, "alpha", opts.Alpha, "false-alarm rate of regressed and improved per figure, in (0, 1): the decision interval is at 1 - alpha")
		minChange := sub.String("min-change", "5%", "smallest change that counts as regressed or improved: a percentage (5%) or a fraction (0.05)")
		margin := sub.String("margin", "5%", "equivalence margin of the verdict same, relative to A: a percentage (5%) or a fraction (0.05)")
		sub.Float64Var(&opts.Confidence, "confidence", opts.Confidence, "confidence of the median intervals, in (0, 1)")
		gate := sub.String("gate", "", "comma-separated figure-name prefixes whose regressions fail (e.g. latency,overhead); empty: all")
		sub.BoolVar(&opts.AllowParamChange, "allow-param-change", false, "compare scenarios whose load settings differ")
		if err := sub.Parse(rest[1:]); err != nil {
			return exitBadInput
		}
		var err error
		if opts.MinChange, err = parseChange("-min-change", *minChange); err != nil {
			fmt.Fprintln(stderr, err)
			return exitBadInput
		}
		if opts.Margin, err = parseChange("-margin", *margin); err != nil {
			fmt.Fprintln(stderr, err)
			return exitBadInput
		}
		if !(opts.Alpha > 0 && opts.Alpha < 1) || !(opts.Confidence > 0 && opts.Confidence < 1) {
			fmt.Fprintf(stderr, "charts compare: -alpha %v and -confidence %v must lie in (0, 1)\n", opts.Alpha, opts.Confidence)
			return exitBadInput
		}
		if *gate != "" {
			for _, g := range strings.Split(*gate, ",") {
				if g = strings.TrimSpace(g); g != "" {
					opts.Gate = append(opts.Gate, g)
				}
			}
		}
		var code int
		switch sub.NArg() {
		case 1:
			code, err = compareAB(opts, sub.Arg(0), stdout)
		case 2:
			code, err = compare(opts, sub.Arg(0), sub.Arg(1), stdout)
		default:
			sub.Usage()
			return exitBadInput
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitBadInput
		}
		return code
	case "report":
		if err := sub.Parse(rest[1:]); err != nil {
			return 2
		}
		if sub.NArg() != 1 {
			sub.Usage()
			return 2
		}
		return fail(runReport(*reports, sub.Arg(0), stdout), stderr)
	case "exitcode":
		goTest := sub.Int("go-test-exit", 0, "exit status of the go test that wrote the run")
		if err := sub.Parse(rest[1:]); err != nil {
			return 2
		}
		if sub.NArg() != 1 {
			sub.Usage()
			return 2
		}
		return int(report.RunOutcome(sub.Arg(0), *goTest, stdout))
	case "check":
		runID := sub.String("run-id", "", "the run id every result file must carry (empty: any)")
		packages := sub.String("packages", "", "a `DIR` of scenario packages (tests) each of which must have written a result file")
		if err := sub.Parse(rest[1:]); err != nil {
			return 2
		}
		if sub.NArg() != 1 {
			sub.Usage()
			return 2
		}
		return fail(checkRun(sub.Arg(0), *runID, *packages, stdout), stderr)
	case "summary":
		if err := sub.Parse(rest[1:]); err != nil {
			return 2
		}
		if sub.NArg() != 1 {
			sub.Usage()
			return 2
		}
		return fail(runSummary(sub.Arg(0), stdout), stderr)
	default:
		fmt.Fprintf(stderr, "charts: unknown command %q\n", rest[0])
		fs.Usage()
		return 2
	}
}

// fail prints err and returns 1, or returns 0 without one.
func fail(err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// parseChange reads flag (-min-change, -margin): "5%" or "0.05", from 0 to below 1.
func parseChange(flag, s string) (float64, error) {
	raw := strings.TrimSpace(s)
	scale := 1.0
	if v, ok := strings.CutSuffix(raw, "%"); ok {
		raw, scale = strings.TrimSpace(v), 0.01
	}
	x, err := strconv.ParseFloat(raw, 64)
	if err == nil && (x*scale < 0 || x*scale >= 1) {
		err = errors.New("out of range")
	}
	if err != nil {
		return 0, fmt.Errorf("charts compare: %s %q: must be a percentage such as 5%% or a fraction such as 0.05, from 0 to below 1 (%v)", flag, s, err)
	}
	return x * scale, nil
}
