// Command perfplan reads the output of a plan-only go test pass (DAPR_PERF_PLAN_ONLY=1 go test
// -tags perf -v ...; each scenario prints one perf.PlanLinePrefix line) and prints the suite's
// plan: scripts/perf.sh runs it before make perf, make perf-plan alone.
//
//	perfplan table [file]     the table (package, test, plan, load, phases, expected) and the
//	                          expected total, for people
//	perfplan packages [file]  one line per package, in the order go test ran them:
//	                          "<package> <expected seconds> <scenarios>", for perf.sh's ETA lines
//
// Without a file it reads stdin. It exits 1 when a plan line does not parse, naming its line
// number, and 2 on a usage error.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/daprperf/daprperf/perf"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 || (os.Args[1] != "table" && os.Args[1] != "packages") {
		fmt.Fprintln(os.Stderr, "usage: perfplan table|packages [go test output file]")
		os.Exit(2)
	}
	in := io.Reader(os.Stdin)
	if len(os.Args) == 3 {
		f, err := os.Open(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "perfplan:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	lines, err := Parse(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfplan:", err)
		os.Exit(1)
	}
	if os.Args[1] == "table" {
		err = WriteTable(os.Stdout, lines)
	} else {
		err = WritePackages(os.Stdout, lines)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfplan:", err)
		os.Exit(1)
	}
}

// Parse returns every plan line of r (go test output), in order. A line that starts with
// perf.PlanLinePrefix but is not a PlanLine's JSON is an error naming its line number.
func Parse(r io.Reader) ([]perf.PlanLine, error) {
	var out []perf.PlanLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20) // go test output has long log lines
	n := 0
	for sc.Scan() {
		n++
		rest, ok := strings.CutPrefix(sc.Text(), perf.PlanLinePrefix)
		if !ok {
			continue
		}
		var l perf.PlanLine
		if err := json.Unmarshal([]byte(rest), &l); err != nil {
			return nil, fmt.Errorf("line %d: plan line: %w", n, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// Package is one test package of the suite: its scenarios' plan lines, in order.
type Package struct {
	Name  string
	Lines []perf.PlanLine
}

// Expected is the package's expected time, the sum of its scenarios' (PlanLine.ExpectedSeconds),
// and UpTo the part of it that is an upper bound (PlanLine.UpToSeconds).
func (p Package) Expected() (expected, upTo time.Duration) {
	for _, l := range p.Lines {
		expected += seconds(l.ExpectedSeconds)
		upTo += seconds(l.UpToSeconds)
	}
	return expected, upTo
}

// Packages groups lines by package, in the order each package first appears.
func Packages(lines []perf.PlanLine) []Package {
	var out []Package
	at := map[string]int{}
	for _, l := range lines {
		i, ok := at[l.Package]
		if !ok {
			i = len(out)
			at[l.Package] = i
			out = append(out, Package{Name: l.Package})
		}
		out[i].Lines = append(out[i].Lines, l)
	}
	return out
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// load is a plan line's main load in a few words.
func load(l perf.PlanLine) string {
	switch {
	case l.Plan == "iterations":
		return "closed-loop iterations"
	case l.QPS > 0:
		return fmt.Sprintf("%d QPS x %v, %d conn", l.QPS, seconds(l.DurationSeconds), l.Connections)
	default:
		return fmt.Sprintf("closed loop / max rate, %v", seconds(l.DurationSeconds))
	}
}

// expected is d, marked "up to" when part of it is an upper bound.
func expected(d, upTo time.Duration) string {
	s := d.Round(time.Second).String()
	if upTo > 0 {
		s = "up to " + s
	}
	return s
}

// WriteTable writes the suite's plan: a row per scenario (package, test, plan, load, phases,
// expected time), a total per package, and the suite's expected total with the part of it that
// is an upper bound.
func WriteTable(w io.Writer, lines []perf.PlanLine) error {
	pkgs := Packages(lines)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "package\ttest\tplan\tmain load\tphases\texpected")
	var total, upTo time.Duration
	scenarios := 0
	for _, p := range pkgs {
		for _, l := range p.Lines {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", p.Name, l.Test, l.Plan, load(l), len(l.Phases), expected(seconds(l.ExpectedSeconds), seconds(l.UpToSeconds)))
			scenarios++
		}
		e, u := p.Expected()
		if len(p.Lines) > 1 {
			fmt.Fprintf(tw, "%s\t(package)\t\t\t\t%s\n", p.Name, expected(e, u))
		}
		total += e
		upTo += u
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "suite: %d packages, %d scenarios, expected about %v", len(pkgs), scenarios, total.Round(time.Second))
	if err == nil && upTo > 0 {
		_, err = fmt.Fprintf(w, " (%v of it is the maxDuration of closed-loop runs, which end when their iterations are done: an upper bound; without it %v)",
			upTo.Round(time.Second), (total - upTo).Round(time.Second))
	}
	if err == nil {
		_, err = fmt.Fprintln(w, "; an estimate from the plans (phase lengths plus 0.5 s each), not a measured run: building each test binary and starting its platform come on top")
	}
	return err
}

// WritePackages writes one line per package: its name, its expected seconds without the upper
// bounds of closed-loop runs, those bounds' seconds, and its number of scenarios (whole
// seconds, separated by spaces).
func WritePackages(w io.Writer, lines []perf.PlanLine) error {
	secs := func(d time.Duration) int64 { return int64(d.Round(time.Second) / time.Second) }
	for _, p := range Packages(lines) {
		e, u := p.Expected()
		if _, err := fmt.Fprintf(w, "%s %d %d %d\n", p.Name, secs(e-u), secs(u), len(p.Lines)); err != nil {
			return err
		}
	}
	return nil
}
