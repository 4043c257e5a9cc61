// Package promtest runs a real Prometheus server or Pushgateway for a test: Debian's binaries
// (apt packages prometheus and prometheus-pushgateway, which make test-deps installs), on a free
// 127.0.0.1 port, their data in t.TempDir(), stopped by their PID when the test ends.
// Prometheus runs with its remote-write receiver on; Query reads it back over the HTTP API.
//
// Without a binary a test skips, naming make test-deps, and fails when CI is set.
package promtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is one running Prometheus or Pushgateway process owned by a test.
type Server struct {
	// Name is the server's kind, for messages: "prometheus" or "pushgateway".
	Name string
	// URL is its base URL, http://127.0.0.1:<port>.
	URL string
	// WriteURL is a Prometheus's remote-write receiver, URL + /api/v1/write.
	WriteURL string
	// PID is the process id, which Stop signals.
	PID int

	t    testing.TB
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	log  *lockedBuffer
	once sync.Once
}

// Options configure a Server. The zero value is a Prometheus without an out-of-order window.
type Options struct {
	// OutOfOrderWindow is storage.tsdb.out_of_order_time_window in its configuration file, a
	// Prometheus duration such as "10y"; empty leaves it out (Prometheus's default, 0: a
	// sample more than about an hour older than the newest is refused).
	OutOfOrderWindow string
	// Scrape are host:port targets it scrapes every second, with honor_labels (as a Prometheus
	// scrapes a Pushgateway: the pushed job and instance labels kept); none when empty.
	Scrape []string
}

// Binary returns the path of the prometheus binary, or skips t naming make test-deps (fails
// it when the CI variable is set).
func Binary(t testing.TB) string {
	t.Helper()
	return binary(t, "Prometheus", "prometheus")
}

// PushgatewayBinary returns the path of the Pushgateway binary (Debian's
// prometheus-pushgateway, or an upstream pushgateway), or skips t as Binary does.
func PushgatewayBinary(t testing.TB) string {
	t.Helper()
	return binary(t, "Pushgateway", "prometheus-pushgateway", "pushgateway")
}

// binary is the first of names on PATH or in /usr/bin; without one it skips t naming make
// test-deps, or fails it when CI is set.
func binary(t testing.TB, what string, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		p := filepath.Join("/usr/bin", name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	msg := fmt.Sprintf("no %s binary (%s) on PATH: run make test-deps (it installs Debian's package %s)", what, strings.Join(names, " or "), names[0])
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set, so a missing " + what + " is a failure)")
	}
	t.Skip(msg)
	return ""
}

// Start runs Prometheus with --web.enable-remote-write-receiver, listening on 127.0.0.1 only,
// its configuration and data in t.TempDir(), a 100-year retention (so that old samples are not
// deleted while the test reads them), and returns once /-/ready answers 200 (at most 60 s). A
// port taken between choosing and binding it is retried with another. t.Cleanup stops it.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	return start(t, "prometheus", Binary(t), 60*time.Second, func(addr, dir string) ([]string, error) {
		cfg := "global: {}\n"
		if len(opts.Scrape) > 0 {
			cfg += "scrape_configs:\n- job_name: scraped\n  honor_labels: true\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  static_configs:\n  - targets: ['" + strings.Join(opts.Scrape, "', '") + "']\n"
		}
		if opts.OutOfOrderWindow != "" {
			cfg += fmt.Sprintf("storage:\n  tsdb:\n    out_of_order_time_window: %s\n", opts.OutOfOrderWindow)
		}
		cfgPath := filepath.Join(dir, "prometheus.yml")
		if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
			return nil, err
		}
		return []string{"--config.file=" + cfgPath, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
			"--storage.tsdb.retention.time=100y", "--web.listen-address=" + addr, "--web.enable-remote-write-receiver"}, nil
	})
}

// StartPushgateway runs a Pushgateway on 127.0.0.1 without persistence and returns once
// /-/ready answers 200 (at most 10 s); t.Cleanup stops it.
func StartPushgateway(t testing.TB) *Server {
	t.Helper()
	return start(t, "pushgateway", PushgatewayBinary(t), 10*time.Second, func(addr, _ string) ([]string, error) {
		return []string{"--web.listen-address=" + addr, "--persistence.file="}, nil
	})
}

// start runs bin with the arguments args gives for a free 127.0.0.1 address and a temp folder,
// trying three addresses, since a port can be taken between choosing and binding it.
func start(t testing.TB, name, bin string, ready time.Duration, args func(addr, dir string) ([]string, error)) *Server {
	t.Helper()
	var errs []error
	for range 3 {
		s, err := tryStart(t, name, bin, ready, args)
		if err == nil {
			return s
		}
		errs = append(errs, err)
	}
	t.Fatalf("start %s: %v", bin, errors.Join(errs...))
	return nil
}

func tryStart(t testing.TB, name, bin string, ready time.Duration, args func(addr, dir string) ([]string, error)) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, err
	}
	argv, err := args(addr, t.TempDir())
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, URL: "http://" + addr, t: t, done: make(chan struct{}), log: &lockedBuffer{}}
	if name == "prometheus" {
		s.WriteURL = s.URL + "/api/v1/write"
	}
	s.cmd = exec.Command(bin, argv...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	s.PID = s.cmd.Process.Pid
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Stop)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s %s (pid %d) log:\n%s", name, addr, s.PID, s.log)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), ready)
	defer cancel()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%s on %s: %w; log:\n%s", name, addr, err, s.log)
	}
	return s, nil
}

// waitReady polls /-/ready until it answers 200, the process exits or ctx ends; the error
// carries the last failure.
func (s *Server) waitReady(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/-/ready", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/-/ready answered %s", resp.Status)
		}
		select {
		case <-s.done:
			return fmt.Errorf("exited before it was ready (last poll: %v)", err)
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w (last poll: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// Stop sends SIGTERM to the process by its PID, waits up to 10 s, then sends SIGKILL, and
// returns once it has exited. Safe to call more than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		select {
		case <-s.done:
			return
		default:
		}
		if err := syscall.Kill(s.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			s.t.Errorf("SIGTERM %s (pid %d): %v", s.Name, s.PID, err)
		}
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.t.Errorf("%s (pid %d) ignored SIGTERM for 10 s: killing it", s.Name, s.PID)
			_ = syscall.Kill(s.PID, syscall.SIGKILL)
			<-s.done
		}
	})
}

// Sample is one series of an instant query's answer: its labels (__name__ among them) and
// its value at the query's time.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Query runs the PromQL expr as an instant query at time at (GET /api/v1/query, bounded to
// 10 s) and returns the vector it answers; an answer that is not a success or not a vector
// fails t.
func (s *Server) Query(t testing.TB, expr string, at time.Time) []Sample {
	t.Helper()
	q := url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1e3, 'f', 3, 64)}}
	var data struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"` // [unix seconds, "value"]
		} `json:"result"`
	}
	s.get(t, "/api/v1/query?"+q.Encode(), &data)
	if data.ResultType != "vector" {
		t.Fatalf("query %s: result type %q, want vector", expr, data.ResultType)
	}
	out := make([]Sample, 0, len(data.Result))
	for _, r := range data.Result {
		text, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("query %s: value %v: %v", expr, r.Value[1], err)
		}
		out = append(out, Sample{Labels: r.Metric, Value: v})
	}
	return out
}

// Range is one series of a range query's answer: its labels and its points, by time.
type Range struct {
	Labels map[string]string
	Points map[time.Time]float64
}

// QueryRange runs the PromQL expr over [start, end] at step (GET /api/v1/query_range, bounded
// to 10 s) and returns its matrix; an answer that is not a success or not a matrix fails t.
func (s *Server) QueryRange(t testing.TB, expr string, start, end time.Time, step time.Duration) []Range {
	t.Helper()
	sec := func(tm time.Time) string { return strconv.FormatFloat(float64(tm.UnixMilli())/1e3, 'f', 3, 64) }
	q := url.Values{"query": {expr}, "start": {sec(start)}, "end": {sec(end)}, "step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}}
	var data struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	}
	s.get(t, "/api/v1/query_range?"+q.Encode(), &data)
	if data.ResultType != "matrix" {
		t.Fatalf("query_range %s: result type %q, want matrix", expr, data.ResultType)
	}
	out := make([]Range, 0, len(data.Result))
	for _, r := range data.Result {
		rg := Range{Labels: r.Metric, Points: map[time.Time]float64{}}
		for _, p := range r.Values {
			at, _ := p[0].(float64)
			text, _ := p[1].(string)
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				t.Fatalf("query_range %s: value %v: %v", expr, p[1], err)
			}
			rg.Points[time.UnixMilli(int64(at*1e3+0.5)).UTC()] = v
		}
		out = append(out, rg)
	}
	return out
}

// Series lists the label sets of every series matching the selector match (GET
// /api/v1/series over all time).
func (s *Server) Series(t testing.TB, match string) []map[string]string {
	t.Helper()
	q := url.Values{"match[]": {match}, "start": {"0"}}
	var data []map[string]string
	s.get(t, "/api/v1/series?"+q.Encode(), &data)
	return data
}

// get reads the API's answer at path into data, failing t on any error or a status other
// than success.
func (s *Server) get(t testing.TB, path string, data any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	var doc struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Status != "success" {
		t.Fatalf("GET %s: %s, status %q %s (%v): %s", path, resp.Status, doc.Status, doc.Error, err, body)
	}
	if err := json.Unmarshal(doc.Data, data); err != nil {
		t.Fatalf("GET %s: data: %v: %s", path, err, doc.Data)
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
