package growth

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// FamilySeries parses a Prometheus text exposition (format 0.0.4, what daprd's /metrics
// serves) and returns the series count of each metric family, keyed by family name. A series
// is one sample a Prometheus server would store: 1 for a counter, gauge or untyped metric; for
// a histogram one per bucket (the +Inf bucket included) plus _sum and _count; for a summary
// one per quantile plus _sum and _count. Metric and label names are validated as UTF-8
// (model.UTF8Validation: prometheus/common v0.72's parser has no default scheme). Malformed
// text is an error carrying the parser's line number.
func FamilySeries(r io.Reader) (map[string]int, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("perf: parse /metrics: %w", err)
	}
	out := make(map[string]int, len(mfs))
	for name, mf := range mfs {
		n := 0
		for _, m := range mf.GetMetric() {
			n += metricSeries(m)
		}
		out[name] = n
	}
	return out, nil
}

// metricSeries is the number of samples m stands for in the text format.
func metricSeries(m *dto.Metric) int {
	switch {
	case m.Histogram != nil:
		h := m.GetHistogram()
		return len(h.GetBucket()) + present(h.SampleSum != nil) + present(h.SampleCount != nil || h.SampleCountFloat != nil)
	case m.Summary != nil:
		s := m.GetSummary()
		return len(s.GetQuantile()) + present(s.SampleSum != nil) + present(s.SampleCount != nil)
	default:
		return 1
	}
}

func present(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ScrapeFamilySeries fetches metricsURL + "/metrics" (a sidecar's metrics base URL) and returns
// FamilySeries of it.
func ScrapeFamilySeries(ctx context.Context, metricsURL string) (map[string]int, error) {
	body, err := get(ctx, metricsURL+"/metrics")
	if err != nil {
		return nil, err
	}
	defer body.Close()
	fams, err := FamilySeries(body)
	if err != nil {
		return nil, fmt.Errorf("%s/metrics: %w", metricsURL, err)
	}
	return fams, nil
}

// ProcessRSSMetric is the gauge of a process's resident set size, in bytes, that the Prometheus
// Go client's process collector exports (read from /proc/self/stat, the figure the local
// platform reads from /proc/<pid>); daprd's /metrics serves it.
const ProcessRSSMetric = "process_resident_memory_bytes"

// ProcessRSS returns the ProcessRSSMetric gauge of a Prometheus text exposition, in bytes. An
// exposition without it, or with it not a single gauge, is an error naming the metric.
func ProcessRSS(r io.Reader) (uint64, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		return 0, fmt.Errorf("perf: parse /metrics: %w", err)
	}
	mf, ok := mfs[ProcessRSSMetric]
	if !ok {
		return 0, fmt.Errorf("perf: /metrics has no %s (the process collector is off)", ProcessRSSMetric)
	}
	if mf.GetType() != dto.MetricType_GAUGE || len(mf.GetMetric()) != 1 {
		return 0, fmt.Errorf("perf: /metrics: %s is %s with %d series, want one gauge", ProcessRSSMetric, mf.GetType(), len(mf.GetMetric()))
	}
	v := mf.GetMetric()[0].GetGauge().GetValue()
	if v < 0 {
		return 0, fmt.Errorf("perf: /metrics: %s is %g, want >= 0", ProcessRSSMetric, v)
	}
	return uint64(v), nil
}

// ScrapeProcessRSS fetches metricsURL + "/metrics" (a sidecar's metrics base URL) and returns
// ProcessRSS of it, in bytes.
func ScrapeProcessRSS(ctx context.Context, metricsURL string) (uint64, error) {
	body, err := get(ctx, metricsURL+"/metrics")
	if err != nil {
		return 0, err
	}
	defer body.Close()
	rss, err := ProcessRSS(body)
	if err != nil {
		return 0, fmt.Errorf("%s/metrics: %w", metricsURL, err)
	}
	return rss, nil
}

// TotalSeries is the sum of the counts in fams.
func TotalSeries(fams map[string]int) int {
	n := 0
	for _, c := range fams {
		n += c
	}
	return n
}

// FamilyGrowth is one metric family's series count from the first reading of a sidecar to
// its last (the idle reading, which holds the last round's series).
type FamilyGrowth struct {
	Family string `json:"family"`
	First  int    `json:"first"`
	Last   int    `json:"last"`
	// PerRequest is (Last - First) / the requests between the two readings: with a new path per
	// request, the series each distinct path adds to this family. TailPerRequest is the same
	// from the second scraped reading (after the first round) to the last: a family that only
	// stepped up in the first round (one new label set) has PerRequest > 0 and TailPerRequest 0.
	PerRequest     float64 `json:"perRequest"`
	TailPerRequest float64 `json:"tailPerRequest"`
}

// GrowsWithPaths reports whether the family kept growing after the first round, by at least
// SeriesFlatPerRequest series per request.
func (f FamilyGrowth) GrowsWithPaths() bool { return f.TailPerRequest >= SeriesFlatPerRequest }

// perRequest is the series growth per request from a to b; 0 when no request ran between.
func perRequest(a, b int, ra, rb int64) float64 {
	if rb <= ra {
		return 0
	}
	return float64(b-a) / float64(rb-ra)
}

// familyGrowth returns the families whose series count differs between the first and the last
// of readings that have families (a family absent from a reading counts 0), the largest
// growth first, then by name. Nil when fewer than two readings scraped /metrics.
func familyGrowth(readings []Reading) []FamilyGrowth {
	var scraped []Reading
	for _, r := range readings {
		if r.Families != nil {
			scraped = append(scraped, r)
		}
	}
	if len(scraped) < 2 {
		return nil
	}
	first, second, last := scraped[0], scraped[1], scraped[len(scraped)-1]
	names := map[string]bool{}
	for name := range first.Families {
		names[name] = true
	}
	for name := range last.Families {
		names[name] = true
	}
	var out []FamilyGrowth
	for _, name := range slices.Sorted(maps.Keys(names)) {
		f := FamilyGrowth{Family: name, First: first.Families[name], Last: last.Families[name]}
		if f.First == f.Last {
			continue
		}
		f.PerRequest = perRequest(f.First, f.Last, first.Requests, last.Requests)
		if len(scraped) > 2 {
			f.TailPerRequest = perRequest(second.Families[name], f.Last, second.Requests, last.Requests)
		}
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b FamilyGrowth) int { return cmp.Compare(b.Last-b.First, a.Last-a.First) })
	return out
}

// DeriveSeries sets the sidecar's series growth from its readings (the first before any
// request, the last after the idle window, which holds the last round's series):
// SeriesPerRequest over all of them, SeriesTailPerRequest from the reading after the first
// round (with more than three readings), and FamilyGrowth per metric family. Unscraped
// readings (Series < 0) leave them zero.
func (s *Sidecar) DeriveSeries() {
	if len(s.Readings) < 2 {
		return
	}
	first, last := s.Readings[0], s.Readings[len(s.Readings)-1]
	if first.Series >= 0 && last.Series >= 0 {
		s.SeriesPerRequest = perRequest(first.Series, last.Series, first.Requests, last.Requests)
		if second := s.Readings[1]; len(s.Readings) > 3 && second.Series >= 0 {
			s.SeriesTailPerRequest = perRequest(second.Series, last.Series, second.Requests, last.Requests)
		}
	}
	s.FamilyGrowth = familyGrowth(s.Readings)
}
