package main

// This file restates, as facts, how Dapr's report tool reads test_report_perf.json: dapr/dapr
// tests/perf/report at v1.18.3. Each step names the Dapr file and function it comes from; the
// code is written here, not copied. The tests in daprreport_test.go run it on what this command
// writes.

import (
	"bufio"
	"encoding/json"
	"io"
	"path"
	"strconv"
	"strings"
)

// daprEvent is the part of a go test -json event Dapr reads (charts.go, goTestEvent).
type daprEvent struct {
	Time    string `json:"Time"`
	Action  string `json:"Action"`
	Package string `json:"Package"`
	Test    string `json:"Test,omitempty"`
	Output  string `json:"Output,omitempty"`
}

// daprValues, daprMetric and daprRunner are the k6 shape Dapr's charts draw from, also filled
// from a fortio result (charts.go, Values, Metric, Runner): the same JSON tags.
type daprValues struct {
	Min   float64 `json:"min"`
	Med   float64 `json:"med"`
	P75   float64 `json:"p(75)"`
	Avg   float64 `json:"avg"`
	P90   float64 `json:"p(90)"`
	P95   float64 `json:"p(95)"`
	P99   float64 `json:"p(99)"`
	P999  float64 `json:"p(99.9)"`
	Max   float64 `json:"max"`
	Rate  float64 `json:"rate,omitempty"`
	Count float64 `json:"count,omitempty"`
}

type daprMetric struct {
	Values daprValues `json:"values"`
}

type daprRunner struct {
	HTTPReqDuration   daprMetric `json:"http_req_duration"`
	HTTPReqWaiting    daprMetric `json:"http_req_waiting"`
	HTTPReqConnecting daprMetric `json:"http_req_connecting"`
	HTTPReqTLS        daprMetric `json:"http_req_tls_handshaking"`
	HTTPReqSending    daprMetric `json:"http_req_sending"`
	HTTPReqReceiving  daprMetric `json:"http_req_receiving"`
	HTTPReqBlocked    daprMetric `json:"http_req_blocked"`
	HTTPReqFailed     daprMetric `json:"http_req_failed"`
	IterationDuration daprMetric `json:"iteration_duration"`
	Iterations        daprMetric `json:"iterations"`
	Checks            daprMetric `json:"checks"`
	VUsMax            daprMetric `json:"vus_max"`
	DataReceived      daprMetric `json:"data_received"`
	DataSent          daprMetric `json:"data_sent"`
}

// daprK6Summary is k6_charts.go's Summary.
type daprK6Summary struct {
	Pass           bool         `json:"pass"`
	RunnersResults []daprRunner `json:"runnersResults"`
}

// daprPercentile, daprHistogram and daprFortioResult are fortio_charts.go's percentilePoint,
// durationHistogram and FortioResult.
type daprPercentile struct {
	Percentile float64 `json:"Percentile"`
	Value      float64 `json:"Value"`
}

type daprHistogram struct {
	Count int     `json:"Count"`
	Min   float64 `json:"Min"`
	Max   float64 `json:"Max"`
	Sum   float64 `json:"Sum"`
	Avg   float64 `json:"Avg"`
	Data  []struct {
		Start   float64 `json:"Start"`
		End     float64 `json:"End"`
		Percent float64 `json:"Percent"`
		Count   int     `json:"Count"`
	} `json:"Data"`
	Percentiles []daprPercentile `json:"Percentiles,omitempty"`
}

type daprFortioResult struct {
	RunType            string           `json:"RunType"`
	RequestedQPS       string           `json:"RequestedQPS"`
	RequestedDuration  string           `json:"RequestedDuration"`
	ActualQPS          float64          `json:"ActualQPS"`
	ActualDuration     float64          `json:"ActualDuration"`
	NumThreads         int              `json:"NumThreads"`
	DurationHistogram  daprHistogram    `json:"DurationHistogram"`
	Percentiles        []daprPercentile `json:"Percentiles"`
	ErrorsDurationHist *daprHistogram   `json:"ErrorsDurationHistogram,omitempty"`
	Dapr               string           `json:"Dapr,omitempty"`
	URL                string           `json:"URL,omitempty"`
	RetCodes           map[string]int   `json:"RetCodes,omitempty"`
	Sizes              map[string]any   `json:"Sizes,omitempty"`
	HeaderSizes        map[string]any   `json:"HeaderSizes,omitempty"`
	ConnectionStats    map[string]any   `json:"ConnectionStats,omitempty"`
	IPCountMap         map[string]int   `json:"IPCountMap,omitempty"`
}

// daprPct is the value of percentile p in a fortio result's DurationHistogram, 0 when absent:
// matched on p x 10 truncated, or exactly (fortio_charts.go, convertFortioPerfToRunner, getPct).
func daprPct(f daprFortioResult, p float64) float64 {
	for _, q := range f.DurationHistogram.Percentiles {
		if q.Percentile == p || int(q.Percentile*10) == int(p*10) {
			return q.Value
		}
	}
	return 0
}

// daprSuccessRate is the share of successful answers, -1 when there are none: HTTP counts
// codes starting with "2", gRPC (RunType "grpc") counts "serving", any other RunType either
// (fortio_charts.go, convertFortioPerfToRunner, computeSuccessRate).
func daprSuccessRate(f daprFortioResult) float64 {
	total, ok := 0, 0
	kind := strings.ToLower(strings.TrimSpace(f.RunType))
	for code, n := range f.RetCodes {
		total += n
		serving := strings.ToLower(strings.TrimSpace(code)) == "serving"
		two := strings.HasPrefix(code, "2")
		if (kind == "grpc" && serving) || (kind == "http" && two) || (kind != "grpc" && kind != "http" && (two || serving)) {
			ok += n
		}
	}
	if total == 0 {
		return -1
	}
	return float64(ok) / float64(total)
}

// daprTestModesV1183 is what buildTestModes (classify.go) makes of Dapr's tests/perf at
// v1.18.3: a function is "k6" when its _test.go file contains "NewK6(", else "fortio" when it
// contains "Params(" or "WithQPS(". TestDaprTestModes recomputes it from a Dapr checkout when
// given one.
var daprTestModesV1183 = map[string]string{
	"TestActorActivate":                                 "fortio",
	"TestActorDoubleActivation":                         "k6",
	"TestActorIdStress":                                 "k6", // actor_id_scale and actor_type_scale alike
	"TestActorReminderRegistrationPerformance":          "fortio",
	"TestActorReminderTriggerPerformance":               "fortio",
	"TestActorTimerWithStatePerformance":                "fortio",
	"TestConfigurationGetHTTPPerformance":               "k6",
	"TestConfigurationGetGRPCPerformance":               "k6",
	"TestConfigurationSubscribeHTTPPerformance":         "k6",
	"TestConfigurationSubscribeGRPCPerformance":         "k6",
	"TestJobSchedulingPerformance":                      "fortio",
	"TestJobTriggerPerformance":                         "fortio",
	"TestBulkPubsubPublishGrpcPerformance":              "fortio",
	"TestPubsubBulkPublishHttpPerformance":              "k6",
	"TestPubsubPublishGrpcPerformance":                  "fortio",
	"TestPubsubPublishHttpPerformance":                  "k6",
	"TestPubsubBulkPublishSubscribeHttpPerformance":     "k6",
	"TestPubsubBulkPublishBulkSubscribeHttpPerformance": "k6",
	"TestServiceInvocationGrpcPerformance":              "fortio",
	"TestServiceInvocationHTTPPerformance":              "fortio",
	"TestStateGetGrpcPerformance":                       "fortio",
	"TestStateGetHTTPPerformance":                       "fortio",
	"TestParamsOpts":                                    "fortio", // tests/perf/test_params_test.go: never charted
	"TestWorkflowWithConstantVUs":                       "k6",
	"TestWorkflowWithConstantIterations":                "k6",
	"TestSeriesWorkflowWithMaxVUs":                      "k6",
	"TestParallelWorkflowWithMaxVUs":                    "k6",
	"TestWorkflowWithDifferentPayloads":                 "k6",
	"TestDelayWorkflowsAtScale":                         "k6",
}

// daprModeOfSource is buildTestModes's rule for one test file's source, and the test functions
// it maps: lines that, trimmed, start with "func Test" and hold "(t *testing.T)".
func daprModeOfSource(src string) (mode string, funcs []string) {
	switch {
	case strings.Contains(src, "NewK6("):
		mode = "k6"
	case strings.Contains(src, "Params(") || strings.Contains(src, "WithQPS("):
		mode = "fortio"
	default:
		return "", nil
	}
	for line := range strings.SplitSeq(src, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "func Test") && strings.Contains(l, "(t *testing.T)") {
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "func "), "(")
			if name = strings.TrimSpace(name); name != "" {
				funcs = append(funcs, name)
			}
		}
	}
	return mode, funcs
}

// daprClassify is classifyAPIAndTransport (classify.go) followed by prepareOutputInfo's move of
// a pub/sub test whose name holds "bulk" to pubsub/bulk (common_charts.go): the chart folder of
// a test, and false when Dapr's report does not chart its package.
func daprClassify(pkg, test string) (api, transport string, ok bool) {
	p, t := strings.ToLower(pkg), strings.ToLower(test)
	seg := strings.ToLower(path.Base(pkg))
	tr := daprTransport(p, t, seg)
	switch {
	case strings.Contains(p, "/workflow") || strings.Contains(seg, "workflow"):
		return "workflows", "", true
	case strings.Contains(p, "/service_invocation") || strings.HasPrefix(seg, "service_invocation"):
		api = "service_invocation"
	case strings.Contains(p, "/actor") || strings.HasPrefix(seg, "actor") || strings.Contains(seg, "actors"):
		api = "actors"
	case strings.Contains(p, "/state") || strings.HasPrefix(seg, "state"):
		api = "state"
	case strings.Contains(p, "/pubsub") || strings.HasPrefix(seg, "pubsub"):
		api = "pubsub"
		if strings.Contains(p, "/pubsub_bulk") || strings.HasPrefix(seg, "pubsub_bulk") || strings.Contains(p, "bulk_publish") || strings.Contains(seg, "bulk") {
			api = "pubsub/bulk"
		}
	case strings.Contains(p, "/configuration") || seg == "configuration" || strings.HasPrefix(seg, "configuration_"):
		api = "configuration"
	case strings.Contains(p, "/tests/perf"):
		api = seg
	default:
		return "", "", false
	}
	if strings.HasPrefix(api, "pubsub") && strings.Contains(t, "bulk") {
		api = "pubsub/bulk"
	}
	return api, tr, true
}

// daprTransport is classifyTransport (classify.go): http or grpc in the package path or its last
// segment, else in the test name; "" when none says.
func daprTransport(pkg, test, seg string) string {
	for _, s := range []string{pkg + " " + seg, test} {
		if strings.Contains(s, "http") {
			return "http"
		}
		if strings.Contains(s, "grpc") {
			return "grpc"
		}
	}
	return ""
}

// daprGroupKey is the key Dapr's report aggregates a test's runs under (common_charts.go,
// prepareOutputInfo, with sanitize.go's stripRunOrdinalSuffix and sanitizeName): for pub/sub the
// whole name, else the function's; then without a run ordinal (":_#", ":#", " #") and with '/',
// ' ' and ':' as '_' and '[', ']', '=', ',' removed.
func daprGroupKey(api, test string) string {
	name := test
	if !strings.HasPrefix(api, "pubsub") {
		name, _, _ = strings.Cut(name, "/")
	}
	cut := -1
	for _, mark := range []string{":_#", ":#", " #"} {
		if i := strings.Index(name, mark); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		name = strings.TrimSpace(name[:cut])
	}
	return strings.NewReplacer("/", "_", " ", "_", ":", "_", "[", "", "]", "", "=", "", ",", "").Replace(strings.TrimSpace(name))
}

// daprUsage is resource.go's ResourceUsage: mCPU, MB and restart counts.
type daprUsage struct {
	AppCPUm, AppMemMB, SidecarCPUm, SidecarMemMB float64
	TargetRestarts, TesterRestarts               int
	lines                                        int // usage and restart lines read
}

// daprParseUsage reads a resource line (resource.go, parseResourceUsageLine): lower-cased and
// trimmed, after the app or the sidecar marker, "<v>m cpu" and " cpu and <v>mb of memory"; a
// line with neither value is not one.
func daprParseUsage(line string) (resource string, cpuMilli, memMB float64, ok bool) {
	l := strings.ToLower(strings.TrimSpace(line))
	var marker string
	switch {
	case strings.Contains(l, "target dapr app consumed"):
		resource, marker = "app", "target dapr app consumed"
	case strings.Contains(l, "target dapr sidecar consumed"):
		resource, marker = "sidecar", "target dapr sidecar consumed"
	default:
		return "", 0, 0, false
	}
	_, rest, _ := strings.Cut(l, marker)
	rest = strings.TrimSpace(rest)
	if cpu, _, found := strings.Cut(rest, " cpu"); found {
		if v, isMilli := strings.CutSuffix(strings.TrimSpace(cpu), "m"); isMilli {
			cpuMilli, _ = strconv.ParseFloat(v, 64)
		}
	}
	if _, mem, found := strings.Cut(rest, " cpu and "); found {
		if v, _, found := strings.Cut(mem, "mb of memory"); found {
			memMB, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if cpuMilli == 0 && memMB == 0 {
		return "", 0, 0, false
	}
	return resource, cpuMilli, memMB, true
}

// daprParseRestarts reads a restart line (resource.go, parseRestartLine): it holds "restarted"
// and the target or the tester marker; the count is between "restarted " and " times".
func daprParseRestarts(line string) (resource string, count int, ok bool) {
	l := strings.ToLower(strings.TrimSpace(line))
	if !strings.Contains(l, "restarted") {
		return "", 0, false
	}
	switch {
	case strings.Contains(l, "target dapr app or sidecar restarted"):
		resource = "target"
	case strings.Contains(l, "tester app or sidecar restarted"):
		resource = "tester"
	default:
		return "", 0, false
	}
	if _, rest, found := strings.Cut(l, "restarted "); found {
		if n, _, found := strings.Cut(rest, " times"); found {
			count, _ = strconv.Atoi(strings.TrimSpace(n))
		}
	}
	return resource, count, true
}

// daprCollected is one summary Dapr's report processed: the test it was collected for, its
// suite, its JSON as finalized, and the resource usage read for that test by then.
type daprCollected struct {
	Pkg, Test, Suite string
	JSON             string
	Usage            daprUsage
}

// daprParse reads a go test -json stream as Dapr's report does (charts.go, main), with testModes
// as buildTestModes's map: it returns each summary it collects, and every test's resource usage.
//
//   - A "run" event of a test processes what was being collected for the previous test, then
//     makes the new one current.
//   - An "output" event counts only when its Test is the current test. A resource or restart
//     line is read into that test's usage. Collection starts, for a test whose function (the name
//     before "/" and before ":_") is "k6", at a line holding `"pass":` or `"runnersresults"`
//     (lower-cased), seeded with "{\n"; for "fortio", at a line holding `"runtype"`, trimmed, its
//     "Test summary " prefix cut and "{" put before it when it lacks one. While collecting, such a
//     start line starts the buffer again (for k6 only `"pass":`: the second check compares
//     the lower-cased line with `"runnersResults"`); other lines, backticks removed, are appended:
//     fortio's as they are, k6's after a "\n".
//   - A "pass", "fail" or "skip" event of the current test processes what was collected; one
//     without Test (the package's) drops it.
//   - Processing keeps the text from the first '{' to the last '}' (finalizeCollectedJSON).
func daprParse(r io.Reader, testModes map[string]string) ([]daprCollected, map[string]*daprUsage, error) {
	var (
		out          []daprCollected
		usage        = map[string]*daprUsage{}
		current, pkg string
		collecting   bool
		suite        string
		buf          strings.Builder
		skip         = map[string]bool{}
	)
	resetCollecting := func() { collecting, suite = false, ""; buf.Reset() }
	processCurrent := func() { // processK6Summary or processFortioSummary, by the suite collected
		if j := daprFinalize(buf.String()); j != "" && suite != "" {
			c := daprCollected{Pkg: pkg, Test: current, Suite: suite, JSON: j}
			if u := usage[current]; u != nil {
				c.Usage = *u
			}
			out = append(out, c)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var ev daprEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue // Dapr skips a line that is not an event
		}
		switch ev.Action {
		case "run":
			if ev.Test == "" {
				continue
			}
			if collecting && current != "" {
				processCurrent()
			}
			resetCollecting()
			current, pkg = ev.Test, ev.Package
			if strings.HasPrefix(current, "TestParamsOpts") {
				skip[current] = true
			}
		case "output":
			if ev.Test == "" || ev.Test != current || skip[current] {
				continue
			}
			u := usage[current]
			if u == nil {
				u = &daprUsage{}
			}
			if res, cpu, mem, ok := daprParseUsage(ev.Output); ok {
				usage[current] = u
				u.lines++
				if res == "app" {
					u.AppCPUm, u.AppMemMB = cpu, mem
				} else {
					u.SidecarCPUm, u.SidecarMemMB = cpu, mem
				}
			} else if res, n, ok := daprParseRestarts(ev.Output); ok {
				usage[current] = u
				u.lines++
				if res == "target" {
					u.TargetRestarts = n
				} else {
					u.TesterRestarts = n
				}
			}
			line := strings.ReplaceAll(ev.Output, "`", "")
			lower := strings.ToLower(line)
			if collecting {
				switch {
				case suite == "k6" && strings.Contains(lower, `"pass":`):
					buf.Reset()
					buf.WriteString("{\n" + line)
				case suite == "fortio" && strings.Contains(lower, `"runtype"`):
					buf.Reset()
					buf.WriteString(daprFortioStart(line))
				case suite == "fortio":
					buf.WriteString(line)
				default:
					buf.WriteString("\n" + line)
				}
				continue
			}
			fn, _, _ := strings.Cut(current, "/")
			fn, _, _ = strings.Cut(fn, ":_")
			mode := strings.ToLower(strings.TrimSpace(testModes[fn]))
			switch {
			case mode == "k6" && (strings.Contains(lower, `"pass":`) || strings.Contains(lower, `"runnersresults"`)):
				collecting, suite = true, "k6"
				buf.Reset()
				buf.WriteString("{\n" + line)
			case mode == "fortio" && strings.Contains(lower, `"runtype"`):
				collecting, suite = true, "fortio"
				buf.Reset()
				buf.WriteString(daprFortioStart(line))
			}
		case "pass", "fail", "skip":
			switch {
			case ev.Test == current && collecting:
				processCurrent()
				resetCollecting()
			case ev.Test == "" && collecting:
				resetCollecting()
			}
		}
	}
	return out, usage, sc.Err()
}

// daprFortioStart is a fortio start line as Dapr keeps it: trimmed, without "Test summary ",
// with "{" before it when it has none.
func daprFortioStart(line string) string {
	line = strings.TrimPrefix(strings.TrimSpace(line), "Test summary ")
	if !strings.HasPrefix(line, "{") {
		line = "{" + line
	}
	return line
}

// daprFinalize is finalizeCollectedJSON (charts.go): backticks removed, trimmed, from the first
// '{' to the last '}'; "" when there is no such span.
func daprFinalize(buf string) string {
	buf = strings.TrimSpace(strings.ReplaceAll(buf, "`", ""))
	start, end := strings.Index(buf, "{"), strings.LastIndex(buf, "}")
	if start < 0 || end < 0 || start >= end {
		return ""
	}
	return strings.TrimSpace(buf[start : end+1])
}
