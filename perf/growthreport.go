package perf

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// GrowthReport is the memory-growth part of a Report.
type GrowthReport struct {
	Rounds           int `json:"rounds"`
	RequestsPerRound int `json:"requestsPerRound"`
	// IdleSeconds is the idle window after the last round, in seconds.
	IdleSeconds float64 `json:"idleSeconds"`
	// ThresholdKiBPer1000 is the growth threshold (KiB of RSS per 1,000 requests) and
	// ThresholdSource where it came from.
	ThresholdKiBPer1000 float64         `json:"thresholdKiBPer1000"`
	ThresholdSource     string          `json:"thresholdSource"`
	Variants            []VariantGrowth `json:"variants"`
}

// VariantGrowth is one variant's measurements, one entry per measured sidecar.
type VariantGrowth struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Sidecars    []SidecarGrowth `json:"sidecars"`
	// Errors counts failed requests over the rounds.
	Errors int64 `json:"errors"`
}

// SidecarGrowth is one sidecar's readings and their classification.
type SidecarGrowth struct {
	app     string // the app the sidecar belongs to
	Process string `json:"process"`
	Role    string `json:"role"`
	// Readings: before the first round, after each round, then after the idle window.
	Readings []GrowthReading `json:"readings"`
	// Idle are the RSS readings taken during the idle window.
	Idle   []GrowthPoint `json:"idle"`
	Growth Growth        `json:"growth"`
	// SeriesPerRequest is the growth of /metrics series per request over the rounds
	// (0 when the endpoint is off).
	SeriesPerRequest float64 `json:"seriesPerRequest"`
}

// GrowthReading is one measurement of a sidecar. RSS is read first: a scrape of a large
// /metrics inflates RSS for a while.
type GrowthReading struct {
	Label    string  `json:"label"` // "0", "3000", ..., "idle"
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	RSSBytes uint64  `json:"rssBytes"`
	// HeapInUseBytes is the Go heap in use from pprof; 0 when profiling is off.
	HeapInUseBytes uint64 `json:"heapInUseBytes"`
	// Series is the number of series on /metrics; -1 when the endpoint is off.
	Series int `json:"series"`
}

// loadPoints are the readings before and after each round, as growth points.
func (s SidecarGrowth) loadPoints() []GrowthPoint {
	var out []GrowthPoint
	for _, r := range s.Readings {
		if r.Label != "idle" {
			out = append(out, GrowthPoint{Requests: r.Requests, Seconds: r.Seconds, RSSBytes: r.RSSBytes})
		}
	}
	return out
}

// Verdict returns the growth verdict of variant's process, or "" when absent.
func (g *GrowthReport) Verdict(variant, process string) GrowthVerdict {
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

// GrowthTable renders the growth report: variant | sidecar | RSS (MiB) after 0, M, 2M, ...
// requests and after idle | series | slope (KiB/1000 requests) | R² | verdict.
func GrowthTable(g *GrowthReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory growth: %d rounds of %d requests, then %.0f s idle; threshold %.0f KiB/1000 requests (%s)\n",
		g.Rounds, g.RequestsPerRound, g.IdleSeconds, g.ThresholdKiBPer1000, g.ThresholdSource)
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
