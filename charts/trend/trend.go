// Package trend draws the trend page of a history of runs: for each scenario and figure, the
// series of runs on one machine and load, each run's median with the interval of its rounds,
// the change points marked with the builds either side, and a line that says what the last run
// showed, first.
//
//	page := trend.Page{Title: "Nightly runs", Finding: "...", Sections: ...}
//	err := trend.Write("reports/history/index.html", page)
//
// The page is one HTML file with its charts inline as SVG (gonum/plot), so that it can be
// copied or attached whole.
package trend

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Page is a trend page.
type Page struct {
	Title string
	// Finding is the page's first line: what the last run showed, in a sentence.
	Finding string
	// Alarm marks the finding as a regression (a red banner) rather than news (a neutral one).
	Alarm bool
	// Notes are lines shown under the finding: the machine, the rule, runs left out.
	Notes    []string
	Sections []Section
}

// Section is one scenario's charts.
type Section struct {
	Title  string
	Charts []Chart
}

// Chart is one figure's series.
type Chart struct {
	// Title names the figure; Unit is its unit as the history stores it: "s", "bytes", "µs"
	// or "requests/s" (seconds and bytes are shown in ms and MiB).
	Title, Unit string
	// Finding says what the last run showed for this figure ("regressed: +12 % [+8 %, +15 %]
	// against the 6 runs before it").
	Finding string
	Alarm   bool
	Points  []Point
	Changes []Change
}

// Point is one run of a series.
type Point struct {
	RunID   string
	Time    time.Time
	Version string
	// Median is the run's figure; Rounds its value in each round (empty when the plan has
	// none). The chart draws the range of the rounds as the run's interval.
	Median float64
	Rounds []float64
}

// Change is a change point: the first run after it, and what changed.
type Change struct {
	Index int
	// Text is its label: "1.16.5 → 1.17.5: +34 %, p = 0.001".
	Text string
}

// Write renders p as one HTML file at path, creating its folder.
func Write(path string, p Page) error {
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style></head><body>\n", html.EscapeString(p.Title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(p.Title))
	class := "finding"
	if p.Alarm {
		class += " alarm"
	}
	fmt.Fprintf(&b, "<p class=\"%s\">%s</p>\n", class, html.EscapeString(p.Finding))
	if len(p.Notes) > 0 {
		b.WriteString("<ul class=\"notes\">\n")
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "<li>%s</li>\n", html.EscapeString(n))
		}
		b.WriteString("</ul>\n")
	}
	if len(p.Sections) > 1 {
		b.WriteString("<nav>")
		for i, s := range p.Sections {
			fmt.Fprintf(&b, "<a href=\"#s%d\">%s</a> ", i, html.EscapeString(s.Title))
		}
		b.WriteString("</nav>\n")
	}
	for i, s := range p.Sections {
		fmt.Fprintf(&b, "<h2 id=\"s%d\">%s</h2>\n<div class=\"grid\">\n", i, html.EscapeString(s.Title))
		for _, c := range s.Charts {
			svg, err := chartSVG(c)
			if err != nil {
				return fmt.Errorf("trend: %s, %s: %w", s.Title, c.Title, err)
			}
			class := "chart"
			if c.Alarm {
				class += " alarm"
			}
			fmt.Fprintf(&b, "<figure class=\"%s\"><figcaption><b>%s</b>: %s</figcaption>\n%s</figure>\n",
				class, html.EscapeString(c.Title), html.EscapeString(c.Finding), svg)
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</body></html>\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("trend: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("trend: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("trend: %w", err)
	}
	return nil
}

const css = `body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px;color:#222}
h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
.finding{font-size:1.1em;padding:.6em .8em;background:#eef3f8;border-left:5px solid #4a78a8}
.finding.alarm{background:#fbeaea;border-left-color:#c0392b}
.notes{color:#555;font-size:.9em}nav a{margin-right:1em}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(620px,1fr));gap:1em}
figure{margin:0;padding:.4em;border:1px solid #e3e3e3}figure.alarm{border-color:#c0392b}
figcaption{font-size:.9em;margin-bottom:.3em}svg{width:100%;height:auto}`

// display is how a unit is shown: the factor from the stored unit and the shown unit's name.
func display(unit string, values []float64) (factor float64, shown string) {
	switch unit {
	case "s":
		top := 0.0
		for _, v := range values {
			top = math.Max(top, math.Abs(v))
		}
		if top >= 1 {
			return 1, "s"
		}
		return 1e3, "ms"
	case "bytes":
		return 1.0 / (1 << 20), "MiB"
	}
	return 1, unit
}

// label is a run's label on the x axis: its version, then its date when the series spans days,
// or its time of day when it does not.
func label(p Point, days bool) string {
	v := strings.TrimPrefix(p.Version, "v")
	switch {
	case p.Time.IsZero():
		return v
	case days:
		return v + " " + p.Time.UTC().Format("01-02")
	}
	return v + " " + p.Time.UTC().Format("15:04")
}
