package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// event is one line of `go test -json` (cmd/test2json): the fields Dapr's report reads (Time,
// Action, Package, Test, Output: tests/perf/report/charts.go, goTestEvent) and Elapsed, in
// test2json's order.
type event struct {
	Time    time.Time `json:"Time,omitzero"`
	Action  string    `json:"Action"`
	Package string    `json:"Package,omitempty"`
	Test    string    `json:"Test,omitempty"`
	Elapsed *float64  `json:"Elapsed,omitempty"` // seconds, on pass and fail
	Output  string    `json:"Output,omitempty"`
}

// outputChunk is the most bytes of one line test2json puts in one output event; a longer line
// is split over several (cmd/internal/test2json, outBuffer).
const outputChunk = 1024

// writeEvents writes runs to w as the event stream `go test -json` would print for them: by
// Dapr package (in import path order), then test function (in source order), then subtest (in
// Dapr's order). Each function with subtests runs once with all of them; a function without
// runs once per result. Subtest names are rewritten and made unique as go test does (spaces
// to '_', then "#01", "#02", ...). Times come from the measured loads.
func writeEvents(w io.Writer, runs []daprRun) error {
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b daprRun) int {
		return cmp.Or(cmp.Compare(a.Test.Pkg, b.Test.Pkg), cmp.Compare(a.Test.Order, b.Test.Order),
			cmp.Compare(a.Test.Func, b.Test.Func), cmp.Compare(a.SubOrder, b.SubOrder))
	})
	ew := &eventWriter{enc: json.NewEncoder(w)}
	ew.enc.SetEscapeHTML(false)
	for len(runs) > 0 {
		pkg := runs[0].Test.Pkg
		n := 1
		for n < len(runs) && runs[n].Test.Pkg == pkg {
			n++
		}
		if err := ew.pkg(daprPackagePrefix+pkg, runs[:n]); err != nil {
			return err
		}
		runs = runs[n:]
	}
	return ew.err
}

// eventWriter writes events, keeping the first error.
type eventWriter struct {
	enc *json.Encoder
	err error
}

func (ew *eventWriter) write(e event) {
	if ew.err == nil {
		ew.err = ew.enc.Encode(e)
	}
}

// output writes text as output events of test, one per line (lines longer than outputChunk in
// parts), at t.
func (ew *eventWriter) output(t time.Time, pkg, test, text string) {
	for line := range strings.Lines(text) {
		for len(line) > outputChunk {
			ew.write(event{Time: t, Action: "output", Package: pkg, Test: test, Output: line[:outputChunk]})
			line = line[outputChunk:]
		}
		ew.write(event{Time: t, Action: "output", Package: pkg, Test: test, Output: line})
	}
}

// end writes the "--- PASS"/"--- FAIL" line of test and its pass or fail event at t.
func (ew *eventWriter) end(t time.Time, elapsed float64, pkg, test, indent string, ok bool) {
	word, action := "PASS", "pass"
	if !ok {
		word, action = "FAIL", "fail"
	}
	ew.output(t, pkg, test, fmt.Sprintf("%s--- %s: %s (%.2fs)\n", indent, word, test, elapsed))
	ew.write(event{Time: t, Action: action, Package: pkg, Test: test, Elapsed: &elapsed})
}

// pkg writes one package: its start, its functions, its verdict.
func (ew *eventWriter) pkg(pkg string, runs []daprRun) error {
	all := spanOf(runs...)
	ew.write(event{Time: all.start, Action: "start", Package: pkg})
	ok := true
	var elapsed float64 // the functions' times: their results may come from runs far apart
	for len(runs) > 0 {
		n := 1
		if runs[0].Sub != "" { // a function with subtests: all of them in one run of it
			for n < len(runs) && runs[n].Test.Func == runs[0].Test.Func && runs[n].Sub != "" {
				n++
			}
		}
		fnOK, fnElapsed, err := ew.function(pkg, runs[:n])
		if err != nil {
			return err
		}
		ok = ok && fnOK
		elapsed += fnElapsed
		runs = runs[n:]
	}
	elapsed = seconds(elapsed)
	word, action := "ok  ", "pass"
	if !ok {
		word, action = "FAIL", "fail"
		ew.output(all.end, pkg, "", "FAIL\n")
	} else {
		ew.output(all.end, pkg, "", "PASS\n")
	}
	ew.output(all.end, pkg, "", fmt.Sprintf("%s\t%s\t%.3fs\n", word, pkg, elapsed))
	ew.write(event{Time: all.end, Action: action, Package: pkg, Elapsed: &elapsed})
	return ew.err
}

// function writes one run of a test function: the function alone (runs has one run without a
// subtest) or with its subtests; it returns whether it passed and its time in seconds (its
// load's, or its subtests' summed).
func (ew *eventWriter) function(pkg string, runs []daprRun) (bool, float64, error) {
	fn := runs[0].Test.Func
	sp := spanOf(runs...)
	ew.write(event{Time: sp.start, Action: "run", Package: pkg, Test: fn})
	ew.output(sp.start, pkg, fn, "=== RUN   "+fn+"\n")
	ok := true
	elapsed := sp.elapsed()
	if runs[0].Sub == "" {
		text, err := logText(runs[0])
		if err != nil {
			return false, 0, fmt.Errorf("%s: %s: %w", runs[0].Path, fn, err)
		}
		ew.output(sp.start, pkg, fn, text)
		ok = passed(runs[0].Source)
	} else {
		elapsed = 0
		names := map[string]int{}
		for _, r := range runs {
			name := uniqueName(names, fn+"/"+rewriteName(r.Sub))
			rs := spanOf(r)
			ew.write(event{Time: rs.start, Action: "run", Package: pkg, Test: name})
			ew.output(rs.start, pkg, name, "=== RUN   "+name+"\n")
			text, err := logText(r)
			if err != nil {
				return false, 0, fmt.Errorf("%s: %s: %w", r.Path, name, err)
			}
			ew.output(rs.start, pkg, name, text)
			subOK := passed(r.Source)
			ew.end(rs.end, rs.elapsed(), pkg, name, "    ", subOK)
			ok = ok && subOK
			elapsed += rs.elapsed()
		}
		elapsed = seconds(elapsed)
	}
	ew.end(sp.end, elapsed, pkg, fn, "", ok)
	return ok, elapsed, ew.err
}

// rewriteName is a subtest name as go test writes it: each space as '_', each unprintable rune
// as its Go escape (testing's rewrite).
func rewriteName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// uniqueName is name, or name#01, name#02, ... when already used, as go test names a repeated
// subtest; seen counts the uses.
func uniqueName(seen map[string]int, name string) string {
	for {
		next, used := seen[name]
		if !used {
			seen[name] = 1
			return name
		}
		seen[name] = next + 1
		name = fmt.Sprintf("%s#%02d", name, next)
	}
}

// span is when runs took place: the first load's start to the last load's end, or the result's
// start when no load is in a sample.
type span struct{ start, end time.Time }

func (s span) elapsed() float64 { return seconds(s.end.Sub(s.start).Seconds()) }

// seconds is s rounded to the millisecond.
func seconds(s float64) float64 { return math.Round(s*1000) / 1000 }

func spanOf(runs ...daprRun) span {
	var sp span
	add := func(start, end time.Time) {
		if sp.start.IsZero() || start.Before(sp.start) {
			sp.start = start
		}
		if end.After(sp.end) {
			sp.end = end
		}
	}
	for _, r := range runs {
		if r.Sample == nil {
			t := r.Source.Environment.StartTime
			add(t, t)
			continue
		}
		for _, res := range r.Sample.Results {
			add(res.StartTime, res.StartTime.Add(res.ActualDuration))
		}
	}
	return sp
}
