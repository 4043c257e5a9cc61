package main

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/daprperf/daprperf/perf"
)

// deliveryTimelineChart: a delivery run second by second on one clock. Above, the delivery
// latency of each second's messages at p50 (solid) and p99 (dashed); below, the messages
// received per second (duplicates apart) against those published per second: each second's
// publish requests times the messages a request carried on average (sent / requests). Nil for
// a run whose subscriber kept no timeline (files written before it).
func deliveryTimelineChart(rep *perf.Report) (*figure, error) {
	dr := rep.Delivery
	if dr == nil || len(dr.Timeline) == 0 {
		return nil, nil
	}
	var pub *perf.Result
	for i := range rep.Loads {
		if len(rep.Loads[i].Timeline) > 0 {
			pub = &rep.Loads[i].Result
			break
		}
	}
	t0 := dr.TimelineStart
	if pub != nil && pub.StartTime.Before(t0) {
		t0 = pub.StartTime
	}
	msgs := "messages"
	if dr.Mode == perf.SubscribeConfiguration {
		msgs = "updates"
	}
	largest := 0.0
	for _, s := range dr.Timeline {
		largest = max(largest, s.P99Seconds)
	}
	u := latencyUnit(largest)
	fig := twoPanel(fmt.Sprintf("%s: second by second, delivery latency p50 (solid) and p99 (dashed) of the %s received in each second", heading(rep), msgs),
		fmt.Sprintf("%s received and published per second", msgs))
	fig.Plot.Y.Label.Text = "delivery latency (" + u.Name + ")"
	fig.Plot.Y.Min, fig.Plot.Y.Max = 0, math.Max(largest*u.PerSecond*1.15, 1e-9)
	fig.Below.X.Label.Text = "seconds since the publishing started"
	fig.Below.Y.Label.Text = msgs + " per second"
	fig.Below.Y.Min = 0
	fig.Below.Legend.Top = true
	at := func(start time.Time, k int) float64 { return start.Sub(t0).Seconds() + float64(k) + 0.5 }
	var p50, p99, recv, dups plotter.XYs
	for _, s := range dr.Timeline {
		x := at(dr.TimelineStart, s.T)
		if s.Requests-s.Errors > 0 {
			p50 = append(p50, plotter.XY{X: x, Y: s.P50Seconds * u.PerSecond})
			p99 = append(p99, plotter.XY{X: x, Y: s.P99Seconds * u.PerSecond})
		}
		recv = append(recv, plotter.XY{X: x, Y: float64(s.Requests - s.Errors)})
		if s.Errors > 0 {
			dups = append(dups, plotter.XY{X: x, Y: float64(s.Errors)})
		}
	}
	for i, xys := range []plotter.XYs{p50, p99} {
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = mainColor, vg.Points(2)
		name := "p50"
		if i == 1 {
			l.Dashes, l.Width, name = []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.5), "p99"
		}
		fig.add(name, l)
	}
	series := []struct {
		name string
		xys  plotter.XYs
		c    int
	}{{msgs + " received", recv, 1}, {"duplicates", dups, 3}}
	if pub != nil && pub.Requests > 0 && dr.Sent > 0 {
		per := float64(dr.Sent) / float64(pub.Requests)
		var sent plotter.XYs
		for _, s := range pub.Timeline {
			if float64(s.T+1) <= pub.ActualDuration.Seconds()+1e-9 { // whole seconds only
				sent = append(sent, plotter.XY{X: at(pub.StartTime, s.T), Y: float64(s.Requests) * per})
			}
		}
		name := msgs + " published"
		if per != 1 {
			name = fmt.Sprintf("%s published (%.0f a request)", msgs, per)
		}
		series = append(series, struct {
			name string
			xys  plotter.XYs
			c    int
		}{name, sent, 0})
	}
	end := 1.0
	for _, sr := range series {
		if len(sr.xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(sr.xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color, pts.Radius = seriesColor(sr.c), seriesColor(sr.c), vg.Points(2)
		fig.addBelow(sr.name, l)
		fig.Below.Add(pts)
		fig.BelowLayers = append(fig.BelowLayers, pts)
		end = math.Max(end, sr.xys[len(sr.xys)-1].X+0.5)
	}
	for _, p := range []*plot.Plot{fig.Plot, fig.Below} {
		p.X.Min, p.X.Max = 0, end
		p.X.Tick.Marker = readableTicks{}
	}
	return markInvalid(fig, rep), nil
}
