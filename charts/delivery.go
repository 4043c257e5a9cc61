package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/daprperf/daprperf/perf"
)

// The charts of the plans that count what arrived: the delivery plan (pub/sub and
// configuration subscribe: messages sent, received, lost, duplicated, and the delivery
// latency), the jobs trigger plan (jobs scheduled, fired, never fired, fired twice, and the
// trigger lag) and the reminder plan (fires expected, arrived, missing, and the fire lag). Each
// is one figure of two panels: the latency by percentile on the percentile axis of the latency
// chart, with the run's bounds on it, and the counts as labelled bars, the ones that must be
// zero in vermillion.

// countBar is one bar of a counts panel: its name, value, and whether any count above zero is
// a fault (lost, duplicated, never fired), with the verdict on it when the run has one.
type countBar struct {
	name    string
	n       int64
	fault   bool
	verdict *perf.Verdict
}

// verdictOf returns rep's verdict on figure, if any.
func verdictOf(rep *perf.Report, figure string) *perf.Verdict {
	for i := range rep.Verdicts {
		if rep.Verdicts[i].Figure == figure {
			return &rep.Verdicts[i]
		}
	}
	return nil
}

// countsPanel draws bars on p: each labelled with its count (and its verdict), the faults in
// vermillion and the others in blue, on a y axis from 0.
func countsPanel(p *plot.Plot, bars []countBar) ([]plot.Plotter, error) {
	var out []plot.Plotter
	names := make([]string, len(bars))
	ok := make([]float64, len(bars))
	bad := make([]float64, len(bars))
	var labels plotter.XYLabels
	largest := 1.0
	for i, b := range bars {
		names[i] = b.name
		if b.fault {
			bad[i] = float64(b.n)
		} else {
			ok[i] = float64(b.n)
		}
		largest = max(largest, float64(b.n))
		label := fmtCount(b.n)
		if v := b.verdict; v != nil {
			label += fmt.Sprintf(" (%s %g: %s)", opText(v.Op), v.Limit, verdictState(*v))
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: float64(b.n)})
		labels.Labels = append(labels.Labels, label)
	}
	good := groupedBars(ok, 0, 1, translucent(baselineColor))
	faults := groupedBars(bad, 0, 1, boundColor)
	out = append(out, good, faults)
	lbl, err := barLabels(labels, draw.YBottom, 9, 2)
	if err != nil {
		return nil, err
	}
	out = append(out, lbl)
	for _, pl := range out {
		p.Add(pl)
	}
	nominalX(p, names)
	p.Y.Min, p.Y.Max = 0, largest*1.25
	p.Y.Label.Text = "count"
	return out, nil
}

// quantilePoint is a latency at a percentile: P in (0, 100], or 100 for the maximum.
type quantilePoint struct {
	P       float64
	Seconds float64
}

// lagPoints reads a lag map of "p50", "p90", "p99" (and "max", drawn at the last x) in
// seconds, in percentile order.
func lagPoints(m map[string]float64) []quantilePoint {
	var out []quantilePoint
	for k, v := range m {
		if num, ok := strings.CutPrefix(k, "p"); ok {
			var p float64
			if _, err := fmt.Sscanf(strings.ReplaceAll(num, "_", "."), "%g", &p); err == nil && p > 0 && p < 100 {
				out = append(out, quantilePoint{p, v})
			}
		}
	}
	slices.SortFunc(out, func(a, b quantilePoint) int { return int(math.Copysign(1, a.P-b.P)) })
	return out
}

// latencyPanel draws on fig's top panel a latency by percentile: the line xys (x = 1/(1-p),
// seconds), the maximum as a point at maxX when given (>0), and every bound among verdicts
// whose figure is prefix + a percentile name ("delivery.p95") as a dashed segment around that
// percentile, each named in the legend with its verdict; prefix + "mean" is drawn as a line
// across. what is the latency's name for the y axis.
func latencyPanel(fig *figure, rep *perf.Report, xys plotter.XYs, maxSeconds float64, prefix, what string) error {
	largest := maxSeconds
	for _, xy := range xys {
		largest = max(largest, xy.Y)
	}
	// A bound far above the data would flatten it: such a bound stays off the axis (clipped),
	// and its legend entry says so.
	data := largest
	far := func(limit float64) bool { return data > 0 && limit > 3*data }
	offAxis := false
	type bound struct {
		x, y float64
		v    perf.Verdict
	}
	var bounds []bound
	var meanBound *perf.Verdict
	for _, v := range rep.Verdicts {
		stat, ok := strings.CutPrefix(v.Figure, prefix)
		if !ok {
			continue
		}
		if !far(v.Limit) {
			largest = max(largest, v.Limit)
		} else {
			offAxis = true
		}
		if stat == "mean" {
			meanBound = &v
			continue
		}
		for _, q := range lagPoints(map[string]float64{stat: v.Limit}) {
			bounds = append(bounds, bound{x: percentileX(q.P), y: v.Limit, v: v})
		}
	}
	u := latencyUnit(largest)
	p := fig.Plot
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = percentileTicks{}
	p.X.Label.Text = "percentile (axis: 1/(1-p), log scale)"
	p.Y.Label.Text = what + " (" + u.Name + ")"
	p.Y.Min = 0
	maxX := 100.0
	for _, xy := range xys {
		maxX = max(maxX, xy.X)
	}
	if len(xys) > 0 {
		line, pts, err := plotter.NewLinePoints(scaledXYs(xys, u))
		if err != nil {
			return err
		}
		line.Color, line.Width = mainColor, vg.Points(2.5)
		pts.Color, pts.Radius, pts.Shape = mainColor, vg.Points(2), draw.CircleGlyph{}
		switch {
		case len(xys) > 12:
			pts.Radius = 0 // a dense spectrum: the line alone
			fig.add(what, line)
			fig.add("", pts)
		default:
			// A few stored percentiles (a lag's p50, p90, p99): points, since a line between
			// them would draw a spectrum that was never measured.
			pts.Radius = vg.Points(4)
			fig.add(what+" (stored percentiles)", pts)
		}
	}
	if maxSeconds > 0 {
		// Right of the line's end, apart from its last percentile, and labelled.
		maxX *= 1.6
		at := plotter.XYs{{X: maxX, Y: maxSeconds * u.PerSecond}}
		sc, err := plotter.NewScatter(at)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4.5), Shape: draw.CrossGlyph{}}
		fig.add("max "+fmtNum(maxSeconds*u.PerSecond)+" "+u.Name, sc)
		lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: []string{"max"}})
		if err != nil {
			return err
		}
		lbl.TextStyle[0].XAlign, lbl.TextStyle[0].YAlign = draw.XCenter, draw.YTop
		lbl.Offset = vg.Point{Y: -vg.Points(6)}
		fig.add("", lbl)
	}
	for _, b := range bounds {
		y := b.y * u.PerSecond
		seg, err := plotter.NewLine(plotter.XYs{{X: b.x / 1.6, Y: y}, {X: b.x * 1.6, Y: y}})
		if err != nil {
			return err
		}
		seg.Color, seg.Width, seg.Dashes = boundColor, vg.Points(2.5), []vg.Length{vg.Points(6), vg.Points(3)}
		fig.add(fmt.Sprintf("bound: %s %s %.4g %s%s: %s", b.v.Figure, opText(b.v.Op), y, u.Name, aboveAxis(far(b.y)), verdictState(b.v)), seg)
		if b.v.Measured {
			got, err := plotter.NewScatter(plotter.XYs{{X: b.x, Y: b.v.Got * u.PerSecond}})
			if err != nil {
				return err
			}
			got.GlyphStyle = draw.GlyphStyle{Color: boundColor, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
			fig.add(b.v.Figure+" measured: "+fmtNum(b.v.Got*u.PerSecond)+" "+u.Name, got)
		}
		maxX = max(maxX, b.x*1.6)
	}
	if v := meanBound; v != nil {
		y := v.Limit * u.PerSecond
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: y}, {X: maxX, Y: y}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = boundColor, vg.Points(1.5), []vg.Length{vg.Points(2), vg.Points(3)}
		fig.add(fmt.Sprintf("bound: %s %s %.4g %s%s (got %s %s): %s", v.Figure, opText(v.Op), y, u.Name, aboveAxis(far(v.Limit)), fmtNum(v.Got*u.PerSecond), u.Name, verdictState(*v)), l)
	}
	if offAxis {
		p.Y.Max = largest * u.PerSecond * 1.1
	}
	p.X.Min, p.X.Max = 1, maxX*1.15
	return nil
}

// aboveAxis is the legend's note for a bound drawn off the axis.
func aboveAxis(far bool) string {
	if far {
		return ", above this axis"
	}
	return ""
}

// twoPanel makes a figure whose lower panel holds counts: top title, bottom title.
func twoPanel(title, below string) *figure {
	fig := newFigure(title)
	bottom := plot.New()
	bottom.Add(plotter.NewGrid())
	bottom.Title.Text = below
	fig.Below = bottom
	fig.Height = chartHeight + 150
	return fig
}

// deliveryChart: the delivery plan's delivery latency (receipt at the subscriber minus send
// time at the tester, first delivery of each message) by percentile, from its HDR histogram
// (or the stored percentiles), with the run's delivery.pNN and delivery.mean bounds; below,
// the messages stamped, accepted, received, lost, duplicated, stale and failed publishes.
func deliveryChart(rep *perf.Report) (*figure, error) {
	dr := rep.Delivery
	if dr == nil {
		return nil, nil
	}
	what := "delivery latency"
	if dr.Mode == perf.SubscribeConfiguration {
		what = "update-to-notification latency"
	}
	var xys plotter.XYs
	if h, err := dr.Latency.Histogram(); err == nil && h.Count() > 0 {
		xys = spectrum(&perf.Result{Latency: dr.Latency}, spectrumMaxX(h.Count()))
	} else {
		for _, q := range dr.Latency.Percentiles {
			xys = append(xys, plotter.XY{X: percentileX(q.P), Y: q.Seconds})
		}
	}
	mode := string(dr.Mode) + " subscribe"
	if dr.Mode == perf.SubscribeConfiguration {
		mode = "configuration subscribe"
	}
	drain := "drain complete"
	if !dr.DrainComplete {
		drain = fmt.Sprintf("drain window of %.0f s ended", dr.DrainWindowSeconds)
	}
	msgs := "messages"
	if dr.Mode == perf.SubscribeConfiguration {
		msgs = "updates"
	}
	fig := twoPanel(fmt.Sprintf("%s: %s by percentile, %s, %s of %s %s received",
		heading(rep), what, mode, fmtCount(dr.Received), fmtCount(dr.Sent), msgs),
		fmt.Sprintf("%s (%s after %.1f s); lost and duplicated must be 0", msgs, drain, dr.DrainSeconds))
	if err := latencyPanel(fig, rep, xys, dr.Latency.MaxSeconds, "delivery.", what); err != nil {
		return nil, err
	}
	// The errors bound counts failed publishes and iterations whose wait timed out: its verdict
	// goes on the bars that hold errors, on the publish errors' when none does.
	pubV, waitV := verdictOf(rep, "errors"), verdictOf(rep, "errors")
	switch {
	case dr.PublishErrors == 0 && dr.AwaitTimeouts > 0:
		pubV = nil
	case dr.AwaitTimeouts == 0:
		waitV = nil
	}
	bars := []countBar{
		{name: "sent\n(accepted)", n: dr.Sent},
		{name: "received", n: dr.Received},
		{name: "lost", n: dr.Lost, fault: true, verdict: verdictOf(rep, "delivery.lost")},
		{name: "duplicated", n: dr.Duplicated, fault: true, verdict: verdictOf(rep, "delivery.duplicated")},
		{name: "publish\nerrors", n: dr.PublishErrors, fault: true, verdict: pubV},
		{name: "waits\ntimed out", n: dr.AwaitTimeouts, fault: true, verdict: waitV},
		{name: "stale\n(warmup's)", n: dr.Stale},
	}
	pls, err := countsPanel(fig.Below, bars)
	if err != nil {
		return nil, err
	}
	fig.BelowLayers = append(fig.BelowLayers, pls...)
	return markInvalid(fig, rep), nil
}

// jobsChart: the jobs trigger plan's trigger lag (receipt at the app minus due time) at its
// stored minimum (p0), percentiles and maximum, with the run's jobs.lag bounds; below, the jobs scheduled,
// fired, never fired, fired twice, unexpected and refused.
func jobsChart(rep *perf.Report) (*figure, error) {
	j := rep.Jobs
	if j == nil {
		return nil, nil
	}
	var xys plotter.XYs
	if v, ok := j.Lag["min"]; ok {
		xys = append(xys, plotter.XY{X: percentileX(0), Y: v}) // p0, the fastest trigger
	}
	for _, q := range lagPoints(j.Lag) {
		xys = append(xys, plotter.XY{X: percentileX(q.P), Y: q.Seconds})
	}
	all := fmt.Sprintf("all fired %.1f s after the scheduling", j.AllFiredSeconds)
	if !j.AllFired {
		all = fmt.Sprintf("NOT all fired within %.0f s", j.WindowSeconds)
	}
	fig := twoPanel(fmt.Sprintf("%s: trigger lag by percentile, %s jobs due in %gs; %s, %.0f triggers/s",
		heading(rep), fmtCount(j.Scheduled), j.DueInSeconds, all, j.TriggerRate),
		"jobs; never fired, fired twice and unexpected must be 0")
	if err := latencyPanel(fig, rep, xys, j.Lag["max"], "jobs.lag.", "trigger lag"); err != nil {
		return nil, err
	}
	pls, err := countsPanel(fig.Below, []countBar{
		{name: "scheduled", n: j.Scheduled},
		{name: "fired", n: j.Fired},
		{name: "never fired", n: j.NeverFired, fault: true, verdict: verdictOf(rep, "jobs.neverFired")},
		{name: "fired twice", n: j.FiredTwice, fault: true, verdict: verdictOf(rep, "jobs.firedTwice")},
		{name: "unexpected", n: j.Unexpected, fault: true, verdict: verdictOf(rep, "jobs.unexpected")},
		{name: "schedule\nerrors", n: j.ScheduleErrors, fault: true, verdict: verdictOf(rep, "errors")},
	})
	if err != nil {
		return nil, err
	}
	fig.BelowLayers = append(fig.BelowLayers, pls...)
	return markInvalid(fig, rep), nil
}

// remindersChart: the reminder plan's fire lag (arrival minus scheduled time) at its stored
// percentiles and maximum, with the run's reminders.lag bounds; below, the fires expected,
// arrived and missing, and the reminders registered and refused.
func remindersChart(rep *perf.Report) (*figure, error) {
	rr := rep.Reminders
	if rr == nil || rr.WindowSeconds == 0 {
		return nil, nil
	}
	var xys plotter.XYs
	for _, q := range lagPoints(rr.LagSeconds) {
		xys = append(xys, plotter.XY{X: percentileX(q.P), Y: q.Seconds})
	}
	fig := twoPanel(fmt.Sprintf("%s: reminder fire lag by percentile, %s reminders x %d fires, %.0f fires/s",
		heading(rep), fmtCount(int64(rr.Reminders)), rr.FiresPerReminder, rr.TriggerRate),
		"reminders and fires; missing fires and failed registrations must be 0")
	if err := latencyPanel(fig, rep, xys, rr.LagSeconds["max"], "reminders.lag.", "fire lag"); err != nil {
		return nil, err
	}
	pls, err := countsPanel(fig.Below, []countBar{
		{name: "reminders\nregistered", n: rr.Registered},
		{name: "registration\nerrors", n: rr.RegisterErrors, fault: true},
		{name: "fires\nexpected", n: rr.ExpectedFires},
		{name: "fires\narrived", n: rr.Fires},
		{name: "fires\nmissing", n: rr.Missing, fault: true, verdict: verdictOf(rep, "reminders.missing")},
	})
	if err != nil {
		return nil, err
	}
	fig.BelowLayers = append(fig.BelowLayers, pls...)
	return markInvalid(fig, rep), nil
}
