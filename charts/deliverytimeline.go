package charts

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/daprperf/daprperf/perf"
)

// countedSeconds is what a second-by-second chart of counted events draws: the events of each
// second (Requests) with their latency's p50 and p99, those of them that count apart (Errors:
// duplicates, second triggers), and, when set, the load that caused them (published: each
// second's requests times perRequest events).
type countedSeconds struct {
	title, below, xLabel  string
	latency, count, apart string // the latency's name, the events', and those counted apart
	start                 time.Time
	timeline              []perf.Second
	published             *perf.Result
	perRequest            float64
}

// deliveryTimelineChart: a delivery run second by second on one clock: the delivery latency
// of each second's messages, and the messages received per second (duplicates apart) against
// those published (each second's publish requests times the messages a request carried on
// average, sent / requests). Nil for a run whose subscriber kept no timeline (older files).
func deliveryTimelineChart(rep *perf.Report) (*figure, error) {
	dr := rep.Delivery
	if dr == nil || len(dr.Timeline) == 0 {
		return nil, nil
	}
	msgs := "messages"
	if dr.Mode == perf.SubscribeConfiguration {
		msgs = "updates"
	}
	cs := countedSeconds{
		title:  fmt.Sprintf("%s: second by second, delivery latency p50 (solid) and p99 (dashed) of the %s received in each second", heading(rep), msgs),
		below:  fmt.Sprintf("%s received and published per second", msgs),
		xLabel: "seconds since the publishing started", latency: "delivery latency", count: msgs + " received", apart: "duplicates",
		start: dr.TimelineStart, timeline: dr.Timeline,
	}
	for i := range rep.Loads {
		if l := &rep.Loads[i].Result; len(l.Timeline) > 0 && l.Requests > 0 && dr.Sent > 0 {
			cs.published, cs.perRequest = l, float64(dr.Sent)/float64(l.Requests)
			break
		}
	}
	return secondsChart(rep, cs)
}

// jobsTimelineChart: a jobs trigger run second by second from the first due time: the
// trigger lag of each second's triggers, and the triggers per second (a job's second ones
// apart). Nil for a file without the app's timeline.
func jobsTimelineChart(rep *perf.Report) (*figure, error) {
	jr := rep.Jobs
	if jr == nil || len(jr.Timeline) == 0 {
		return nil, nil
	}
	return secondsChart(rep, countedSeconds{
		title: fmt.Sprintf("%s: second by second, trigger lag p50 (solid) and p99 (dashed) of each second's triggers", heading(rep)),
		below: "triggers per second", xLabel: "seconds since the first job was due",
		latency: "trigger lag", count: "triggers", apart: "second triggers of a job",
		start: jr.TimelineStart, timeline: jr.Timeline,
	})
}

// secondsChart draws cs: the latency per second above, the counts per second below, on one
// clock from the earlier of cs.start and the load's start.
func secondsChart(rep *perf.Report, cs countedSeconds) (*figure, error) {
	t0 := cs.start
	if cs.published != nil && cs.published.StartTime.Before(t0) {
		t0 = cs.published.StartTime
	}
	largest := 0.0
	for _, s := range cs.timeline {
		largest = max(largest, s.P99Seconds)
	}
	u := latencyUnit(largest)
	fig := twoPanel(cs.title, cs.below)
	fig.Plot.Y.Label.Text = cs.latency + " (" + u.Name + ")"
	fig.Plot.Y.Min, fig.Plot.Y.Max = 0, math.Max(largest*u.PerSecond*1.15, 1e-9)
	fig.Below.X.Label.Text = cs.xLabel
	fig.Below.Y.Label.Text = "per second"
	fig.Below.Y.Min = 0
	at := func(start time.Time, k int) float64 { return start.Sub(t0).Seconds() + float64(k) + 0.5 }
	var p50, p99, counted, apart plotter.XYs
	for _, s := range cs.timeline {
		x := at(cs.start, s.T)
		if s.Requests-s.Errors > 0 {
			p50 = append(p50, plotter.XY{X: x, Y: s.P50Seconds * u.PerSecond})
			p99 = append(p99, plotter.XY{X: x, Y: s.P99Seconds * u.PerSecond})
		}
		counted = append(counted, plotter.XY{X: x, Y: float64(s.Requests - s.Errors)})
		if s.Errors > 0 {
			apart = append(apart, plotter.XY{X: x, Y: float64(s.Errors)})
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
	type series struct {
		name string
		xys  plotter.XYs
		c    int
	}
	all := []series{{cs.count, counted, 1}, {cs.apart, apart, 3}}
	if pub := cs.published; pub != nil {
		var sent plotter.XYs
		for _, s := range pub.Timeline {
			if float64(s.T+1) <= pub.ActualDuration.Seconds()+1e-9 { // whole seconds only
				sent = append(sent, plotter.XY{X: at(pub.StartTime, s.T), Y: float64(s.Requests) * cs.perRequest})
			}
		}
		name := "published"
		if cs.perRequest != 1 {
			name = fmt.Sprintf("published (%.0f a request)", cs.perRequest)
		}
		all = append(all, series{name, sent, 0})
	}
	end := 1.0
	for _, sr := range all {
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

// remindersTimelineChart: a reminder trigger run second by second from its first fire: the
// fire lag of each second's fires, and the fires per second. Nil for a file without the host's
// timeline.
func remindersTimelineChart(rep *perf.Report) (*figure, error) {
	rr := rep.Reminders
	if rr == nil || len(rr.Timeline) == 0 {
		return nil, nil
	}
	return secondsChart(rep, countedSeconds{
		title: fmt.Sprintf("%s: second by second, fire lag p50 (solid) and p99 (dashed) of each second's reminder fires", heading(rep)),
		below: "reminder fires per second", xLabel: "seconds since the first fire",
		latency: "fire lag", count: "fires", apart: "",
		start: rr.TimelineStart, timeline: rr.Timeline,
	})
}
