package push

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/internal/promtest"
)

// legendLabel finds the {{label}} parts of a Grafana legend.
var legendLabel = regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)

// labelValues reads a Grafana label_values(...) variable query: its selector ("" for none) and
// label.
var labelValues = regexp.MustCompile(`^label_values\((?:(.*),\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// TestDashboardQueriesOnARealPrometheus pushes an HTTP, a gRPC and a state run to a real
// Pushgateway, has a real Prometheus (Debian's) scrape it as Dapr's CI's does (honor_labels),
// and evaluates every query of Dapr's dashboard and of ours on that Prometheus, the variables
// set as a user would pick them: each query answers at least one series, each series carries
// the labels its panel's legend names, and each variable's label_values finds values. The
// history panels, which read the remote write, are TestDashboardHistoryPanel's.
func TestDashboardQueriesOnARealPrometheus(t *testing.T) {
	g := startPushgateway(t)
	httpRun, stageRun := pushDashboardRuns(t, g)
	s := promtest.Start(t, promtest.Options{Scrape: []string{strings.TrimPrefix(g.URL, "http://")}})
	deadline := time.Now().Add(20 * time.Second)
	for len(s.Query(t, `daprperf_pass{run_id="20261201T093000Z-cccc"}`, time.Now())) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Prometheus scraped no pushed series within 20 s")
		}
		time.Sleep(250 * time.Millisecond)
	}
	perfTest := PerfTestName(httpRun.Test, httpRun.Transport)

	// problems evaluates qs on s and returns what does not hold, a line each.
	problems := func(t *testing.T, qs []dashboardQuery, vars map[string]string) []string {
		t.Helper()
		var out []string
		errorf := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
		for _, q := range qs {
			expr, err := grafanaExpand(q.Expr, vars)
			if err != nil {
				errorf("%s: %v", q.Where, err)
				continue
			}
			if m := labelValues.FindStringSubmatch(strings.TrimSpace(expr)); m != nil {
				sel := m[1]
				if sel == "" {
					sel = `{` + m[2] + `!=""}`
				}
				if got := s.Query(t, "group by ("+m[2]+") ("+sel+")", time.Now()); len(got) == 0 {
					errorf("%s: %s finds no value of %s", q.Where, expr, m[2])
				}
				continue
			}
			got := s.Query(t, expr, time.Now())
			if len(got) == 0 {
				errorf("%s: %s answers nothing on Prometheus", q.Where, expr)
				continue
			}
			for _, l := range legendLabel.FindAllStringSubmatch(q.Legend, -1) {
				for _, smp := range got {
					if _, ok := smp.Labels[l[1]]; !ok {
						errorf("%s: legend %q names %s, which a series of %s lacks: %v", q.Where, q.Legend, l[1], expr, smp.Labels)
						break
					}
				}
			}
		}
		return out
	}
	// eval checks each query with the variables of each run in varSets: it holds when it holds
	// for one of them (the named loads' panels for a stage run).
	eval := func(t *testing.T, qs []dashboardQuery, varSets ...map[string]string) {
		t.Helper()
		for _, q := range qs {
			var ps []string
			for _, vars := range varSets {
				if ps = problems(t, []dashboardQuery{q}, vars); len(ps) == 0 {
					break
				}
			}
			for _, p := range ps {
				t.Error(p)
			}
		}
	}
	t.Run("the check can fail", func(t *testing.T) {
		got := problems(t, []dashboardQuery{
			{Where: "a metric never pushed", Expr: `daprperf_no_such_figure{perf_test="$perf_test"}`},
			{Where: "a legend naming a label summed away", Expr: `sum by (run_id) (daprperf_pass)`, Legend: "{{version}}"},
			{Where: "a variable of no value", Expr: `label_values(daprperf_pass{perf_test="none"}, version)`},
		}, map[string]string{"perf_test": perfTest})
		if len(got) != 3 {
			t.Errorf("%d problems found, want the 3 made: %q", len(got), got)
		}
	})
	t.Run("dapr", func(t *testing.T) {
		eval(t, daprDashboardQueries(t), map[string]string{"perf_test": perfTest})
		eval(t, daprDashboardQueries(t), map[string]string{"perf_test": "state_get_http"})
	})
	t.Run("daprperf", func(t *testing.T) {
		all, _ := ourDashboardQueries(t)
		var qs []dashboardQuery
		for _, q := range all {
			if !strings.Contains(q.Expr, historyMatcher) {
				qs = append(qs, q)
			}
		}
		eval(t, qs, map[string]string{"perf_test": perfTest, "version": httpRun.Environment.DaprVersion, "run_id": httpRun.RunID}, stageVars(stageRun))
		t.Logf("%d queries of ours answered by Prometheus", len(qs))
	})
}
