package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"

	"github.com/golang/snappy"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/encoding/protowire"
)

// EnvPrometheusWriteURL is the variable naming the remote-write endpoint every run is also
// written to (perf.Env.PrometheusWriteURL); unset or empty means no write.
const EnvPrometheusWriteURL = "DAPR_PERF_PROMETHEUS_WRITE_URL"

// DefaultWriteTimeout bounds one write request (connect, send, answer) when WriteConfig.Client
// is nil.
const DefaultWriteTimeout = 30 * time.Second

// prometheusWritePath is the path of Prometheus's own receiver
// (--web.enable-remote-write-receiver), added to a URL that names no path.
const prometheusWritePath = "/api/v1/write"

// writeRetries is how many times a write answered with a 5xx status is sent again, after
// writeBackoff, then twice that: the remote-write spec asks senders to retry on 5xx.
const (
	writeRetries = 2
	writeBackoff = time.Second
)

// WriteConfig says where Write sends a run's samples. The zero value disables the write.
type WriteConfig struct {
	// URL is the remote-write endpoint: http://127.0.0.1:9090/api/v1/write for a Prometheus
	// started with --web.enable-remote-write-receiver. A URL without a path gets
	// /api/v1/write; host:port means http. Empty disables the write.
	URL string
	// Client sends the request. nil means an http.Client (default transport) with
	// DefaultWriteTimeout.
	Client interface {
		Do(*http.Request) (*http.Response, error)
	}
}

// Enabled reports whether a write is configured (URL is set).
func (c WriteConfig) Enabled() bool { return c.URL != "" }

// String describes the configuration.
func (c WriteConfig) String() string {
	if !c.Enabled() {
		return "prometheus remote write: disabled"
	}
	return "prometheus remote write " + c.URL
}

// WriteConfigFromEnv reads env's EnvPrometheusWriteURL. Unset or empty gives a disabled config
// and no error; a value that is not an http or https URL with a host (credentials, a query or
// a fragment are refused too) is an error naming the variable and what it accepts. The URL is
// returned normalised (scheme added, /api/v1/write added to an empty path).
func WriteConfigFromEnv(env perf.Env) (WriteConfig, error) {
	raw := perf.Val(env.PrometheusWriteURL)
	if raw == "" {
		return WriteConfig{}, nil
	}
	u, err := RemoteWriteURL(raw)
	if err != nil {
		return WriteConfig{}, fmt.Errorf("perf: %s=%q: %w", EnvPrometheusWriteURL, redactedURL(raw), err)
	}
	return WriteConfig{URL: u}, nil
}

// RemoteWriteURL validates raw as a remote-write endpoint and returns it normalised: http://
// is added to host:port, and /api/v1/write (Prometheus's receiver) to a URL without a path.
// The error says what is accepted: an http or https URL with a host, and no credentials
// (errors print the URL), query or fragment.
func RemoteWriteURL(raw string) (string, error) {
	u, err := httpURL(raw, "http://127.0.0.1:9090/api/v1/write", "")
	if err != nil {
		return "", err
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = prometheusWritePath
	}
	return u.String(), nil
}

// WriteError is a failed write. Its text names the endpoint, the status and the receiver's
// answer; for samples a Prometheus refused as too old it adds what to configure.
type WriteError struct {
	// URL is the remote-write endpoint.
	URL string
	// StatusCode is the receiver's HTTP status, or 0 when no answer came (unreachable,
	// timeout, canceled) or the write failed before sending.
	StatusCode int
	Err        error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("perf: prometheus remote write to %s: %v", e.URL, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// SampleTime is the time Write stamps a report's samples with: the run's start
// (rep.Environment.StartTime), so that each run is one point in time however long after it it
// is written, and runs of one make perf invocation lie in the order they ran. A report
// without a start time is an error.
func SampleTime(rep *perf.Report) (time.Time, error) {
	if rep == nil {
		return time.Time{}, errors.New("no report")
	}
	if rep.Environment.StartTime.IsZero() {
		return time.Time{}, errors.New("report has no start time (environment.startTime) to stamp its samples with")
	}
	return rep.Environment.StartTime, nil
}

// Write sends rep's figures to the remote-write endpoint in cfg as one Prometheus remote-write
// 1.0 request (a snappy-compressed prometheus.WriteRequest protobuf), every sample stamped
// with SampleTime(rep) in milliseconds. The series are those Push sends, under the same
// metric names and labels, each also carrying the grouping key's labels (job=PushJob,
// perf_test, test, version: the daprd version) and what a history tells runs apart by:
// transport and platform (rep.Environment.Platform, left out when empty); run_id is on every
// metric already. A disabled cfg is a no-op.
//
// A Prometheus keeps samples older than its head block's range (about an hour behind its
// newest sample) only within storage.tsdb.out_of_order_time_window; without one it refuses
// them, and the error says so (docs/results.md). An answer of 5xx is retried twice, after 1 s
// and 2 s; any failure is a *WriteError, with the receiver's message.
func Write(ctx context.Context, cfg WriteConfig, rep *perf.Report) error {
	if !cfg.Enabled() {
		return nil
	}
	endpoint, err := RemoteWriteURL(cfg.URL)
	if err != nil {
		return &WriteError{URL: redactedURL(cfg.URL), Err: err}
	}
	body, err := writeRequest(rep)
	if err != nil {
		return &WriteError{URL: endpoint, Err: err}
	}
	client := cfg.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultWriteTimeout}
	}
	compressed := snappy.Encode(nil, body)
	for attempt := 0; ; attempt++ {
		status, err := writeOnce(ctx, client, endpoint, compressed)
		if err == nil {
			return nil
		}
		if status/100 != 5 || attempt == writeRetries {
			return &WriteError{URL: endpoint, StatusCode: status, Err: err}
		}
		select {
		case <-ctx.Done():
			return &WriteError{URL: endpoint, StatusCode: status, Err: fmt.Errorf("%w (then %w)", err, ctx.Err())}
		case <-time.After(writeBackoff << attempt):
		}
	}
}

// writeOnce posts one compressed WriteRequest and returns the answer's status (0 when none
// came) and, for a non-2xx answer, an error holding the receiver's message.
func writeOnce(ctx context.Context, client interface {
	Do(*http.Request) (*http.Response, error)
}, endpoint string, compressed []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(compressed))
	if err != nil {
		return 0, err
	}
	// The headers remote write 1.0 requires.
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	req.Header.Set("User-Agent", "daprperf")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, pushMaxErrorBody+1)) // for the message only
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, nil
	}
	if len(msg) > pushMaxErrorBody {
		msg = append(msg[:pushMaxErrorBody], " ... (truncated)"...)
	}
	text := string(bytes.TrimSpace(msg))
	err = fmt.Errorf("%s: %s", resp.Status, text)
	for _, refused := range []string{"out of bounds", "too old", "out of order"} {
		if strings.Contains(text, refused) {
			err = fmt.Errorf("%w: the samples are older than the receiver accepts; a Prometheus takes them within storage.tsdb.out_of_order_time_window of its configuration (docs/results.md)", err)
			break
		}
	}
	return resp.StatusCode, err
}

// writeSeries is one series of a write: its labels, sorted by name, __name__ among them.
type writeSeries struct {
	labels [][2]string
	value  float64
}

// writeRequest is the protobuf prometheus.WriteRequest (remote write 1.0) of rep: one sample
// per series at SampleTime(rep), and the metadata (type gauge, help) of each family.
func writeRequest(rep *perf.Report) ([]byte, error) {
	at, err := SampleTime(rep)
	if err != nil {
		return nil, err
	}
	series, families, err := remoteSeries(rep)
	if err != nil {
		return nil, err
	}
	ts := at.UnixMilli()
	var out []byte
	for _, s := range series {
		var m []byte
		for _, l := range s.labels {
			var lb []byte
			lb = protowire.AppendTag(lb, 1, protowire.BytesType) // Label.name
			lb = protowire.AppendString(lb, l[0])
			lb = protowire.AppendTag(lb, 2, protowire.BytesType) // Label.value
			lb = protowire.AppendString(lb, l[1])
			m = protowire.AppendTag(m, 1, protowire.BytesType) // TimeSeries.labels
			m = protowire.AppendBytes(m, lb)
		}
		var sb []byte
		sb = protowire.AppendTag(sb, 1, protowire.Fixed64Type) // Sample.value
		sb = protowire.AppendFixed64(sb, math.Float64bits(s.value))
		sb = protowire.AppendTag(sb, 2, protowire.VarintType) // Sample.timestamp, ms
		sb = protowire.AppendVarint(sb, uint64(ts))
		m = protowire.AppendTag(m, 2, protowire.BytesType) // TimeSeries.samples
		m = protowire.AppendBytes(m, sb)
		out = protowire.AppendTag(out, 1, protowire.BytesType) // WriteRequest.timeseries
		out = protowire.AppendBytes(out, m)
	}
	for _, f := range families {
		var mb []byte
		mb = protowire.AppendTag(mb, 1, protowire.VarintType) // MetricMetadata.type
		mb = protowire.AppendVarint(mb, 2)                    // GAUGE
		mb = protowire.AppendTag(mb, 2, protowire.BytesType)  // MetricMetadata.metric_family_name
		mb = protowire.AppendString(mb, f.GetName())
		mb = protowire.AppendTag(mb, 4, protowire.BytesType) // MetricMetadata.help
		mb = protowire.AppendString(mb, f.GetHelp())
		out = protowire.AppendTag(out, 3, protowire.BytesType) // WriteRequest.metadata
		out = protowire.AppendBytes(out, mb)
	}
	return out, nil
}

// remoteSeries is every series Push would send for rep (pushRegistry), with the grouping key's
// labels and transport and platform added, each series' labels sorted by name; and the
// gathered families, for their metadata.
func remoteSeries(rep *perf.Report) ([]writeSeries, []*dto.MetricFamily, error) {
	grouping, err := pushGrouping(rep)
	if err != nil {
		return nil, nil, err
	}
	reg, err := pushRegistry(rep)
	if err != nil {
		return nil, nil, err
	}
	families, err := reg.Gather()
	if err != nil {
		return nil, nil, err
	}
	common := [][2]string{{"job", PushJob}, {"transport", string(rep.Transport)}}
	common = append(common, grouping...)
	if p := rep.Environment.Platform; p != "" {
		common = append(common, [2]string{"platform", p})
	}
	var out []writeSeries
	for _, f := range families {
		if f.GetType() != dto.MetricType_GAUGE {
			return nil, nil, fmt.Errorf("metric %s is a %s; only gauges are written", f.GetName(), f.GetType())
		}
		for _, m := range f.GetMetric() {
			labels := append([][2]string{{"__name__", f.GetName()}}, common...)
			for _, lp := range m.GetLabel() {
				if lp.GetValue() != "" { // an empty label is no label, in Prometheus
					labels = append(labels, [2]string{lp.GetName(), lp.GetValue()})
				}
			}
			slices.SortFunc(labels, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
			for i := 1; i < len(labels); i++ {
				if labels[i][0] == labels[i-1][0] {
					return nil, nil, fmt.Errorf("metric %s has the label %s twice", f.GetName(), labels[i][0])
				}
			}
			out = append(out, writeSeries{labels: labels, value: m.GetGauge().GetValue()})
		}
	}
	return out, families, nil
}
