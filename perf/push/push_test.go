package push

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// pushRaw is one round's figures in a push fixture, in seconds.
type pushRaw struct {
	baseline, main [5]float64 // p50, p75, p90, p99, p99.9
	baseAvg        float64
	mainAvg        float64
	mainQPS        float64
	mainCodes      map[string]int64
}

// pushRounds are three realistic local rounds: 1000 QPS, 16 connections, 60 s, HTTP.
var pushRounds = []pushRaw{
	{
		baseline: [5]float64{0.000270, 0.000350, 0.000420, 0.000650, 0.001100},
		main:     [5]float64{0.001590, 0.001950, 0.002380, 0.003890, 0.006610},
		baseAvg:  0.000300, mainAvg: 0.001710, mainQPS: 999.94,
		mainCodes: map[string]int64{"200": 60000},
	},
	{
		baseline: [5]float64{0.000290, 0.000370, 0.000450, 0.000700, 0.001300},
		main:     [5]float64{0.001710, 0.002100, 0.002550, 0.004120, 0.007020},
		baseAvg:  0.000320, mainAvg: 0.001830, mainQPS: 999.95,
		mainCodes: map[string]int64{"200": 59998, "503": 1, "-1": 1},
	},
	{
		baseline: [5]float64{0.000280, 0.000360, 0.000430, 0.000680, 0.001200},
		main:     [5]float64{0.001650, 0.002010, 0.002470, 0.003980, 0.006800},
		baseAvg:  0.000310, mainAvg: 0.001770, mainQPS: 999.93,
		mainCodes: map[string]int64{"200": 60000},
	},
}

// The medians over pushRounds, worked out by hand (the middle of three values).
var (
	pushWantBaseline = [5]float64{0.000280, 0.000360, 0.000430, 0.000680, 0.001200}
	pushWantMain     = [5]float64{0.001650, 0.002010, 0.002470, 0.003980, 0.006800}
)

const (
	pushWantBaseAvg = 0.000310
	pushWantMainAvg = 0.001770
	pushWantQPS     = 999.94
)

// pushResources are the processes of a local service-invocation run.
var pushResources = []perf.ResourceSummary{
	{Process: "httpapp", Role: "app", MeanCPUCores: 0.0855, PeakRSSBytes: 12.25 * (1 << 20), RSSSlopeBytesPerSecond: 12.5, RSSSlopeR2: 0.3},
	{Process: "httpapp-daprd", Role: "callee-sidecar", MeanCPUCores: 0.202, PeakRSSBytes: 51.5 * (1 << 20), RSSSlopeBytesPerSecond: 1024, RSSSlopeR2: 0.8},
	{Process: "tester-daprd", Role: "caller-sidecar", MeanCPUCores: 0.215, PeakRSSBytes: 53.75 * (1 << 20), RSSSlopeBytesPerSecond: 980, RSSSlopeR2: 0.7},
}

// pushFixture builds a report from pushRounds and pushResources with every latency, rate and
// resource figure multiplied by factor (a power of two keeps the arithmetic exact).
func pushFixture(t testing.TB, runID string, factor float64, pass bool) *perf.Report {
	t.Helper()
	result := func(ps [5]float64, avg, qps float64, codes map[string]int64) perf.Result {
		r := perf.Result{
			Params:       perf.Params{QPS: int(1000 * factor), Connections: 16, Duration: time.Minute, Protocol: perf.HTTP},
			RequestedQPS: 1000 * factor,
			ActualQPS:    qps * factor,
			Requests:     60000,
			RetCodes:     codes,
			Latency:      perf.Latency{AvgSeconds: avg * factor},
		}
		for i, p := range perf.DefaultPercentiles {
			r.Latency.Percentiles = append(r.Latency.Percentiles, perf.PercentileValue{P: p, Seconds: ps[i] * factor})
		}
		return r
	}
	rep := &perf.Report{
		Schema:    perf.ReportSchema,
		Test:      "service_invocation",
		Transport: perf.HTTP,
		RunID:     runID,
		Environment: perf.Environment{
			DaprVersion: "1.17.5", Platform: "local", CPUs: 2, GoVersion: "go1.26.8",
			StartTime: time.Date(2026, 11, 29, 23, 28, 0, 0, time.UTC),
		},
		Params: perf.Params{QPS: int(1000 * factor), Connections: 16, Duration: time.Minute, Protocol: perf.HTTP},
		Pass:   pass,
	}
	for _, r := range pushRounds {
		rep.Rounds = append(rep.Rounds, perf.Round{
			Baseline: result(r.baseline, r.baseAvg, 1000, map[string]int64{"200": 60000}),
			Main:     result(r.main, r.mainAvg, r.mainQPS, r.mainCodes),
		})
	}
	for _, rs := range pushResources {
		rs.MeanCPUCores *= factor
		rs.PeakRSSBytes = uint64(float64(rs.PeakRSSBytes) * factor)
		rs.RSSSlopeBytesPerSecond *= factor
		rep.Resources = append(rep.Resources, rs)
	}
	var err error
	if rep.Overhead, err = report.ComputeOverheads(rep.Rounds); err != nil {
		t.Fatalf("overheads of the fixture: %v", err)
	}
	return rep
}

// pushSeries identifies one series by metric name and its own labels (not the grouping key),
// as "name{k=v,...}" with the labels sorted.
func pushSeries(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+labels[k])
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

// pushWant is every series Push must send for pushFixture(t, _, factor, pass), with its value.
// Latency, rate and legacy figures come from the hand-worked medians above; overhead and
// resource figures are the report's own fields in the pushed unit.
func pushWant(t testing.TB, rep *perf.Report, factor float64) map[string]float64 {
	t.Helper()
	want := pushWantCommon(t, rep)
	quantiles := []string{"0.5", "0.75", "0.9", "0.99", "0.999"}
	for i, q := range quantiles {
		want[pushSeries("daprperf_latency_seconds", map[string]string{"phase": "baseline", "quantile": q})] = pushWantBaseline[i] * factor
		want[pushSeries("daprperf_latency_seconds", map[string]string{"phase": "main", "quantile": q})] = pushWantMain[i] * factor
	}
	for i, figure := range []string{"p50", "p75", "p90", "p99", "p99.9"} {
		o, ok := rep.OverheadOf(figure)
		if !ok {
			t.Fatalf("fixture has no overhead %s", figure)
		}
		want[pushSeries("daprperf_overhead_seconds", map[string]string{"quantile": quantiles[i], "bound": "median"})] = o.MedianSeconds
		want[pushSeries("daprperf_overhead_seconds", map[string]string{"quantile": quantiles[i], "bound": "low"})] = o.LowSeconds
		want[pushSeries("daprperf_overhead_seconds", map[string]string{"quantile": quantiles[i], "bound": "high"})] = o.HighSeconds
	}
	mean, ok := rep.OverheadOf("mean")
	if !ok {
		t.Fatal("fixture has no mean overhead")
	}
	want[pushSeries("daprperf_overhead_mean_seconds", map[string]string{"bound": "median"})] = mean.MedianSeconds
	want[pushSeries("daprperf_overhead_mean_seconds", map[string]string{"bound": "low"})] = mean.LowSeconds
	want[pushSeries("daprperf_overhead_mean_seconds", map[string]string{"bound": "high"})] = mean.HighSeconds
	want[pushSeries("daprperf_errors", map[string]string{"phase": "baseline"})] = 0
	want[pushSeries("daprperf_errors", map[string]string{"phase": "main"})] = 2 // one 503, one socket error
	want[pushSeries("daprperf_actual_qps", nil)] = pushWantQPS * factor
	want[pushSeries("daprperf_target_qps", nil)] = 1000 * factor
	want[pushSeries("daprperf_rounds", nil)] = 3
	for _, rs := range pushResources {
		l := map[string]string{"role": rs.Role, "process": rs.Process}
		want[pushSeries("daprperf_cpu_cores", l)] = rs.MeanCPUCores * factor
		want[pushSeries("daprperf_rss_bytes", l)] = float64(uint64(float64(rs.PeakRSSBytes) * factor))
		want[pushSeries("daprperf_rss_slope_bytes_per_second", l)] = rs.RSSSlopeBytesPerSecond * factor
		// CPU over the hand-worked main rate: 0.202 cores at 999.94 requests/s is 202.01 µs per request
		want[pushSeries("daprperf_cpu_seconds_per_request", l)] = rs.MeanCPUCores / pushWantQPS // the factor cancels
	}
	want[pushSeries("daprperf_pass", nil)] = 0
	if rep.Pass {
		want[pushSeries("daprperf_pass", nil)] = 1
	}
	want[pushSeries("BASELINE_RESPONSE_TIME", nil)] = pushWantBaseAvg * factor * 1000
	want[pushSeries("DAPR_RESPONSE_TIME", nil)] = pushWantMainAvg * factor * 1000
	want[pushSeries("LATENCY_BY_DAPR", nil)] = mean.MedianSeconds * 1000
	want[pushSeries("APP_CPU_USAGE", nil)] = 85.5 * factor
	want[pushSeries("DAPR_SIDECAR_CPU_USAGE", nil)] = 202 * factor
	// Decimal MB, as Dapr's gauges: the fixtures' RSS is 12.25 MiB and 51.5 MiB.
	want[pushSeries("APP_MEMORY_USAGE", nil)] = 12.25 * (1 << 20) / 1e6 * factor
	want[pushSeries("DAPR_SIDECAR_MEMORY_USAGE", nil)] = 51.5 * (1 << 20) / 1e6 * factor
	want[pushSeries("APPLICATION_THROUGHPUT", nil)] = pushWantQPS * factor
	return want
}

// pushCompare reports every missing, unexpected or different series (values within a relative
// 1e-9: unit conversions may differ in the last bit).
func pushCompare(t testing.TB, what string, got, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("%s: missing series %s (want %v)", what, k, w)
		case math.Abs(g-w) > 1e-9*math.Max(math.Abs(w), 1e-12):
			t.Errorf("%s: %s = %v, want %v", what, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected series %s = %v", what, k, g)
		}
	}
}

func TestPushRegistryHoldsEveryFigure(t *testing.T) {
	rep := pushFixture(t, "20261129T232800Z-4f2a", 1, true)
	reg, err := pushRegistry(rep)
	if err != nil {
		t.Fatalf("pushRegistry: %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetType().String() != "GAUGE" {
			t.Errorf("%s is a %s, want a gauge", mf.GetName(), mf.GetType())
		}
		if mf.GetHelp() == "" {
			t.Errorf("%s has no help", mf.GetName())
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["run_id"] != rep.RunID {
				t.Errorf("%s%v: run_id %q, want the run's %q", mf.GetName(), labels, labels["run_id"], rep.RunID)
			}
			delete(labels, "run_id")
			got[pushSeries(mf.GetName(), labels)] = m.GetGauge().GetValue()
		}
	}
	pushCompare(t, "registry", got, pushWant(t, rep, 1))
}

func TestPushLegacyGaugesNeedTheirRole(t *testing.T) {
	for name, mutate := range map[string]func(*perf.Report){
		"no app": func(r *perf.Report) { r.Resources = r.Resources[1:] },
		"two hosts": func(r *perf.Report) {
			r.Resources = append(r.Resources, perf.ResourceSummary{Process: "httpapp-2", Role: perf.RoleApp, Readings: 3, PeakRSSBytes: 1 << 20})
		},
	} {
		t.Run(name, func(t *testing.T) {
			rep := pushFixture(t, "run", 1, true)
			mutate(rep)
			reg, err := pushRegistry(rep)
			if err != nil {
				t.Fatalf("pushRegistry: %v", err)
			}
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatalf("gather: %v", err)
			}
			var apps []string
			for _, mf := range mfs {
				if mf.GetName() == "APP_CPU_USAGE" || mf.GetName() == "APP_MEMORY_USAGE" {
					t.Errorf("%s pushed without exactly one process of role app", mf.GetName())
				}
				if mf.GetName() == "daprperf_cpu_cores" {
					for _, m := range mf.GetMetric() {
						for _, l := range m.GetLabel() {
							if l.GetName() == "process" && strings.HasPrefix(l.GetValue(), "httpapp") && !strings.HasSuffix(l.GetValue(), "-daprd") {
								apps = append(apps, l.GetValue())
							}
						}
					}
				}
			}
			if name == "two hosts" && len(apps) != 2 {
				t.Errorf("labelled cpu series of the apps: %v, want httpapp and httpapp-2", apps)
			}
		})
	}
}

func TestPushQuantileLabel(t *testing.T) {
	for p, want := range map[float64]string{50: "0.5", 75: "0.75", 90: "0.9", 99: "0.99", 99.9: "0.999", 99.99: "0.9999"} {
		if got := pushQuantile(p); got != want {
			t.Errorf("pushQuantile(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestPushConfigFromEnv(t *testing.T) {
	const unset = "<unset>" // the variable is not in the environment
	tests := []struct {
		name, url, user, pass string
		want                  PushConfig
		errHas                []string // "" = no error
	}{
		{name: "unset", url: unset, user: unset, pass: unset, want: PushConfig{}},
		{name: "empty", url: "", user: unset, pass: unset, want: PushConfig{}},
		{name: "url", url: "http://127.0.0.1:9091", user: unset, pass: unset,
			want: PushConfig{URL: "http://127.0.0.1:9091"}},
		{name: "host:port gets http, trailing slash goes", url: "pushgateway:9091/", user: unset, pass: unset,
			want: PushConfig{URL: "http://pushgateway:9091"}},
		{name: "https with path prefix and auth", url: "https://gw.example/pushgateway", user: "ci", pass: "s3cret",
			want: PushConfig{URL: "https://gw.example/pushgateway", Username: "ci", Password: "s3cret"}},
		{name: "not a URL", url: "http://[::1", user: unset, pass: unset,
			errHas: []string{EnvPushgatewayURL, `"http://[::1"`}},
		{name: "other scheme", url: "ftp://gw:21", user: unset, pass: unset,
			errHas: []string{EnvPushgatewayURL, "http or https"}},
		{name: "no host", url: "http://:9091", user: unset, pass: unset,
			errHas: []string{EnvPushgatewayURL, "host"}},
		{name: "credentials in URL", url: "http://ci:s3cret@gw:9091", user: unset, pass: unset,
			errHas: []string{EnvPushgatewayURL, EnvPushgatewayUsername, "ci:xxxxx@gw"}},
		{name: "job path", url: "http://gw:9091/metrics/job/x", user: unset, pass: unset,
			errHas: []string{EnvPushgatewayURL, "base URL"}},
		{name: "query", url: "http://gw:9091?x=1", user: unset, pass: unset,
			errHas: []string{EnvPushgatewayURL, "query"}},
		{name: "username without password", url: "http://gw:9091", user: "ci", pass: unset,
			errHas: []string{EnvPushgatewayUsername, EnvPushgatewayPassword}},
		{name: "password without username", url: unset, user: "", pass: "s3cret",
			errHas: []string{EnvPushgatewayUsername, EnvPushgatewayPassword}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env perf.Env
			for dst, v := range map[**string]string{&env.PushURL: tt.url, &env.PushUsername: tt.user, &env.PushPassword: tt.pass} {
				if v != unset {
					*dst = &v
				}
			}
			got, err := PushConfigFromEnv(env)
			if tt.errHas != nil {
				if err == nil {
					t.Fatalf("PushConfigFromEnv() = %+v, want an error", got)
				}
				for _, s := range tt.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("PushConfigFromEnv: %v", err)
			}
			if got != tt.want {
				t.Errorf("PushConfigFromEnv() = %#v, want %#v", got, tt.want)
			}
			if got.Enabled() != (tt.want.URL != "") {
				t.Errorf("Enabled() = %v with URL %q", got.Enabled(), got.URL)
			}
		})
	}
}

func TestPushConfigStringHidesPassword(t *testing.T) {
	cfg := PushConfig{URL: "http://gw:9091", Username: "ci", Password: "s3cret"}
	for _, s := range []string{cfg.String(), fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg)} {
		if strings.Contains(s, "s3cret") || !strings.Contains(s, "http://gw:9091") {
			t.Errorf("%q: want the URL and no password", s)
		}
	}
}

// pushRequest is what a fake gateway received.
type pushRequest struct {
	method, path, contentType string
	user, pass                string
	hasAuth                   bool
	body                      []byte
}

// fakePushgateway records every request and answers status with message.
func fakePushgateway(t testing.TB, status int, message string) (*httptest.Server, func() []pushRequest) {
	t.Helper()
	var mu sync.Mutex
	var got []pushRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		user, pass, ok := r.BasicAuth()
		mu.Lock()
		got = append(got, pushRequest{r.Method, r.URL.EscapedPath(), r.Header.Get("Content-Type"), user, pass, ok, body})
		mu.Unlock()
		w.WriteHeader(status)
		_, _ = io.WriteString(w, message)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []pushRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// pushPathKey splits a push path into its job and grouping labels. client_golang writes the
// grouping pairs in map order, so the order of test and version varies between pushes.
func pushPathKey(t testing.TB, path string) map[string]string {
	t.Helper()
	parts := strings.Split(strings.TrimPrefix(path, "/metrics/"), "/")
	if !strings.HasPrefix(path, "/metrics/job/") || len(parts)%2 != 0 {
		t.Fatalf("path %q is not /metrics/job/<job>/<label>/<value>...", path)
	}
	key := map[string]string{}
	for i := 0; i < len(parts); i += 2 {
		if _, dup := key[parts[i]]; dup {
			t.Fatalf("path %q repeats %s", path, parts[i])
		}
		key[parts[i]] = parts[i+1]
	}
	return key
}

func TestPushToFakeGateway(t *testing.T) {
	for _, auth := range []bool{false, true} {
		t.Run(fmt.Sprintf("basic auth %v", auth), func(t *testing.T) {
			srv, requests := fakePushgateway(t, http.StatusOK, "")
			cfg := PushConfig{URL: srv.URL, Client: srv.Client()}
			if auth {
				cfg.Username, cfg.Password = "ci", "s3cret"
			}
			rep := pushFixture(t, "20261129T232800Z-4f2a", 1, true)
			if err := Push(t.Context(), cfg, rep); err != nil {
				t.Fatalf("Push: %v", err)
			}
			reqs := requests()
			if len(reqs) != 1 {
				t.Fatalf("gateway got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != http.MethodPost {
				t.Errorf("method %s, want POST (add to the group, never replace it)", r.method)
			}
			wantKey := map[string]string{"job": "daprperf", "perf_test": "service-invocation-http", "test": "service_invocation_http", "version": "1.17.5"}
			if got := pushPathKey(t, r.path); !maps.Equal(got, wantKey) {
				t.Errorf("path %s: grouping %v, want %v", r.path, got, wantKey)
			}
			if !strings.HasPrefix(r.path, "/metrics/job/daprperf/") {
				t.Errorf("path %s does not start with the job", r.path)
			}
			if r.hasAuth != auth || r.user != cfg.Username || r.pass != cfg.Password {
				t.Errorf("basic auth sent %v (%q, %q), want %v (%q, %q)", r.hasAuth, r.user, r.pass, auth, cfg.Username, cfg.Password)
			}
			if !strings.Contains(r.contentType, "application/vnd.google.protobuf") {
				t.Errorf("content type %q, want the protobuf exposition", r.contentType)
			}
			for _, name := range []string{"daprperf_latency_seconds", "daprperf_overhead_seconds", "daprperf_rss_bytes", "LATENCY_BY_DAPR", "httpapp-daprd"} {
				if !strings.Contains(string(r.body), name) {
					t.Errorf("body does not hold %s", name)
				}
			}
		})
	}
}

func TestPushWithTheDefaultClient(t *testing.T) {
	srv, requests := fakePushgateway(t, http.StatusAccepted, "")
	if err := Push(t.Context(), PushConfig{URL: srv.URL}, pushFixture(t, "run-1", 1, true)); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if n := len(requests()); n != 1 {
		t.Errorf("gateway got %d requests, want 1", n)
	}
}

func TestPushFailureCarriesTheGatewayMessage(t *testing.T) {
	srv, _ := fakePushgateway(t, http.StatusInternalServerError, "gateway says no: storage full\n")
	err := Push(t.Context(), PushConfig{URL: srv.URL, Client: srv.Client()}, pushFixture(t, "run-1", 1, true))
	if err == nil {
		t.Fatal("Push to a gateway answering 500 succeeded")
	}
	for _, s := range []string{srv.URL, "500", "gateway says no: storage full"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	var pe *PushError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusInternalServerError || pe.URL != srv.URL {
		t.Errorf("error %#v: want a *PushError with status 500 and URL %s", err, srv.URL)
	}
}

func TestPushFailureMessageIsBounded(t *testing.T) {
	srv, _ := fakePushgateway(t, http.StatusBadGateway, strings.Repeat("x", 64<<10))
	err := Push(t.Context(), PushConfig{URL: srv.URL, Client: srv.Client()}, pushFixture(t, "run-1", 1, true))
	if err == nil {
		t.Fatal("Push to a gateway answering 502 succeeded")
	}
	if len(err.Error()) > pushMaxErrorBody+1024 || !strings.Contains(err.Error(), "(truncated)") {
		t.Errorf("error of %d bytes, want at most about %d and marked truncated", len(err.Error()), pushMaxErrorBody)
	}
}

func TestPushUnreachableNamesTheGateway(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	if err := l.Close(); err != nil { // nothing listens there now
		t.Fatal(err)
	}
	err = Push(t.Context(), PushConfig{URL: url}, pushFixture(t, "run-1", 1, true))
	var pe *PushError
	if !errors.As(err, &pe) || pe.StatusCode != 0 || !strings.Contains(err.Error(), "push to "+url) {
		t.Errorf("Push to a closed port: %v; want a *PushError naming %s, status 0", err, url)
	}
}

func TestPushCanceled(t *testing.T) {
	srv, _ := fakePushgateway(t, http.StatusOK, "")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := Push(ctx, PushConfig{URL: srv.URL, Client: srv.Client()}, pushFixture(t, "run-1", 1, true))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Push with a canceled context: %v, want context.Canceled", err)
	}
}

// failDoer fails the test if a request is sent.
type failDoer struct{ t testing.TB }

func (d failDoer) Do(r *http.Request) (*http.Response, error) {
	d.t.Errorf("unexpected request %s %s", r.Method, r.URL)
	return nil, errors.New("no request expected")
}

func TestPushDisabledSendsNothing(t *testing.T) {
	if err := Push(t.Context(), PushConfig{Client: failDoer{t}}, pushFixture(t, "run-1", 1, true)); err != nil {
		t.Errorf("disabled Push: %v", err)
	}
}

func TestPushRejectsAnIncompleteReportBeforeSending(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*perf.Report)
		errHas string
	}{
		{"no rounds", func(r *perf.Report) { r.Rounds = nil }, "no rounds"},
		{"no run id", func(r *perf.Report) { r.RunID = "" }, "runID"},
		{"no test", func(r *perf.Report) { r.Test = "" }, "test"},
		{"percentile not computed", func(r *perf.Report) { r.Rounds[1].Main.Latency.Percentiles = r.Rounds[1].Main.Latency.Percentiles[:4] },
			"round 2 main: perf: percentile p99.9 was not computed"},
		{"overhead missing", func(r *perf.Report) { r.Overhead = r.Overhead[1:] }, "no overhead at p50"},
		{"mean overhead missing", func(r *perf.Report) { r.Overhead = r.Overhead[:5] }, "no mean overhead"},
		{"duplicate process", func(r *perf.Report) { r.Resources = append(r.Resources, r.Resources[0]) }, `role "app", process "httpapp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := pushFixture(t, "run-1", 1, true)
			tt.mutate(rep)
			err := Push(t.Context(), PushConfig{URL: "http://127.0.0.1:9", Client: failDoer{t}}, rep)
			if err == nil || !strings.Contains(err.Error(), tt.errHas) || !strings.Contains(err.Error(), "push to http://127.0.0.1:9") {
				t.Errorf("Push: %v; want an error naming the gateway and containing %q", err, tt.errHas)
			}
		})
	}
}

func TestPushRejectsAnInvalidURL(t *testing.T) {
	err := Push(t.Context(), PushConfig{URL: "http://ci:s3cret@gw:9091", Client: failDoer{t}}, pushFixture(t, "run-1", 1, true))
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Push to a URL with credentials: %v; want an error without the password", err)
	}
}

// perf_test carries the label Dapr's own tests push under, which its dashboard selects:
// service-invocation-<transport> and state_get_http (dapr/dapr tests/perf, testLabel); the
// other scenarios follow the package form.
func TestPerfTestName(t *testing.T) {
	for _, tc := range []struct {
		test      string
		transport perf.Protocol
		want      string
	}{
		{"service_invocation", perf.HTTP, "service-invocation-http"},
		{"service_invocation", perf.GRPC, "service-invocation-grpc"},
		{"state_get", perf.HTTP, "state_get_http"},
		{"state_get_redis", perf.GRPC, "state_get_redis_grpc"},
		{"memory_growth", perf.HTTP, "memory_growth_http"},
	} {
		if got := PerfTestName(tc.test, tc.transport); got != tc.want {
			t.Errorf("PerfTestName(%q, %q) = %q, want %q", tc.test, tc.transport, got, tc.want)
		}
	}
}
