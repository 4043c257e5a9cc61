// Package hdr records request latencies with a fixed relative precision, so that tail
// percentiles are read off the data instead of interpolated inside coarse buckets.
//
// A Histogram is an HdrHistogram (github.com/HdrHistogram/hdrhistogram-go) of durations in
// nanoseconds, from 1 ns to 1 h, with 3 significant digits: every value is kept within 1/1024
// (0.098 %) of itself. Beside the counts it keeps the exact minimum, maximum, sum and sum of
// squares, so the mean and the extremes are exact and percentiles can be clamped to the range
// really observed.
//
//	h := hdr.New()
//	h.Record(1500 * time.Microsecond)
//	p99 := h.Percentile(99)     // 1.5ms
//	enc, _ := h.Encode()        // compact text for a result file
//	back, _ := hdr.Decode(enc, h.Min(), h.Max())
//
// A Histogram is not safe for concurrent use; give each goroutine its own and Merge them.
package hdr

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The histogram's geometry: the range runs from Lowest to Highest nanoseconds, and values are
// kept to SignificantDigits decimal digits (relative error below 1/1024, HdrHistogram's
// sub-bucket count 2048 for 3 digits).
const (
	SignificantDigits = 3
	Lowest            = int64(1)
	Highest           = int64(time.Hour)
)

// MaxRelativeError is the largest relative error of a recorded value: a value v is reported
// as the highest value of its sub-bucket, at most v x (1 + MaxRelativeError).
const MaxRelativeError = 1.0 / 1024

// Histogram is a latency histogram with exact extremes and moments.
type Histogram struct {
	h          *hdrhistogram.Histogram
	min, max   time.Duration
	sum, sumSq float64 // seconds and seconds squared, for the exact mean and standard deviation
	clamped    int64   // values above Highest, recorded as Highest
}

// New returns an empty Histogram (about 270 KB of counts).
func New() *Histogram {
	return &Histogram{h: hdrhistogram.New(Lowest, Highest, SignificantDigits)}
}

// Record adds one latency. A negative d counts as 0; one above Highest is recorded as Highest
// and counted by Clamped.
func (h *Histogram) Record(d time.Duration) {
	d = max(d, 0)
	if h.h.TotalCount() == 0 || d < h.min {
		h.min = d
	}
	h.max = max(h.max, d)
	s := d.Seconds()
	h.sum += s
	h.sumSq += s * s
	v := int64(d)
	if v > Highest {
		v = Highest
		h.clamped++
	}
	_ = h.h.RecordValue(v) // cannot fail: v is in [0, Highest]
}

// Merge adds every value of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.Count() == 0 {
		return
	}
	if h.Count() == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.sum += o.sum
	h.sumSq += o.sumSq
	h.clamped += o.clamped
	h.h.Merge(o.h)
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Clamped is the number of values above Highest that were recorded as Highest.
func (h *Histogram) Clamped() int64 { return h.clamped }

// Min and Max are the exact extremes (0 when empty).
func (h *Histogram) Min() time.Duration { return h.min }

// Max is the exact largest value recorded.
func (h *Histogram) Max() time.Duration { return h.max }

// MeanSeconds is the exact mean in seconds (0 when empty). After Decode it is 0: the encoding
// keeps only the counts, so a result file stores the mean beside it.
func (h *Histogram) MeanSeconds() float64 {
	if n := h.Count(); n > 0 {
		return h.sum / float64(n)
	}
	return 0
}

// StdDevSeconds is the exact population standard deviation in seconds (0 after Decode).
func (h *Histogram) StdDevSeconds() float64 {
	n := float64(h.Count())
	if n == 0 {
		return 0
	}
	mean := h.sum / n
	return math.Sqrt(max(h.sumSq/n-mean*mean, 0))
}

// Percentile returns the latency at percentile p (0 < p < 100) by the nearest-rank rule: the
// k-th smallest value with k = max(1, floor(p/100 x n + 0.5)), n the count (HdrHistogram's
// rank rule), reported as the top of that value's sub-bucket and clamped to [Min, Max]. So
// it is never below the exact order statistic and at most MaxRelativeError above it. It
// returns 0 for an empty histogram.
func (h *Histogram) Percentile(p float64) time.Duration {
	if h.Count() == 0 {
		return 0
	}
	v := time.Duration(h.h.ValueAtPercentile(p))
	return min(max(v, h.min), h.max)
}

// Bar is one sub-bucket of the histogram: Count values in [From, To].
type Bar struct {
	From, To time.Duration
	Count    int64
}

// Bars returns the non-empty sub-buckets in ascending order.
func (h *Histogram) Bars() []Bar {
	var out []Bar
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			out = append(out, Bar{From: time.Duration(b.From), To: time.Duration(b.To), Count: b.Count})
		}
	}
	return out
}

// Encode returns the counts in HdrHistogram's V2 compressed encoding, base64 text: readable by
// every HdrHistogram implementation, and typically a few KB for a load run.
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("hdr: encode: %w", err)
	}
	return string(b), nil
}

// Decode reads what Encode wrote. minimum and maximum are the exact extremes stored beside
// the encoding (a Histogram then clamps its percentiles to them); the mean and standard
// deviation of the result are 0. It fails on text that is not such an encoding, or whose
// geometry is not this package's.
func Decode(s string, minimum, maximum time.Duration) (*Histogram, error) {
	if s == "" {
		return nil, errors.New("hdr: decode: empty encoding")
	}
	d, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("hdr: decode: %w", err)
	}
	if d.SignificantFigures() != SignificantDigits || d.HighestTrackableValue() < Highest {
		return nil, fmt.Errorf("hdr: decode: geometry %d digits up to %d ns: want %d digits up to at least %d ns",
			d.SignificantFigures(), d.HighestTrackableValue(), SignificantDigits, Highest)
	}
	return &Histogram{h: d, min: minimum, max: maximum}, nil
}
