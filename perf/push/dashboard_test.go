package push

// The Grafana dashboards against what a push leaves on a real Pushgateway: every query of
// Dapr's dashboard (its expressions, listed in testdata/dapr-grafana-queries.txt) and of ours
// (grafana/daprperf-dashboard.json) must name a metric the gateway holds, with label matchers
// that some of its series satisfy once the dashboard's variables take a pushed run's values,
// and every label a query groups by or a legend prints must be on the series it selects.
//
// The query reader below knows the part of PromQL dashboards use: vector selectors with
// matchers, functions and aggregations, by/without/on/ignoring clauses, binary operators,
// numbers, range and subquery brackets, and Grafana's label_values(...) variable queries.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/daprperf/daprperf/internal/promtest"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// promMatcher is one label matcher of a selector: label op "value", op one of = != =~ !~.
type promMatcher struct{ Label, Op, Value string }

// promSelector is one vector selector: a metric name and its matchers.
type promSelector struct {
	Metric   string
	Matchers []promMatcher
}

func (s promSelector) String() string {
	parts := make([]string, 0, len(s.Matchers))
	for _, m := range s.Matchers {
		parts = append(parts, fmt.Sprintf("%s%s%q", m.Label, m.Op, m.Value))
	}
	return s.Metric + "{" + strings.Join(parts, ",") + "}"
}

// promQuery is what a query asks of the series: its selectors, the labels its by and on
// clauses keep (Grouping), the labels it names otherwise (without, ignoring: Named), and for a
// label_values variable query the label whose values it lists.
type promQuery struct {
	Selectors   []promSelector
	Grouping    []string
	Named       []string
	LabelValues string
}

// grafanaVariable matches $name, ${name} and [[name]].
var grafanaVariable = regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)|\[\[(\w+)\]\]`)

// grafanaExpand replaces the dashboard variables in expr with vars; a variable not in vars is
// an error.
func grafanaExpand(expr string, vars map[string]string) (string, error) {
	var missing []string
	out := grafanaVariable.ReplaceAllStringFunc(expr, func(m string) string {
		sub := grafanaVariable.FindStringSubmatch(m)
		name := sub[1] + sub[2] + sub[3]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("query %q uses variables %v that the dashboard does not define", expr, missing)
	}
	return out, nil
}

// parsePromQuery reads expr (variables already expanded).
func parsePromQuery(expr string) (promQuery, error) {
	if rest, ok := strings.CutPrefix(strings.TrimSpace(expr), "label_values("); ok {
		inner, ok := strings.CutSuffix(strings.TrimSpace(rest), ")")
		if !ok {
			return promQuery{}, fmt.Errorf("label_values in %q: no closing parenthesis", expr)
		}
		var q promQuery
		label := inner
		if i := strings.LastIndex(inner, ","); i >= 0 {
			sel, err := parsePromQuery(inner[:i])
			if err != nil {
				return promQuery{}, err
			}
			q = sel
			label = inner[i+1:]
		}
		q.LabelValues = strings.TrimSpace(label)
		if !isPromIdent(q.LabelValues) {
			return promQuery{}, fmt.Errorf("label_values in %q: %q is not a label name", expr, q.LabelValues)
		}
		return q, nil
	}
	p := &promParser{s: expr}
	if err := p.parse(); err != nil {
		return promQuery{}, fmt.Errorf("query %q: %w", expr, err)
	}
	if len(p.q.Selectors) == 0 {
		return promQuery{}, fmt.Errorf("query %q selects no metric", expr)
	}
	return p.q, nil
}

type promParser struct {
	s string
	i int
	q promQuery
}

func isPromIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == ':' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

func (p *promParser) skipSpace() {
	for p.i < len(p.s) && unicode.IsSpace(rune(p.s[p.i])) {
		p.i++
	}
}

func (p *promParser) peek() byte {
	p.skipSpace()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *promParser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := rune(p.s[p.i])
		if c == '_' || c == ':' || unicode.IsLetter(c) || (p.i > start && unicode.IsDigit(c)) {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// str reads a quoted string at p.i ("...", '...' or `...`), with backslash escapes in the first two.
func (p *promParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == q:
			return b.String(), nil
		case c == '\\' && q != '`' && p.i < len(p.s):
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unterminated string at offset %d", p.i)
}

// labelList reads "( a, b, ... )".
func (p *promParser) labelList() ([]string, error) {
	if p.peek() != '(' {
		return nil, fmt.Errorf("want ( at offset %d", p.i)
	}
	p.i++
	var out []string
	for {
		switch p.peek() {
		case ')':
			p.i++
			return out, nil
		case ',':
			p.i++
			continue
		}
		l := p.ident()
		if l == "" {
			return nil, fmt.Errorf("want a label name at offset %d", p.i)
		}
		out = append(out, l)
	}
}

// matchers reads "{ label op "value", ... }".
func (p *promParser) matchers() ([]promMatcher, error) {
	p.i++ // {
	var out []promMatcher
	for {
		switch p.peek() {
		case '}':
			p.i++
			return out, nil
		case ',':
			p.i++
			continue
		case 0:
			return nil, fmt.Errorf("unterminated matchers")
		}
		l := p.ident()
		if l == "" {
			return nil, fmt.Errorf("want a label name at offset %d", p.i)
		}
		p.skipSpace()
		var op string
		for _, o := range []string{"=~", "!~", "!=", "="} {
			if strings.HasPrefix(p.s[p.i:], o) {
				op = o
				break
			}
		}
		if op == "" {
			return nil, fmt.Errorf("want =, !=, =~ or !~ after %s at offset %d", l, p.i)
		}
		p.i += len(op)
		if c := p.peek(); c != '"' && c != '\'' && c != '`' {
			return nil, fmt.Errorf("want a quoted value for %s at offset %d", l, p.i)
		}
		v, err := p.str()
		if err != nil {
			return nil, err
		}
		out = append(out, promMatcher{Label: l, Op: op, Value: v})
	}
}

func (p *promParser) parse() error {
	for {
		c := p.peek()
		switch {
		case c == 0:
			return nil
		case c >= '0' && c <= '9' || c == '.':
			for p.i < len(p.s) && (unicode.IsDigit(rune(p.s[p.i])) || unicode.IsLetter(rune(p.s[p.i])) || p.s[p.i] == '.') {
				p.i++
			}
		case c == '"' || c == '\'' || c == '`':
			if _, err := p.str(); err != nil {
				return err
			}
		case c == '[':
			end := strings.IndexByte(p.s[p.i:], ']')
			if end < 0 {
				return fmt.Errorf("unterminated [ at offset %d", p.i)
			}
			p.i += end + 1
		case c == '{':
			return fmt.Errorf("selector without a metric name at offset %d", p.i)
		case c == '_' || c == ':' || unicode.IsLetter(rune(c)):
			id := p.ident()
			switch strings.ToLower(id) {
			case "by", "on":
				ls, err := p.labelList()
				if err != nil {
					return err
				}
				p.q.Grouping = append(p.q.Grouping, ls...)
				continue
			case "without", "ignoring":
				ls, err := p.labelList()
				if err != nil {
					return err
				}
				p.q.Named = append(p.q.Named, ls...)
				continue
			case "group_left", "group_right":
				if p.peek() == '(' {
					ls, err := p.labelList()
					if err != nil {
						return err
					}
					p.q.Named = append(p.q.Named, ls...)
				}
				continue
			case "and", "or", "unless", "bool", "offset":
				continue
			case "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
				"bottomk", "topk", "quantile", "limitk", "limit_ratio":
				continue // an aggregation, its by/without clause before or after its arguments
			}
			switch p.peek() {
			case '(':
				continue // a function or an aggregation
			case '{':
				ms, err := p.matchers()
				if err != nil {
					return err
				}
				p.q.Selectors = append(p.q.Selectors, promSelector{Metric: id, Matchers: ms})
			default:
				p.q.Selectors = append(p.q.Selectors, promSelector{Metric: id})
			}
		default:
			p.i++ // operators, parentheses, commas
		}
	}
}

// promSeries is one series as the gateway exposes it: name and every label (grouping key,
// instance and the metric's own).
type promSeries struct {
	Name   string
	Labels map[string]string
}

func (m promMatcher) matches(labels map[string]string) (bool, error) {
	v := labels[m.Label] // a missing label is the empty value, as in Prometheus
	switch m.Op {
	case "=":
		return v == m.Value, nil
	case "!=":
		return v != m.Value, nil
	}
	re, err := regexp.Compile("^(?:" + m.Value + ")$")
	if err != nil {
		return false, fmt.Errorf("matcher %s%s%q: %w", m.Label, m.Op, m.Value, err)
	}
	return re.MatchString(v) == (m.Op == "=~"), nil
}

// checkPromQuery reports why q would show nothing of series, or a label the query prints
// (legend, as {{label}}) or keeps that its series do not have; nil when every part holds.
func checkPromQuery(q promQuery, legend string, series []promSeries) error {
	var errs []string
	var selected []promSeries
	for _, sel := range q.Selectors {
		var named []promSeries
		for _, s := range series {
			if s.Name == sel.Metric {
				named = append(named, s)
			}
		}
		if len(named) == 0 {
			errs = append(errs, fmt.Sprintf("no metric %s on the gateway", sel.Metric))
			continue
		}
		n := 0
	series:
		for _, s := range named {
			for _, m := range sel.Matchers {
				ok, err := m.matches(s.Labels)
				if err != nil {
					return err
				}
				if !ok {
					continue series
				}
			}
			selected = append(selected, s)
			n++
		}
		if n == 0 {
			errs = append(errs, fmt.Sprintf("%s: none of the gateway's %d series of %s matches (first: %v)",
				sel, len(named), sel.Metric, named[0].Labels))
		}
	}
	if len(q.Selectors) == 0 { // label_values(label)
		selected = series
	}
	need := slices.Concat(q.Grouping, q.Named)
	if q.LabelValues != "" {
		need = append(need, q.LabelValues)
	}
	for _, m := range regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`).FindAllStringSubmatch(legend, -1) {
		l := m[1]
		if len(q.Grouping) > 0 && !slices.Contains(q.Grouping, l) {
			errs = append(errs, fmt.Sprintf("legend label %s is dropped by the query's by/on (%v)", l, q.Grouping))
		}
		need = append(need, l)
	}
	if len(selected) > 0 {
		for _, l := range need {
			for _, s := range selected {
				if _, ok := s.Labels[l]; !ok {
					errs = append(errs, fmt.Sprintf("label %s is not on %s%v", l, s.Name, s.Labels))
					break
				}
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// dashboardQuery is one query of a dashboard, where it comes from, and its legend.
type dashboardQuery struct {
	Where, Expr, Legend string
}

// daprDashboardQueries reads testdata/dapr-grafana-queries.txt (one query a line, # comments).
func daprDashboardQueries(t testing.TB) []dashboardQuery {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "dapr-grafana-queries.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []dashboardQuery
	for i, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, dashboardQuery{Where: fmt.Sprintf("dapr-grafana-queries.txt:%d", i+1), Expr: line})
		}
	}
	return out
}

// grafanaDashboard is the part of Grafana's dashboard model the test reads.
type grafanaDashboard struct {
	Panels     []grafanaPanel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type grafanaPanel struct {
	ID          int            `json:"id"`
	Title       string         `json:"title"`
	Type        string         `json:"type"`
	Panels      []grafanaPanel `json:"panels"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Transformations []struct {
		ID string `json:"id"`
	} `json:"transformations"`
	Targets []struct {
		RefID        string `json:"refId"`
		Expr         string `json:"expr"`
		LegendFormat string `json:"legendFormat"`
		Format       string `json:"format"`
	} `json:"targets"`
}

// Every panel of our dashboard states a unit, selects the runs the run_id variable names, and
// a table of several queries joins them into one row per run (a merge or join transformation),
// or Grafana shows one table per query.
func TestDashboardPanels(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "grafana", "daprperf-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		n++
		if u := p.FieldConfig.Defaults.Unit; u == "" || u == "none" {
			t.Errorf("panel %d %q has no unit (%q)", p.ID, p.Title, u)
		}
		tables := 0
		for _, tg := range p.Targets {
			if !strings.Contains(tg.Expr, `run_id=~"$run_id"`) {
				t.Errorf("panel %d %q, target %s: %s does not select run_id=~\"$run_id\"", p.ID, p.Title, tg.RefID, tg.Expr)
			}
			if tg.Format == "table" {
				tables++
			}
		}
		if tables > 1 && !slices.ContainsFunc(p.Transformations, func(tr struct {
			ID string `json:"id"`
		}) bool {
			return tr.ID == "merge" || tr.ID == "joinByField"
		}) {
			t.Errorf("panel %d %q has %d table queries and no merge or joinByField transformation", p.ID, p.Title, tables)
		}
	}
	if n < 14 {
		t.Errorf("%d panels, want at least 14", n)
	}
}

// ourDashboardQueries reads grafana/daprperf-dashboard.json: every target of every panel
// (also inside rows), every query variable, and the names of all variables.
func ourDashboardQueries(t testing.TB) ([]dashboardQuery, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "grafana", "daprperf-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("grafana/daprperf-dashboard.json: %v", err)
	}
	var out []dashboardQuery
	var walk func([]grafanaPanel)
	walk = func(ps []grafanaPanel) {
		for _, p := range ps {
			if p.Type != "row" && len(p.Targets) == 0 {
				t.Errorf("panel %d %q has no query", p.ID, p.Title)
			}
			for _, tg := range p.Targets {
				out = append(out, dashboardQuery{
					Where: fmt.Sprintf("panel %d %q, target %s", p.ID, p.Title, tg.RefID), Expr: tg.Expr, Legend: tg.LegendFormat,
				})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	var vars []string
	for _, v := range d.Templating.List {
		vars = append(vars, v.Name)
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			if err := json.Unmarshal(v.Query, &q.Query); err != nil {
				t.Fatalf("variable %s: query: %v", v.Name, err)
			}
		}
		out = append(out, dashboardQuery{Where: "variable " + v.Name, Expr: q.Query})
	}
	return out, vars
}

// TestDashboardsQueryWhatThePushHolds pushes an HTTP and a gRPC run to a real Pushgateway and
// checks every query of Dapr's dashboard and of ours against the gateway's series, with the
// variables set to the HTTP run's values.
func TestDashboardsQueryWhatThePushHolds(t *testing.T) {
	g := startPushgateway(t)
	httpRun, stageRun := pushDashboardRuns(t, g)
	var series []promSeries
	for _, grp := range g.groups(t) {
		for name, f := range grp.Families {
			for _, m := range f.Metrics {
				series = append(series, promSeries{Name: name, Labels: m.Labels})
			}
		}
	}
	perfTest := PerfTestName(httpRun.Test, httpRun.Transport)
	if perfTest != "service-invocation-http" {
		t.Fatalf("perf_test of the HTTP run is %q, want Dapr's service-invocation-http", perfTest)
	}

	// check checks each query with the variables of each run in varSets: it holds when it holds
	// for one of them (the named loads' panels for a stage run, the overhead's for service
	// invocation).
	check := func(t *testing.T, qs []dashboardQuery, varSets ...map[string]string) {
		for _, q := range qs {
			var errs []string
			for _, vars := range varSets {
				expr, err := grafanaExpand(q.Expr, vars)
				if err == nil {
					var pq promQuery
					if pq, err = parsePromQuery(expr); err == nil {
						err = checkPromQuery(pq, q.Legend, series)
					}
				}
				if err == nil {
					errs = nil
					break
				}
				errs = append(errs, err.Error())
			}
			if errs != nil {
				t.Errorf("%s: %s: %s", q.Where, q.Expr, strings.Join(errs, "; "))
			}
		}
	}
	t.Run("dapr", func(t *testing.T) {
		qs := daprDashboardQueries(t)
		if len(qs) != 9 {
			t.Fatalf("%d queries of Dapr's dashboard, want its 8 panel queries and 1 variable", len(qs))
		}
		check(t, qs, map[string]string{"perf_test": perfTest})
	})
	// Dapr's second pushing test, state_get_http: the tester's daprd is the only sidecar and
	// the tester the app Dapr's gauges describe; the group carries component="inmemory".
	t.Run("dapr state_get_http", func(t *testing.T) {
		qs := daprDashboardQueries(t)
		check(t, qs, map[string]string{"perf_test": "state_get_http"})
		grp := g.group(t, map[string]string{"job": "daprperf", "perf_test": "state_get_http", "component": "inmemory", "test": "state_get_http", "version": "1.17.5"})
		got := pgwSeries(t, grp, dashboardStateRunID)
		for name, want := range map[string]float64{ // decimal MB and millicores, from the tester's processes
			"DAPR_SIDECAR_MEMORY_USAGE": 53.75 * (1 << 20) / 1e6, "DAPR_SIDECAR_CPU_USAGE": 215,
			"APP_MEMORY_USAGE": 20 * (1 << 20) / 1e6, "APP_CPU_USAGE": 125,
		} {
			if v, ok := got[pushSeries(name, nil)]; !ok || math.Abs(v-want) > 1e-9 {
				t.Errorf("%s = %v (pushed: %v), want %v", name, v, ok, want)
			}
		}
	})
	t.Run("daprperf", func(t *testing.T) {
		all, vars := ourDashboardQueries(t)
		var qs []dashboardQuery // the history panels read the remote write (TestDashboardHistoryPanel)
		for _, q := range all {
			if !strings.Contains(q.Expr, historyMatcher) {
				qs = append(qs, q)
			}
		}
		if len(qs) < 15 {
			t.Fatalf("%d queries in grafana/daprperf-dashboard.json, want at least 15", len(qs))
		}
		values := map[string]string{"perf_test": perfTest, "version": regexp.QuoteMeta(httpRun.Environment.DaprVersion), "run_id": regexp.QuoteMeta(httpRun.RunID)}
		for _, v := range vars {
			if _, ok := values[v]; !ok && v != "datasource" {
				t.Errorf("variable %s has no value in this test", v)
			}
		}
		check(t, qs, values, stageVars(stageRun))
		t.Logf("%d queries hold against the gateway", len(qs))
	})
}

// dashboardStateRunID is the state_get run pushDashboardRuns pushes.
const dashboardStateRunID = "20261201T093000Z-cccc"

// pushDashboardRuns pushes to g the runs the dashboard tests query: an HTTP and a gRPC service
// invocation run, a state_get run (Dapr's second pushing test: the tester's daprd its only
// sidecar, the tester the app its gauges describe) and a stage run (a plan of named loads); it
// returns the HTTP and the stage run.
func pushDashboardRuns(t *testing.T, g *pushgateway) (httpRun, stageRun *perf.Report) {
	t.Helper()
	httpRun = pushFixture(t, "20261201T090000Z-aaaa", 1, true)
	grpcRun := pushFixture(t, "20261201T091500Z-bbbb", 2, false)
	grpcRun.Transport = perf.GRPC
	stateRun := pushFixture(t, dashboardStateRunID, 1, true)
	stateRun.Test, stateRun.Component = "state_get", "inmemory"
	stateRun.Resources = []perf.ResourceSummary{
		{Process: "tester", Role: perf.RoleTester, MeanCPUCores: 0.125, PeakRSSBytes: 20 * (1 << 20)},
		{Process: "tester-daprd", Role: perf.RoleCallerSidecar, MeanCPUCores: 0.215, PeakRSSBytes: 53.75 * (1 << 20)},
		{Process: "httpapp", Role: perf.RoleApp, MeanCPUCores: 0, PeakRSSBytes: 18 * (1 << 20)}, // the idle no-op target
	}
	stageRun = stageFixture(t)
	for _, rep := range []*perf.Report{httpRun, grpcRun, stateRun, stageRun} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		err := Push(ctx, PushConfig{URL: g.URL}, rep)
		cancel()
		if err != nil {
			t.Fatalf("Push %s: %v", rep.RunID, err)
		}
	}
	return httpRun, stageRun
}

// stageFixture is the charts' stage run (a plan of named loads), under a run id of its own.
func stageFixture(t testing.TB) *perf.Report {
	t.Helper()
	rep, err := report.ReadReport(filepath.Join("..", "..", "charts", "testdata", "loads", "pubsub_publish", "http", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep.RunID = "20261201T094500Z-dddd"
	return rep
}

// stageVars are the dashboard's variables picking the stage run.
func stageVars(rep *perf.Report) map[string]string {
	return map[string]string{"perf_test": PerfTestName(rep.Test, rep.Transport), "version": rep.Environment.DaprVersion, "run_id": rep.RunID}
}

// historyMatcher is in every query of a history panel: the series Write sends carry the
// transport label, those the Pushgateway holds do not, so the panels draw only samples stamped
// with their run's own time.
const historyMatcher = `transport!=""`

// TestDashboardHistoryPanel writes two runs of two daprd versions, far apart in time, to a
// real Prometheus and runs every query of our dashboard's history panels on it, with the
// dashboard's variables set to both versions and any run: each query's selectors and labels
// hold against the written series, and the panel of the p90 overhead across runs draws one
// line per version, named by its legend, with each run's value at its own time.
func TestDashboardHistoryPanel(t *testing.T) {
	s := promtest.Start(t, promtest.Options{OutOfOrderWindow: "10y"})
	older, newer := historyRuns(t)
	for _, rep := range []*perf.Report{newer, older} {
		if err := writeRun(t, s, rep); err != nil {
			t.Fatalf("Write %s: %v", rep.RunID, err)
		}
	}
	var series []promSeries
	for _, l := range s.Series(t, `{job="daprperf"}`) {
		series = append(series, promSeries{Name: l["__name__"], Labels: l})
	}
	all, _ := ourDashboardQueries(t)
	vars := map[string]string{
		"perf_test":  PerfTestName(newer.Test, newer.Transport),
		"version":    `1\\.16\\.5|1\\.17\\.5`, // two versions picked, as Grafana writes them into PromQL
		"run_id":     ".*",                    // All
		"__interval": "1h",                    // Grafana's step, the range query's below
	}
	start, end := older.Environment.StartTime.Add(-time.Hour), newer.Environment.StartTime.Add(time.Hour)
	overhead := 0
	for _, q := range all {
		if !strings.Contains(q.Expr, historyMatcher) {
			continue
		}
		expr, err := grafanaExpand(q.Expr, vars)
		if err != nil {
			t.Fatalf("%s: %v", q.Where, err)
		}
		pq, err := parsePromQuery(expr)
		if err == nil {
			err = checkPromQuery(pq, q.Legend, series)
		}
		if err != nil {
			t.Errorf("%s: %s: %v", q.Where, q.Expr, err)
			continue
		}
		if !strings.Contains(expr, "daprperf_overhead_seconds{") || !strings.Contains(expr, `quantile="0.9"`) {
			continue
		}
		overhead++
		lines := s.QueryRange(t, expr, start, end, time.Hour)
		if len(lines) != 2 {
			t.Fatalf("%s: %d lines, want 2 (one per version): %v", q.Where, len(lines), lines)
		}
		for _, rep := range []*perf.Report{older, newer} {
			o, _ := rep.OverheadOf("p90")
			v := rep.Environment.DaprVersion
			i := slices.IndexFunc(lines, func(r promtest.Range) bool { return r.Labels["version"] == v })
			if i < 0 {
				t.Errorf("%s: no line of version %s: %v", q.Where, v, lines)
				continue
			}
			if legend := strings.ReplaceAll(q.Legend, "{{version}}", lines[i].Labels["version"]); !strings.Contains(legend, v) {
				t.Errorf("%s: legend %q does not name the version", q.Where, q.Legend)
			}
			stamp := rep.Environment.StartTime.Truncate(time.Millisecond)
			if len(lines[i].Points) == 0 {
				t.Errorf("%s: version %s: no point", q.Where, v)
			}
			for at, got := range lines[i].Points {
				if at.Before(stamp) || at.After(stamp.Add(time.Hour)) || got != o.MedianSeconds {
					t.Errorf("%s: version %s: %v at %s, want %v within the hour after %s", q.Where, v, got, at, o.MedianSeconds, stamp)
				}
			}
		}
	}
	if overhead == 0 {
		t.Errorf("grafana/daprperf-dashboard.json has no history panel of daprperf_overhead_seconds at quantile 0.9 (a query with %s)", historyMatcher)
	}
}

func TestPromQueryCheckCanFail(t *testing.T) {
	series := []promSeries{
		{Name: "daprperf_errors", Labels: map[string]string{"job": "daprperf", "perf_test": "service-invocation-http", "phase": "main"}},
		{Name: "daprperf_errors", Labels: map[string]string{"job": "daprperf", "perf_test": "service-invocation-http", "phase": "baseline"}},
	}
	for expr, want := range map[string]string{
		`daprperf_errors{perf_test="service-invocation-http"}`:                   "",
		`sum by (phase) (daprperf_errors{perf_test=~"service-.*-http"})`:         "",
		`daprperf_errors{perf_test!="x", phase="main"} / 2`:                      "",
		`rate(daprperf_errors[5m]) > 0`:                                          "",
		`label_values(perf_test)`:                                                "",
		`label_values(daprperf_errors{phase="main"}, phase)`:                     "",
		`daprperf_error{perf_test="service-invocation-http"}`:                    "no metric daprperf_error",
		`daprperf_errors{test="service-invocation-http"}`:                        "none of the gateway's 2 series",
		`sum by (role) (daprperf_errors)`:                                        "label role is not on",
		`label_values(component)`:                                                "label component is not on",
		`daprperf_errors{perf_test="service-invocation-grpc"} + daprperf_errors`: "none of the gateway's 2 series",
	} {
		q, err := parsePromQuery(expr)
		if err == nil {
			err = checkPromQuery(q, "", series)
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v, want no error", expr, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: error %v, want one containing %q", expr, err, want)
		}
	}
	// A legend label that the aggregation drops.
	q, err := parsePromQuery(`sum by (phase) (daprperf_errors)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPromQuery(q, "{{perf_test}}", series); err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Errorf("legend {{perf_test}} after sum by (phase): %v, want an error saying it is dropped", err)
	}
	for _, bad := range []string{`{phase="main"}`, `daprperf_errors{phase="main"`, `daprperf_errors{phase=main}`, `1 + 2`} {
		if _, err := parsePromQuery(bad); err == nil {
			t.Errorf("parsePromQuery(%q): no error", bad)
		}
	}
	if _, err := grafanaExpand(`x{a="$undefined"}`, map[string]string{}); err == nil {
		t.Error("grafanaExpand of an undefined variable: no error")
	}
}
