package growth

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Report is the memory-growth part of a Report.
type Report struct {
	Rounds           int `json:"rounds"`
	RequestsPerRound int `json:"requestsPerRound"`
	// IdleSeconds is the idle window after the last round, in seconds.
	IdleSeconds float64 `json:"idleSeconds"`
	// ThresholdKiBPer1000 is the growth threshold (KiB of RSS per 1,000 requests) and
	// ThresholdSource where it came from (Threshold.Text); Threshold is its derivation (nil in
	// result files written before it was recorded).
	ThresholdKiBPer1000 float64              `json:"thresholdKiBPer1000"`
	ThresholdSource     string               `json:"thresholdSource"`
	Threshold           *ThresholdDerivation `json:"threshold,omitempty"`
	// Variants are the variants that ran, in the scenario's order (-run may select some).
	Variants []Variant `json:"variants"`
	// Checks are the detector's own checks (RunChecks); a failed one fails the run.
	Checks []Check `json:"checks,omitempty"`
	// Expectations compares the verdicts with the expected-verdicts table; nil without one.
	Expectations *ExpectationCheck `json:"expectations,omitempty"`
}

// Variant is one variant's measurements, one entry per measured sidecar.
type Variant struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Control is set on the control variant; UniquePath when every request had a new path.
	Control    bool      `json:"control,omitempty"`
	UniquePath bool      `json:"uniquePath,omitempty"`
	Sidecars   []Sidecar `json:"sidecars"`
	// RSSSource is where the sidecars' RSS readings came from: "platform" (the platform's
	// process usage: /proc on the local platform) or "daprd metrics" (each sidecar's own
	// process_resident_memory_bytes, where the platform only samples: kubernetes). Empty in
	// result files written before it was recorded.
	RSSSource string `json:"rssSource,omitempty"`
	// Errors counts failed requests over the rounds.
	Errors int64 `json:"errors"`
}

// Sidecar is one sidecar's readings and their classification.
type Sidecar struct {
	Process string `json:"process"`
	Role    string `json:"role"`
	// Readings: before the first round, after each round, then after the idle window.
	Readings []Reading `json:"readings"`
	// Idle are the RSS readings taken during the idle window.
	Idle   []Point        `json:"idle"`
	Growth Classification `json:"growth"`
	// SeriesPerRequest is the growth of /metrics series per request over the rounds
	// (0 when the endpoint is off).
	SeriesPerRequest float64 `json:"seriesPerRequest"`
	// SeriesTailPerRequest is the same from the reading after the first round to the last
	// (0 with fewer than three scraped readings), as the tail slope is for RSS.
	SeriesTailPerRequest float64 `json:"seriesTailPerRequest"`
	// FamilyGrowth lists the metric families whose series count changed over the rounds,
	// largest growth first (empty when none did or the endpoint is off).
	FamilyGrowth []FamilyGrowth `json:"familyGrowth,omitempty"`
	// HeapGrowthBytes is how much the Go heap in use grew from the first reading to the last
	// (pprof heap profiles' inuse_space, each as of the garbage collection before it), and
	// HeapSites the allocation sites that grew the most, largest first: where the memory that
	// stayed was allocated. Both empty when profiling is off.
	HeapGrowthBytes int64      `json:"heapGrowthBytes,omitempty"`
	HeapSites       []HeapSite `json:"heapSites,omitempty"`
}

// HeapSite is one allocation site whose heap in use grew over a variant's rounds: the function
// that allocated, the first of daprd's own functions on its stack above it (Via; empty when the
// function is daprd's or none is), and the bytes in use it added.
type HeapSite struct {
	Function string `json:"function"`
	Via      string `json:"via,omitempty"`
	Bytes    int64  `json:"bytes"`
}

// Reading is one measurement of a sidecar. RSS is read first: a scrape of a large
// /metrics inflates RSS for a while.
type Reading struct {
	Label    string  `json:"label"` // "0", "3000", ..., "idle"
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	RSSBytes uint64  `json:"rssBytes"`
	// HeapInUseBytes is the Go heap in use from pprof; 0 when profiling is off.
	HeapInUseBytes uint64 `json:"heapInUseBytes"`
	// Series is the number of series on /metrics; -1 when the endpoint is off or, for the
	// reading after the last round, not scraped (see GrowthPlan).
	Series int `json:"series"`
	// Families is the series count of each metric family on /metrics (FamilySeries), summing
	// to Series; nil when Series is -1.
	Families map[string]int `json:"families,omitempty"`
}

// LoadPoints are the readings before and after each round, as growth points.
func (s Sidecar) LoadPoints() []Point {
	var out []Point
	for _, r := range s.Readings {
		if r.Label != "idle" {
			out = append(out, Point{Requests: r.Requests, Seconds: r.Seconds, RSSBytes: r.RSSBytes})
		}
	}
	return out
}

// Verdict returns the growth verdict of variant's process, or "" when absent.
func (g *Report) Verdict(variant, process string) Verdict {
	for _, v := range g.Variants {
		if v.Name != variant {
			continue
		}
		for _, s := range v.Sidecars {
			if s.Process == process {
				return s.Growth.Verdict
			}
		}
	}
	return ""
}

// Table renders the growth report: variant | sidecar | RSS (MiB) after 0, M, 2M, ...
// requests and after idle | series | slope (KiB/1000 requests) | R² | verdict.
func Table(g *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory growth: %d rounds of %d requests, then %.0f s idle; threshold %.0f KiB/1000 requests (derivation below the tables)\n",
		g.Rounds, g.RequestsPerRound, g.IdleSeconds, g.ThresholdKiBPer1000)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "variant\tsidecar\t")
	for i := 0; i <= g.Rounds; i++ {
		fmt.Fprintf(w, "RSS@%d (MiB)\t", i*g.RequestsPerRound)
	}
	fmt.Fprintln(w, "RSS idle (MiB)\tGo heap 0 -> last (MiB)\tseries 0 -> last\tseries/request\tslope (KiB/1000)\tR²\tverdict\t")
	for _, v := range g.Variants {
		for _, s := range v.Sidecars {
			fmt.Fprintf(w, "%s\t%s\t", v.Name, s.Role)
			for _, r := range s.Readings {
				fmt.Fprintf(w, "%.1f\t", float64(r.RSSBytes)/(1<<20))
			}
			series, heap := "off", "off"
			if n := len(s.Readings); n > 0 && s.Readings[0].Series >= 0 {
				series = fmt.Sprintf("%d -> %d", s.Readings[0].Series, s.Readings[n-1].Series)
			}
			if n := len(s.Readings); n > 0 && s.Readings[0].HeapInUseBytes > 0 {
				heap = fmt.Sprintf("%.1f -> %.1f", float64(s.Readings[0].HeapInUseBytes)/(1<<20), float64(s.Readings[n-1].HeapInUseBytes)/(1<<20))
			}
			verdict := string(s.Growth.Verdict)
			if s.Growth.GrowsWhenIdle {
				verdict += ", GROWS WHEN IDLE"
			}
			fmt.Fprintf(w, "%s\t%s\t%.2f\t%.0f\t%.2f\t%s\t\n", heap, series, s.SeriesPerRequest, s.Growth.SlopeKiBPer1000, s.Growth.R2, verdict)
		}
	}
	_ = w.Flush()
	return b.String()
}

// FamilyTable renders the series count of each metric family per scraped reading,
// per variant and sidecar, for the families whose count changed; the families that did not
// change are summed on one line per sidecar (every count is in the result file).
func FamilyTable(g *Report) string {
	var b strings.Builder
	b.WriteString("/metrics series per family (families that changed; reading after 0, M, ... requests, idle = the last round's):\n")
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "variant\tsidecar\tfamily\tseries at reading\tchange\tper request\tafter round 1\t")
	for _, v := range g.Variants {
		for _, s := range v.Sidecars {
			var scraped []Reading
			for _, r := range s.Readings {
				if r.Families != nil {
					scraped = append(scraped, r)
				}
			}
			if len(scraped) == 0 {
				fmt.Fprintf(w, "%s\t%s\t(no /metrics)\t\t\t\n", v.Name, s.Role)
				continue
			}
			changed := map[string]bool{}
			for _, f := range s.FamilyGrowth {
				changed[f.Family] = true
				counts := make([]string, len(scraped))
				for i, r := range scraped {
					counts[i] = fmt.Sprintf("%s:%d", r.Label, r.Families[f.Family])
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%+d\t%+.3f\t%+.3f\t\n", v.Name, s.Role, f.Family, strings.Join(counts, " "),
					f.Last-f.First, f.PerRequest, f.TailPerRequest)
			}
			last := scraped[len(scraped)-1].Families
			n, series := 0, 0
			for name, c := range last {
				if !changed[name] {
					n++
					series += c
				}
			}
			fmt.Fprintf(w, "%s\t%s\t(%d families unchanged)\t%d series\t\t\t\t\n", v.Name, s.Role, n, series)
		}
	}
	_ = w.Flush()
	return b.String()
}

// Findings renders the threshold's derivation, the families that grow with distinct
// paths (per distinct-path variant and sidecar), the detector's checks and the comparison
// with the expected verdicts.
func Findings(g *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "threshold: %.0f KiB of RSS per 1,000 requests = %s\n", g.ThresholdKiBPer1000, g.ThresholdSource)
	b.WriteString("families that grow with distinct paths (series added per distinct path):\n")
	ran := false
	for _, v := range g.Variants {
		if !v.UniquePath {
			continue
		}
		for _, s := range v.Sidecars {
			ran = true
			var fams, stepped []string
			for _, f := range s.FamilyGrowth {
				switch {
				case f.GrowsWithPaths():
					fams = append(fams, fmt.Sprintf("%s %+.2f", f.Family, f.PerRequest))
				case f.Last > f.First:
					stepped = append(stepped, fmt.Sprintf("%s %+d", f.Family, f.Last-f.First))
				}
			}
			steps := ""
			if len(stepped) > 0 {
				steps = "; stepped up once, then flat: " + strings.Join(stepped, ", ")
			}
			switch {
			case len(s.Readings) > 0 && s.Readings[0].Series < 0:
				fmt.Fprintf(&b, "  %s %s: no /metrics endpoint\n", v.Name, s.Role)
			case len(fams) == 0:
				fmt.Fprintf(&b, "  %s %s: none%s\n", v.Name, s.Role, steps)
			default:
				fmt.Fprintf(&b, "  %s %s (%+.2f in all): %s%s\n", v.Name, s.Role, s.SeriesPerRequest, strings.Join(fams, ", "), steps)
			}
		}
	}
	if !ran {
		b.WriteString("  (no distinct-path variant ran)\n")
	}
	heapSiteLines(&b, g)
	b.WriteString("detector checks:\n")
	for _, c := range g.Checks {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if e := g.Expectations; e != nil {
		fmt.Fprintf(&b, "expected verdicts (%s, daprd %s): %d as expected, %d changed, %d not in the table\n",
			e.Table, e.Version, e.Matched, len(e.Changes), len(e.New))
		for _, c := range e.Changes {
			fmt.Fprintf(&b, "  CHANGED VERDICT %s\n", c)
		}
		if len(e.New) > 0 {
			b.WriteString("  rows to add once checked:\n")
		}
		for _, n := range e.New {
			fmt.Fprintf(&b, "    %s\n", n.CSV())
		}
	}
	return b.String()
}

// heapSitesNamed is how many allocation sites the findings name per growing sidecar.
const heapSitesNamed = 3

// heapSiteLines writes, for each sidecar classified growing that has heap profiles, where its
// heap in use grew: the net growth and the largest sites, each with the daprd function that led
// there. A sidecar that is not growing names none: a site is a finding only behind a growth.
func heapSiteLines(b *strings.Builder, g *Report) {
	var lines []string
	for _, v := range g.Variants {
		for _, s := range v.Sidecars {
			if s.Growth.Verdict != Growing || len(s.HeapSites) == 0 {
				continue
			}
			var sites []string
			for _, h := range s.HeapSites[:min(heapSitesNamed, len(s.HeapSites))] {
				site := fmt.Sprintf("%s %+.1f MiB", h.Function, float64(h.Bytes)/(1<<20))
				if h.Via != "" {
					site += " (via " + h.Via + ")"
				}
				sites = append(sites, site)
			}
			lines = append(lines, fmt.Sprintf("  %s %s (heap in use %+.1f MiB): %s\n", v.Name, s.Role, float64(s.HeapGrowthBytes)/(1<<20), strings.Join(sites, "; ")))
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("where the growing sidecars' heap grew (pprof inuse_space, first reading to last):\n")
	for _, l := range lines {
		b.WriteString(l)
	}
}
