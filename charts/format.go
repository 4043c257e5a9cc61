package charts

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// writeTable writes a Markdown table. align has one letter per column, r for right-aligned
// (figures), anything else for left; missing letters mean right.
func writeTable(b *strings.Builder, header []string, align string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i >= len(align) || align[i] == 'r' {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}

// cell escapes text for a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func latencyCell(d time.Duration, ok bool) string {
	if !ok {
		return "n/a"
	}
	return fmtLatency(d.Seconds())
}

func overheadCell(o perf.Overhead, ok bool) string {
	if !ok {
		return "n/a"
	}
	s := fmtSignedMs(o.MedianSeconds) + " ms"
	if o.HasInterval {
		s += fmt.Sprintf(" [%s, %s]", fmtSignedMs(o.LowSeconds), fmtSignedMs(o.HighSeconds))
	}
	return s
}

func sidecarCell(rep *perf.Report, role string) string {
	r, ok := resourceOf(rep, role)
	if !ok {
		return "n/a"
	}
	if r.NoReadings() {
		return "no readings"
	}
	return fmt.Sprintf("%.0f mCPU / %.1f MiB", 1e3*r.MeanCPUCores, float64(r.PeakRSSBytes)/(1<<20))
}

// fmtLatency writes seconds in ms with 3 decimals below 1 s ("867.514 ms"), and in seconds
// with 3 decimals from 1 s on ("1.868 s"), where four digits of milliseconds stop being read
// at a glance.
func fmtLatency(s float64) string {
	if s >= 1 || s <= -1 {
		return fmt.Sprintf("%.3f s", s)
	}
	return fmt.Sprintf("%.3f ms", s*1e3)
}

// fmtSignedMs formats seconds as signed milliseconds with µs precision: "+1.060".
func fmtSignedMs(s float64) string { return fmt.Sprintf("%+.3f", s*1e3) }

func fmtQPS(q float64) string { return fmt.Sprintf("%.2f", q) }

// fmtSuccess is the share of requests that did not fail, never rounded up to 100 %.
func fmtSuccess(requests, errs int64) string {
	switch {
	case requests == 0:
		return "no requests"
	case errs == 0:
		return "100 %"
	}
	pct := math.Floor((1-float64(errs)/float64(requests))*100*1000) / 1000
	return fmt.Sprintf("%.3f %%", pct)
}

// fmtCount writes n with thousands separators: 60,000.
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "not recorded"
	}
	return t.UTC().Format(time.DateTime) + " UTC"
}

func cpuText(env perf.Environment) string {
	switch {
	case env.CPUModel == "" && env.CPUs == 0:
		return "not recorded"
	case env.CPUs == 0:
		return env.CPUModel
	}
	return fmt.Sprintf("%s × %d", orNone(env.CPUModel), env.CPUs)
}

func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func transportName(p perf.Protocol) string {
	switch p {
	case perf.HTTP:
		return "HTTP"
	case perf.GRPC:
		return "gRPC"
	}
	return string(p)
}

// resultWord is "pass", "FAIL" or "FAIL (invalid)"; a pass that missed warn-only bounds says
// so, counted as report.Headline counts them: "pass, 1 of Dapr's bounds missed (warn only)".
func resultWord(rep *perf.Report) string {
	switch {
	case !rep.Validity.Valid:
		return "FAIL (invalid)"
	case !rep.Pass:
		return "FAIL"
	}
	return "pass" + strings.TrimPrefix(report.Headline(rep), "PASS")
}

// missedWarnOnly are the warn-only bounds a passing run missed, each as its verdict reads;
// none for a run that failed (its banner says FAIL already).
func missedWarnOnly(rep *perf.Report) []string {
	if !rep.Pass || !rep.Validity.Valid {
		return nil
	}
	var out []string
	for _, v := range report.MissedWarnOnly(rep) {
		out = append(out, v.String())
	}
	return out
}

func resultSentence(rep *perf.Report) string {
	passed, gating := 0, 0
	for _, v := range rep.Verdicts {
		if v.WarnOnly {
			continue
		}
		gating++
		if v.Pass {
			passed++
		}
	}
	valid := "valid run"
	if !rep.Validity.Valid {
		valid = "invalid run"
	}
	valid = strings.ToUpper(valid[:1]) + valid[1:]
	if gating == 0 {
		return valid + "; no gating verdicts."
	}
	return fmt.Sprintf("%s; %d of %d gating verdicts passed.", valid, passed, gating)
}

// validityText is "valid", or "INVALID" with the number of reasons, for a comparison line.
func validityText(rep *perf.Report) string {
	if rep.Validity.Valid {
		return "valid"
	}
	return fmt.Sprintf("INVALID (%s; see its README)", plural(len(rep.Validity.Reasons), "reason"))
}
