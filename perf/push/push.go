package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"

	"github.com/daprperf/daprperf/perf/growth"
)

// Environment variables that configure the Pushgateway push. The names are those of Dapr's
// perf suite (tests/perf/utils/prometheus_metrics.go), so CI secrets carry over.
const (
	// EnvPushgatewayURL is the gateway's base URL, such as http://pushgateway:9091; unset or
	// empty means no push.
	EnvPushgatewayURL = "DAPR_PERF_METRICS_PROMETHEUS_PUSHGATEWAY_URL"
	// EnvPushgatewayUsername and EnvPushgatewayPassword enable HTTP basic auth; set both or
	// neither.
	EnvPushgatewayUsername = "DAPR_PERF_METRICS_PROMETHEUS_PUSHGATEWAY_USERNAME"
	EnvPushgatewayPassword = "DAPR_PERF_METRICS_PROMETHEUS_PUSHGATEWAY_PASSWORD"
)

// PushJob is the Pushgateway job of every push; the grouping key adds perf_test, test and
// version, and every metric carries the run's id as its run_id label.
const PushJob = "daprperf"

// PerfTestName is the value of the perf_test grouping label for a scenario and transport: the
// label Dapr's own tests push under (dapr/dapr tests/perf, their testLabel), which its Grafana
// dashboard (tests/grafana/grafana-perf-test-dashboard.json) selects with perf_test="$perf_test".
// Dapr spells service invocation's "service-invocation-http" and "service-invocation-grpc",
// and state get's "state_get_http" (its package name); every other scenario here follows the
// package form, "<test>_<transport>" ("state_get_redis_http", "memory_growth_http").
func PerfTestName(test string, transport perf.Protocol) string {
	if test == "service_invocation" {
		return "service-invocation-" + string(transport)
	}
	return test + "_" + string(transport)
}

// DefaultPushTimeout bounds a whole push (connect, send, answer) when PushConfig.Client is nil.
const DefaultPushTimeout = 10 * time.Second

// pushMaxErrorBody is how much of a failed push's answer is kept for the error message.
const pushMaxErrorBody = 4 << 10

// PushConfig says where Push sends a report's figures. The zero value disables the push.
type PushConfig struct {
	// URL is the gateway's base URL, without "/metrics/job/...": http://127.0.0.1:9091, or
	// host:port (http is assumed), optionally with a path prefix. Empty disables the push.
	URL string
	// Username and Password are sent as HTTP basic auth when Username is not empty.
	Username, Password string
	// Client sends the request. nil means an http.Client (default transport) with
	// DefaultPushTimeout. A test can hand in a fake; an *http.Client fits.
	Client interface {
		Do(*http.Request) (*http.Response, error)
	}
}

// Enabled reports whether a push is configured (URL is set).
func (c PushConfig) Enabled() bool { return c.URL != "" }

// String describes the configuration without the password, so that printing a PushConfig
// with fmt (%v, %+v) never leaks it.
func (c PushConfig) String() string {
	if !c.Enabled() {
		return "pushgateway: disabled"
	}
	if c.Username != "" {
		return fmt.Sprintf("pushgateway %s (basic auth as %q, password redacted)", c.URL, c.Username)
	}
	return "pushgateway " + c.URL
}

// PushConfigFromEnv reads env's EnvPushgatewayURL, EnvPushgatewayUsername and
// EnvPushgatewayPassword.
// An unset or empty URL gives a disabled config and no error. An invalid URL, or a username
// without a password (or the reverse), is an error naming the variable; Dapr's suite ignores
// both silently. The URL is returned normalised (scheme added, trailing slash removed).
func PushConfigFromEnv(env perf.Env) (PushConfig, error) {
	cfg := PushConfig{Username: perf.Val(env.PushUsername), Password: perf.Val(env.PushPassword)}
	var errs []error
	if raw := perf.Val(env.PushURL); raw != "" {
		u, err := pushgatewayBaseURL(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %w", EnvPushgatewayURL, redactedURL(raw), err))
		}
		cfg.URL = u
	}
	if (cfg.Username == "") != (cfg.Password == "") {
		errs = append(errs, fmt.Errorf("%s and %s: set both for basic auth, or neither",
			EnvPushgatewayUsername, EnvPushgatewayPassword))
	}
	if err := errors.Join(errs...); err != nil {
		return PushConfig{}, fmt.Errorf("perf: pushgateway config: %w", err)
	}
	return cfg, nil
}

// pushgatewayBaseURL validates a gateway base URL and returns it normalised. Like
// client_golang's push.New it accepts host:port and assumes http.
func pushgatewayBaseURL(raw string) (string, error) {
	u, err := httpURL(raw, "http://127.0.0.1:9091", fmt.Sprintf(": use %s and %s", EnvPushgatewayUsername, EnvPushgatewayPassword))
	switch {
	case err != nil:
		return "", err
	case strings.Contains(u.Path+"/", "/metrics/"):
		return "", fmt.Errorf("must be the gateway's base URL: /metrics/job/... is added per push")
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// httpURL parses raw as the URL of a server the run sends to, http:// added to host:port,
// checking what both the Pushgateway and the remote-write endpoint need: an http or https
// URL with a host, and no credentials (errors print the URL; credHint says where they go
// instead), query or fragment. The errors name example.
func httpURL(raw, example, credHint string) (*url.URL, error) {
	s := raw
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("must be a URL such as %s: %w", example, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("must be an http or https URL, such as %s", example)
	case u.Hostname() == "":
		return nil, fmt.Errorf("must name a host, such as %s", example)
	case u.User != nil:
		return nil, fmt.Errorf("must not hold credentials (they would be printed in errors)%s", credHint)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("must not have a query or fragment")
	}
	return u, nil
}

// redactedURL hides a password written into a URL, for the error messages of the push and
// the remote write.
func redactedURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}

// PushError is a failed push. Its text names the gateway and carries client_golang's error,
// which for an answer other than 200/202 holds the status code and the gateway's message.
type PushError struct {
	// URL is the gateway's base URL.
	URL string
	// StatusCode is the gateway's HTTP status, or 0 when no answer came (unreachable, timeout,
	// canceled) or the push failed before sending.
	StatusCode int
	Err        error
}

func (e *PushError) Error() string { return fmt.Sprintf("perf: push to %s: %v", e.URL, e.Err) }

func (e *PushError) Unwrap() error { return e.Err }

// Push sends rep's figures to the Pushgateway in cfg, as one group under job PushJob with the
// grouping key perf_test=PerfTestName(rep.Test, rep.Transport) (Dapr's label, which its
// dashboard filters on), component=<rep.Component> when the scenario names one (Dapr's label on
// state_get_http), test=<rep.Test>_<rep.Transport> and version=<rep.Environment.DaprVersion>
// ("unknown" when empty); every metric has the label run_id=<rep.RunID>. It POSTs (client_golang's
// AddContext): the group holds the latest run of a scenario and version, whose metrics replace
// the previous run's, and Prometheus, scraping the gateway, keeps each run apart by run_id. So
// the gateway holds one group per scenario and version however many runs push, and never a
// run's figures forever (the result files are the record). A disabled cfg is a no-op.
//
// What is pushed, and from which report fields, is documented on each metric's Help and in
// docs/results.md ("Pushing to a Prometheus Pushgateway"). A report that lacks a figure (no rounds, a
// percentile or overhead not computed, two resources with the same role and process) is an
// error before anything is sent. A failed push is a *PushError.
func Push(ctx context.Context, cfg PushConfig, rep *perf.Report) error {
	if !cfg.Enabled() {
		return nil
	}
	base, err := pushgatewayBaseURL(cfg.URL)
	if err != nil {
		return &PushError{URL: redactedURL(cfg.URL), Err: err}
	}
	if rep == nil {
		return &PushError{URL: base, Err: errors.New("no report")}
	}
	grouping, err := pushGrouping(rep)
	if err != nil {
		return &PushError{URL: base, Err: err}
	}
	reg, err := pushRegistry(rep)
	if err != nil {
		return &PushError{URL: base, Err: err}
	}
	client := cfg.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultPushTimeout}
	}
	doer := &pushStatusDoer{next: client}
	p := push.New(base, PushJob).Gatherer(reg).Client(doer)
	for _, kv := range grouping {
		p.Grouping(kv[0], kv[1])
	}
	if cfg.Username != "" {
		p.BasicAuth(cfg.Username, cfg.Password)
	}
	if err := p.AddContext(ctx); err != nil {
		return &PushError{URL: base, StatusCode: doer.status, Err: err}
	}
	return nil
}

// pushGrouping is the grouping key of rep, in path order.
func pushGrouping(rep *perf.Report) ([][2]string, error) {
	var missing []string
	if rep.Test == "" {
		missing = append(missing, "test")
	}
	if rep.Transport == "" {
		missing = append(missing, "transport")
	}
	if rep.RunID == "" {
		missing = append(missing, "runID")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("report has no %s: the grouping key needs it", strings.Join(missing, ", "))
	}
	version := rep.Environment.DaprVersion
	if version == "" {
		version = "unknown" // as Report.Path
	}
	out := [][2]string{{"perf_test", PerfTestName(rep.Test, rep.Transport)}}
	if rep.Component != "" {
		out = append(out, [2]string{"component", rep.Component})
	}
	return append(out, [][2]string{
		{"test", rep.Test + "_" + string(rep.Transport)},
		{"version", version},
	}...), nil
}

// pushStatusDoer remembers the status of the answer and, for a non-2xx answer, keeps at most
// pushMaxErrorBody bytes of its body (trimmed) for client_golang to put in the error.
type pushStatusDoer struct {
	next interface {
		Do(*http.Request) (*http.Response, error)
	}
	status int
}

func (d *pushStatusDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.next.Do(req)
	if err != nil {
		return resp, err
	}
	d.status = resp.StatusCode
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, pushMaxErrorBody+1)) // for the message only
		_ = resp.Body.Close()
		if len(body) > pushMaxErrorBody {
			body = append(body[:pushMaxErrorBody], " ... (truncated)"...)
		}
		resp.Body = io.NopCloser(bytes.NewReader(bytes.TrimSpace(body)))
	}
	return resp, nil
}

// pushKinds are the figures each plan kind adds to those every report pushes (pushCommon),
// by Kind.Name. Every kind has an entry (TestPushKnowsEveryKind); a kind whose figures are all
// gates and named loads adds nothing.
var pushKinds = map[string]func(g *gauges, rep *perf.Report, f *perf.Figures) error{
	perf.KindOverhead:   pushOverhead,
	perf.KindGrowth:     pushGrowth,
	perf.KindStages:     pushNothing,
	perf.KindIterations: pushNothing,
	perf.KindDelivery:   pushNothing,
	perf.KindJobs:       pushNothing,
	perf.KindReminders:  pushNothing,
	perf.KindFaults:     pushNothing,
	perf.KindCurve:      pushNothing,
}

func pushNothing(*gauges, *perf.Report, *perf.Figures) error { return nil }

// pushRegistry builds a fresh registry holding rep's figures, in base units: those of every
// kind (pushCommon: pass, bounds, gate figures, named loads, per-process resources), then its
// kind's own (pushKinds: the overhead's latencies and Dapr's legacy gauges, the growth
// detector's slopes).
func pushRegistry(rep *perf.Report) (*prometheus.Registry, error) {
	figures := rep.Figures
	if figures == nil {
		f := report.DeriveFigures(rep)
		figures = &f
	}
	kind := report.KindOf(rep)
	pushKind, ok := pushKinds[kind.Name()]
	if !ok {
		return nil, fmt.Errorf("no push for plan kind %q", kind.Name())
	}
	g := newGauges(rep.RunID)
	if err := pushCommon(g, rep, figures); err != nil {
		return nil, err
	}
	if err := pushKind(g, rep, figures); err != nil {
		return nil, err
	}
	return g.reg, nil
}

// pushCommon registers the figures every report has: pass, the missed bounds, every gate
// figure (Figures.Gates, the values thresholds are compared with), each named load's latency,
// rate and counts, each process's CPU, peak RSS and RSS slope, and each sidecar's and the
// app's CPU per request (Figures.Cost).
func pushCommon(g *gauges, rep *perf.Report, figures *perf.Figures) error {
	pass := g.one("daprperf_pass",
		"1 if the run was valid and every enforced threshold and plan check passed, else 0.")
	started := g.one("daprperf_run_start_timestamp_seconds",
		"When the run started (environment.startTime), in seconds since the Unix epoch; absent when the report has no start time.")
	missed := g.vec("daprperf_bounds_missed",
		"Thresholds the run missed: enforced=true fail the run, enforced=false are warn-only (reported, not fatal).",
		"enforced")
	figure := g.vec("daprperf_figure",
		"A figure of the run as its thresholds see it (Figures.Gates, by its threshold name): seconds for latencies, lags and durations, per second for rates, plain numbers for counts and ratios.",
		"figure")
	loadLatency := g.vec("daprperf_load_latency_seconds",
		"Service time of a named load (a stage, run or phase of a plan without baseline rounds) at a quantile, in seconds (HDR histogram, 3 significant digits).",
		"load", "quantile")
	loadQPS := g.vec("daprperf_load_qps",
		"Achieved rate of a named load, in requests (or iterations) per second.",
		"load")
	loadTarget := g.vec("daprperf_load_target_qps",
		"Target rate of a named load, in requests per second; absent for a closed-loop load.",
		"load")
	loadRequests := g.vec("daprperf_load_requests",
		"Requests (or iterations) a named load completed. A count; a gauge because each run is pushed once.",
		"load")
	loadErrors := g.vec("daprperf_load_errors",
		"Failed requests of a named load (any non-2xx HTTP status, socket error or non-OK gRPC status).",
		"load")
	cpu := g.vec("daprperf_cpu_cores",
		"Mean CPU use of a process under load (main phases), in cores: 1 is one core fully busy.",
		"role", "process")
	rss := g.vec("daprperf_rss_bytes",
		"Peak resident set size of a process sampled during the main phases, in bytes.",
		"role", "process")
	rssSlope := g.vec("daprperf_rss_slope_bytes_per_second",
		"Least-squares RSS growth of a process over the last main phase, in bytes per second.",
		"role", "process")
	costCPU := g.vec("daprperf_cpu_seconds_per_request",
		"CPU a sidecar or the app spends per request, in core-seconds (x 1e6 = CPU microseconds per request, the same number as mCPU per 1,000 requests/s): its mean CPU over the main phases divided by the main phases' achieved rate (median over rounds). Our derivation from the measured means (Figures.Cost); absent without readings or a rate.",
		"role", "process")
	if err := errors.Join(g.errs...); err != nil {
		return err
	}
	if rep.Pass {
		pass.Set(1)
	}
	if t := rep.Environment.StartTime; !t.IsZero() {
		started.Set(float64(t.UnixNano()) / 1e9)
	}
	var enforced, warned int
	for _, v := range rep.Verdicts {
		switch {
		case !v.Pass && v.WarnOnly:
			warned++
		case !v.Pass:
			enforced++
		}
	}
	missed.WithLabelValues("true").Set(float64(enforced))
	missed.WithLabelValues("false").Set(float64(warned))
	for name, v := range figures.Gates {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue // not a measurement: nothing to push
		}
		figure.WithLabelValues(name).Set(v)
	}
	if report.KindOf(rep).Name() != perf.KindGrowth { // a growth run's loads are its rounds: the growth figures cover them
		seen := map[string]bool{}
		for i := range rep.Loads {
			l := &rep.Loads[i]
			if seen[l.Name] {
				return fmt.Errorf("report has two loads named %q", l.Name)
			}
			seen[l.Name] = true
			for _, p := range perf.OverheadPercentiles {
				if d, err := l.Percentile(p); err == nil {
					loadLatency.WithLabelValues(l.Name, pushQuantile(p)).Set(d.Seconds())
				}
			}
			loadQPS.WithLabelValues(l.Name).Set(l.ActualQPS)
			if l.RequestedQPS > 0 {
				loadTarget.WithLabelValues(l.Name).Set(l.RequestedQPS)
			}
			loadRequests.WithLabelValues(l.Name).Set(float64(l.Requests))
			loadErrors.WithLabelValues(l.Name).Set(float64(l.Errors()))
		}
	}
	seen := map[[2]string]bool{}
	for _, rs := range rep.Resources {
		key := [2]string{rs.Role, rs.Process}
		if seen[key] {
			return fmt.Errorf("report has two resource summaries for role %q, process %q", rs.Role, rs.Process)
		}
		seen[key] = true
		if rs.NoReadings() { // unknown, not 0: push nothing for it
			continue
		}
		cpu.WithLabelValues(rs.Role, rs.Process).Set(rs.MeanCPUCores)
		rss.WithLabelValues(rs.Role, rs.Process).Set(float64(rs.PeakRSSBytes))
		rssSlope.WithLabelValues(rs.Role, rs.Process).Set(rs.RSSSlopeBytesPerSecond)
	}
	for _, c := range figures.Cost { // one per resource summary, whose pairs are unique above
		costCPU.WithLabelValues(c.Role, c.Process).Set(c.CPUSecondsPerRequest)
	}
	return nil
}

// pushOverhead registers an overhead run's own figures: per phase its latency quantiles and
// errors, the rates and rounds, the overhead with its interval, and Dapr's legacy gauges in
// Dapr's units and shape (no labels).
func pushOverhead(g *gauges, rep *perf.Report, figures *perf.Figures) error {
	base, main := figures.Phase(perf.PhaseBaseline), figures.Phase(perf.PhaseMain)
	if base == nil || main == nil {
		return errors.New("report has no rounds")
	}
	reg, vec, one := g.wrap, g.vec, g.one
	latency := vec("daprperf_latency_seconds",
		"Request service time at a quantile, in seconds (HDR histogram, 3 significant digits): the median over rounds of each round's percentile. phase=baseline is tester -> app, phase=main is tester -> sidecar -> sidecar -> app.",
		"phase", "quantile")
	overhead := vec("daprperf_overhead_seconds",
		"Latency the sidecar path adds at a quantile, in seconds (main minus baseline of the same round). bound=median is the median over rounds; low and high bound its distribution-free interval (order statistics, at least 95% from 6 rounds; the range of the rounds below, 75% at 3 rounds; equal to the median with one round).",
		"quantile", "bound")
	overheadMean := vec("daprperf_overhead_mean_seconds",
		"Mean latency the sidecar path adds, in seconds (main mean minus baseline mean of the same round). bound=median is the median over rounds; low and high bound its distribution-free interval, as for daprperf_overhead_seconds.",
		"bound")
	errorCount := vec("daprperf_errors",
		"Failed requests (any non-2xx HTTP status, socket error or non-OK gRPC status), summed over the rounds of the phase. A count; a gauge because each run is pushed once.",
		"phase")
	actualQPS := one("daprperf_actual_qps",
		"Achieved request rate of the main phase, in requests per second: the median over rounds.")
	targetQPS := one("daprperf_target_qps",
		"Target request rate of the main phase, in requests per second.")
	rounds := one("daprperf_rounds",
		"Number of interleaved baseline/main rounds the figures are computed from.")

	legacyBaseline := one("BASELINE_RESPONSE_TIME",
		"Dapr perf suite gauge: mean latency of the baseline phase (no sidecar), in milliseconds; median over rounds.")
	legacyDapr := one("DAPR_RESPONSE_TIME",
		"Dapr perf suite gauge: mean latency through the sidecars, in milliseconds; median over rounds.")
	legacyAdded := one("LATENCY_BY_DAPR",
		"Dapr perf suite gauge: mean latency added by the sidecars, in milliseconds; median over rounds of main mean minus baseline mean.")
	legacyAppCPU := one("APP_CPU_USAGE",
		"Dapr perf suite gauge: mean CPU of the app under load (role app; the tester where the target has no sidecar), in millicores.")
	legacySidecarCPU := one("DAPR_SIDECAR_CPU_USAGE",
		"Dapr perf suite gauge: mean CPU of the callee's sidecar under load (role callee-sidecar; the tester's, caller-sidecar, where the target has none), in millicores.")
	legacyAppMem := one("APP_MEMORY_USAGE",
		"Dapr perf suite gauge: peak RSS of the app under load (role app; the tester where the target has no sidecar, as Dapr's state_get_http reports its tester pod), in MB (decimal, 10^6 bytes, as Dapr's gauges and its dashboard's decmbytes).")
	legacySidecarMem := one("DAPR_SIDECAR_MEMORY_USAGE",
		"Dapr perf suite gauge: peak RSS of the callee's sidecar under load (role callee-sidecar; the tester's, caller-sidecar, where the target has none), in MB (decimal, 10^6 bytes, as Dapr's gauges and its dashboard's decmbytes).")
	legacyThroughput := one("APPLICATION_THROUGHPUT",
		"Dapr perf suite gauge: achieved request rate of the main phase, in requests per second; median over rounds.")
	if err := errors.Join(g.errs...); err != nil {
		return err
	}

	// Latency, errors and rates, per phase: the figures, medians over rounds.
	for _, ph := range []*perf.PhaseFigures{base, main} {
		for _, p := range perf.OverheadPercentiles {
			v, ok := ph.Quantile(p, false)
			if !ok {
				return missingPercentile(rep, ph.Phase, p)
			}
			latency.WithLabelValues(ph.Phase, pushQuantile(p)).Set(v)
		}
		errorCount.WithLabelValues(ph.Phase).Set(float64(ph.Errors))
	}
	actualQPS.Set(main.QPS)
	targetQPS.Set(float64(rep.Params.QPS))
	rounds.Set(float64(main.Rounds))

	// Overhead, by percentile value and for the mean.
	for _, p := range perf.OverheadPercentiles {
		o, ok := rep.OverheadOf(perf.PercentileName(p))
		if !ok {
			return fmt.Errorf("report has no overhead at %s", perf.PercentileName(p))
		}
		q := pushQuantile(p)
		overhead.WithLabelValues(q, "median").Set(o.MedianSeconds)
		overhead.WithLabelValues(q, "low").Set(o.LowSeconds)
		overhead.WithLabelValues(q, "high").Set(o.HighSeconds)
	}
	meanOverhead, ok := rep.OverheadOf("mean")
	if !ok {
		return errors.New("report has no mean overhead")
	}
	overheadMean.WithLabelValues("median").Set(meanOverhead.MedianSeconds)
	overheadMean.WithLabelValues("low").Set(meanOverhead.LowSeconds)
	overheadMean.WithLabelValues("high").Set(meanOverhead.HighSeconds)

	// The legacy gauges below take one process per role (pushCommon pushed each process).
	byRole := map[string][]perf.ResourceSummary{}
	for _, rs := range rep.Resources {
		if !rs.NoReadings() {
			byRole[rs.Role] = append(byRole[rs.Role], rs)
		}
	}

	// Dapr's legacy gauges: Dapr's units (ms, millicores, decimal MB: Dapr's
	// float64(bytes/1024)*0.001024 in tests/perf/utils) and no labels, so that existing
	// dashboards keep working. Where the target has no sidecar (the state scenarios: the
	// tester's daprd calls the store), the sidecar gauges take the tester's daprd and the app
	// gauges the tester, as Dapr's state_get_http reports its tester pod, the only app. A role
	// missing from the report leaves its gauges out rather than pushing a made-up 0; so do
	// several processes with one role (actor_id_scale's host replicas: Dapr's gauges take one
	// pod), whose labelled series above carry each of them.
	legacyBaseline.Set(base.MeanSeconds * 1e3)
	legacyDapr.Set(main.MeanSeconds * 1e3)
	legacyAdded.Set(meanOverhead.MedianSeconds * 1e3)
	legacyThroughput.Set(main.QPS)
	appRole, sidecarRole := perf.RoleApp, perf.RoleCalleeSidecar
	if len(byRole[perf.RoleCalleeSidecar]) == 0 && len(byRole[perf.RoleCallerSidecar]) > 0 {
		appRole, sidecarRole = perf.RoleTester, perf.RoleCallerSidecar
	}
	for _, l := range []struct {
		role     string
		cpu, mem prometheus.Gauge
	}{
		{appRole, legacyAppCPU, legacyAppMem},
		{sidecarRole, legacySidecarCPU, legacySidecarMem},
	} {
		if rs := byRole[l.role]; len(rs) == 1 {
			l.cpu.Set(rs[0].MeanCPUCores * 1e3)
			l.mem.Set(float64(rs[0].PeakRSSBytes) / 1e6)
		} else {
			reg.Unregister(l.cpu)
			reg.Unregister(l.mem)
		}
	}
	return nil
}

// missingPercentile names the first round whose phase lacks percentile p.
func missingPercentile(rep *perf.Report, phase string, p float64) error {
	for i := range rep.Rounds {
		res := &rep.Rounds[i].Main
		if phase == perf.PhaseBaseline {
			res = &rep.Rounds[i].Baseline
		}
		if _, err := res.Percentile(p); err != nil {
			return fmt.Errorf("round %d %s: %w", i+1, phase, err)
		}
	}
	return fmt.Errorf("report has no %s latency at %s", phase, perf.PercentileName(p))
}

// pushQuantile formats a percentile (99.9) as a Prometheus quantile label value ("0.999").
func pushQuantile(p float64) string {
	return strconv.FormatFloat(math.Round(p*1e4)/1e6, 'g', -1, 64)
}

// gauges registers gauges in a fresh registry, keeping the first registration errors.
type gauges struct {
	reg  *prometheus.Registry
	wrap prometheus.Registerer // reg, adding the run_id label to every metric
	errs []error
}

// newGauges is an empty registry whose every metric will carry run_id=runID.
func newGauges(runID string) *gauges {
	reg := prometheus.NewRegistry()
	return &gauges{reg: reg, wrap: prometheus.WrapRegistererWith(prometheus.Labels{"run_id": runID}, reg)}
}

// vec registers a gauge vector with labels.
func (g *gauges) vec(name, help string, labels ...string) *prometheus.GaugeVec {
	v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	g.errs = append(g.errs, g.wrap.Register(v))
	return v
}

// one registers a gauge without labels.
func (g *gauges) one(name, help string) prometheus.Gauge {
	v := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	g.errs = append(g.errs, g.wrap.Register(v))
	return v
}

// pushGrowth registers a growth-plan report's own figures: per variant and sidecar the
// RSS slope per 1,000 requests and its verdict, the metric series added per request and the
// last RSS reading; the threshold; the run's errors and pass. Base units: bytes.
func pushGrowth(gr *gauges, rep *perf.Report, figures *perf.Figures) error {
	g := rep.Growth
	if g == nil || len(g.Variants) == 0 {
		return errors.New("report has no growth variant")
	}
	vec, one := gr.vec, gr.one
	slope := vec("daprperf_growth_rss_slope_bytes_per_1000_requests",
		"Least-squares RSS growth of a sidecar over the rounds of a growth variant, in bytes per 1,000 requests.",
		"variant", "role", "process")
	growing := vec("daprperf_growth_growing",
		"1 if the sidecar's RSS growth was classified growing or retained (above the threshold), else 0.",
		"variant", "role", "process")
	series := vec("daprperf_growth_series_per_request",
		"Metric series added on the sidecar's /metrics per request over the rounds (0 when the endpoint is off).",
		"variant", "role", "process")
	lastRSS := vec("daprperf_growth_rss_bytes",
		"RSS of the sidecar at its last reading (after the idle window), in bytes.",
		"variant", "role", "process")
	threshold := one("daprperf_growth_threshold_bytes_per_1000_requests",
		"The growth threshold the sidecars were classified against, in bytes per 1,000 requests.")
	errorCount := one("daprperf_growth_errors",
		"Failed requests over every variant's rounds. A count; a gauge because each run is pushed once.")
	if err := errors.Join(gr.errs...); err != nil {
		return err
	}
	for _, v := range g.Variants {
		for _, sc := range v.Sidecars {
			labels := []string{v.Name, sc.Role, sc.Process}
			slope.WithLabelValues(labels...).Set(sc.Growth.SlopeKiBPer1000 * 1024)
			grows := 0.0
			if sc.Growth.Verdict != growth.Flat && sc.Growth.Verdict != "" {
				grows = 1
			}
			growing.WithLabelValues(labels...).Set(grows)
			series.WithLabelValues(labels...).Set(sc.SeriesPerRequest)
			if n := len(sc.Readings); n > 0 {
				lastRSS.WithLabelValues(labels...).Set(float64(sc.Readings[n-1].RSSBytes))
			}
		}
	}
	threshold.Set(g.ThresholdKiBPer1000 * 1024)
	errorCount.Set(figures.Gates["errors"])
	return nil
}
