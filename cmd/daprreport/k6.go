package main

import (
	"github.com/daprperf/daprperf/perf"
)

// k6Summary is what Dapr's k6 tests log: loadtest.K6TestSummary[K6RunnerMetricsSummary]
// (tests/runner/loadtest/k6.go), written by json.MarshalIndent with a one-space indent
// (e.g. tests/perf/workflows/workflow_test.go, runk6test). "pass" must be the first field:
// Dapr's report starts collecting a k6 summary at the line that holds it
// (tests/perf/report/charts.go, main).
type k6Summary struct {
	Pass           bool        `json:"pass"`
	RunnersResults []*k6Runner `json:"runnersResults"`
}

// k6Runner is one k6 runner's metrics (K6RunnerMetricsSummary), in Dapr's field order and with
// Dapr's tags, "http_http_reqs" included (Dapr's tag for k6's http_reqs, which k6 never fills).
// Times are milliseconds, as k6 reports them. A metric this command does not fill keeps its zero
// value, as Dapr's struct does for a metric k6 did not report.
type k6Runner struct {
	Iterations                         k6Counter `json:"iterations"`
	HTTPReqConnecting                  k6Trend   `json:"http_req_connecting"`
	HTTPReqTLSHandshaking              k6Trend   `json:"http_req_tls_handshaking"`
	HTTPReqReceiving                   k6Trend   `json:"http_req_receiving"`
	HTTPReqWaiting                     k6Trend   `json:"http_req_waiting"`
	HTTPReqSending                     k6Trend   `json:"http_req_sending"`
	Checks                             k6Rate    `json:"checks"`
	DataReceived                       k6Counter `json:"data_received"`
	VusMax                             k6Gauge   `json:"vus_max"`
	HTTPReqDurationExpectedResponse    *k6Trend  `json:"http_req_duration{expected_response:true}"`
	HTTPReqDurationNonExpectedResponse *k6Trend  `json:"http_req_duration{expected_response:false}"`
	Vus                                k6Gauge   `json:"vus"`
	HTTPReqFailed                      k6Rate    `json:"http_req_failed"`
	IterationDuration                  k6Trend   `json:"iteration_duration"`
	HTTPReqBlocked                     k6Trend   `json:"http_req_blocked"`
	HTTPReqs                           k6Counter `json:"http_http_reqs"`
	DataSent                           k6Counter `json:"data_sent"`
	HTTPReqDuration                    k6Trend   `json:"http_req_duration"`
}

// k6Trend is a k6 trend metric (K6TrendMetric): milliseconds.
type k6Trend struct {
	Type     string `json:"type"`
	Contains string `json:"contains"`
	Values   struct {
		Max float64 `json:"max"`
		P90 float64 `json:"p(90)"`
		P95 float64 `json:"p(95)"`
		Avg float64 `json:"avg"`
		Min float64 `json:"min"`
		Med float64 `json:"med"`
	} `json:"values"`
}

// k6Gauge is a k6 gauge metric (K6GaugeMetric), whole numbers.
type k6Gauge struct {
	Type     string `json:"type"`
	Contains string `json:"contains"`
	Values   struct {
		Max int `json:"max"`
		P90 int `json:"p(90)"`
		P95 int `json:"p(95)"`
		Avg int `json:"avg"`
		Min int `json:"min"`
		Med int `json:"med"`
	} `json:"values"`
}

// k6Counter is a k6 counter metric (K6CounterMetric): a count and its rate per second.
type k6Counter struct {
	Type     string `json:"type"`
	Contains string `json:"contains"`
	Values   struct {
		Count float64 `json:"count"`
		Rate  float64 `json:"rate"`
	} `json:"values"`
}

// k6Rate is a k6 rate metric (K6RateMetric): Passes counts the non-zero samples (for
// http_req_failed, the failed requests), Fails the zero ones, Rate Passes over both.
type k6Rate struct {
	Type     string `json:"type"`
	Contains string `json:"contains"`
	Values   struct {
		Rate   float64 `json:"rate"`
		Passes int     `json:"passes"`
		Fails  int     `json:"fails"`
	} `json:"values"`
}

// k6SummaryOf is s as Dapr's k6 summary: one runner per tester when every result was split
// over the same number of testers (Dapr's k6 parallelism: one runner each), else one runner.
func k6SummaryOf(s *sample, pass bool) (k6Summary, error) {
	sum := k6Summary{Pass: pass}
	n := len(s.Results[0].Testers)
	for _, r := range s.Results {
		if len(r.Testers) != n {
			n = 0
		}
	}
	if n < 2 {
		k, err := k6RunnerOf(s)
		if err != nil {
			return k6Summary{}, err
		}
		sum.RunnersResults = []*k6Runner{k}
		return sum, nil
	}
	for i := range n {
		per := &sample{Latency: s.Latency}
		for _, r := range s.Results {
			per.Results = append(per.Results, r.Testers[i])
		}
		k, err := k6RunnerOf(per)
		if err != nil {
			return k6Summary{}, err
		}
		sum.RunnersResults = append(sum.RunnersResults, k)
	}
	return sum, nil
}

// k6RunnerOf is one runner's metrics from s.
func k6RunnerOf(s *sample) (*k6Runner, error) {
	st, err := measure(s)
	if err != nil {
		return nil, err
	}
	var k k6Runner
	k.Iterations.Type, k.Iterations.Contains = "counter", "default"
	k.Iterations.Values.Count, k.Iterations.Values.Rate = float64(st.Count), st.QPS
	if st.Count > 0 {
		k.Checks = rateOf(st.Count-st.Errors, st.Count)
	}
	t := trendOf(st)
	switch s.Latency {
	case latencyBoth:
		k.HTTPReqDuration, k.IterationDuration = t, t
	case latencyRequest:
		k.HTTPReqDuration = t
	case latencyIteration:
		k.IterationDuration = t
	}
	if s.Latency != latencyIteration && st.Count > 0 {
		var failed int64
		for i := range s.Results {
			failed += s.Results[i].Errors() - s.Results[i].AwaitFailures()
		}
		k.HTTPReqFailed = rateOf(failed, st.Count)
	}
	for i := range s.Results {
		if e := s.Results[i].Executor; e != nil {
			k.VusMax.Type, k.VusMax.Contains = "gauge", "default"
			k.Vus.Type, k.Vus.Contains = "gauge", "default"
			k.VusMax.Values.Max = max(k.VusMax.Values.Max, e.MaxVUs)
			k.Vus.Values.Max = max(k.Vus.Values.Max, e.MaxActiveVUs)
		}
	}
	return &k, nil
}

// rateOf is a k6 rate of passes non-zero samples out of total.
func rateOf(passes, total int64) k6Rate {
	var r k6Rate
	r.Type, r.Contains = "rate", "default"
	r.Values.Passes, r.Values.Fails = int(passes), int(total-passes)
	r.Values.Rate = float64(passes) / float64(total)
	return r
}

// trendOf is st's time as a k6 trend, milliseconds; a percentile st lacks stays 0.
func trendOf(st stat) k6Trend {
	var t k6Trend
	if st.Count == 0 {
		return t
	}
	const ms = 1000
	t.Type, t.Contains = "trend", "time"
	t.Values.Avg, t.Values.Min, t.Values.Max = st.Mean*ms, st.Min*ms, st.Max*ms
	t.Values.Med, t.Values.P90, t.Values.P95 = st.Pct[50]*ms, st.Pct[90]*ms, st.Pct[95]*ms
	return t
}

// passed is what a daprperf result says of the test: passed, and complete.
func passed(r *perf.Report) bool { return r.Pass && !r.Incomplete }
