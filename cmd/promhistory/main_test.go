package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/internal/promtest"
	"github.com/daprperf/daprperf/perf/report"
)

// The published references, written to a real Prometheus with an out-of-order window: every
// result file is written, and each version's p90 overhead of service invocation over HTTP reads
// back at its run's start time under the file's run id.
func TestPromhistoryLoadsTheReferences(t *testing.T) {
	s := promtest.Start(t, promtest.Options{OutOfOrderWindow: "10y"})
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-url", s.URL, "../../reports/v1.17.5", "../../reports/v1.16.5/service_invocation/http/result.json"}, &stdout, &stderr)
	t.Logf("stdout:\n%s", stdout.String())
	if code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	files, err := resultFiles("../../reports/v1.17.5")
	if err != nil || len(files) < 40 {
		t.Fatalf("references of v1.17.5: %d files, %v", len(files), err)
	}
	if want := "promhistory: " + strconv.Itoa(len(files)+1) + " of " + strconv.Itoa(len(files)+1) + " result files written"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout does not say %q", want)
	}
	for _, v := range []string{"1.16.5", "1.17.5"} {
		rep, err := report.ReadReport("../../reports/v" + v + "/service_invocation/http/result.json")
		if err != nil {
			t.Fatal(err)
		}
		o, _ := rep.OverheadOf("p90")
		got := s.Query(t, `daprperf_overhead_seconds{perf_test="service-invocation-http",quantile="0.9",bound="median"}`, rep.Environment.StartTime)
		if len(got) != 1 {
			t.Fatalf("v%s: %d series at %s, want 1: %v", v, len(got), rep.Environment.StartTime, got)
		}
		if got[0].Value != o.MedianSeconds || got[0].Labels["version"] != v || got[0].Labels["run_id"] != rep.RunID {
			t.Errorf("v%s: %v = %v, want %v with version %s, run_id %s", v, got[0].Labels, got[0].Value, o.MedianSeconds, v, rep.RunID)
		}
	}
}

// A bad -url is a usage error naming the flag and what it accepts; nothing is read.
func TestPromhistoryBadURL(t *testing.T) {
	for _, u := range []string{"ftp://127.0.0.1:9090", "http://user:pw@127.0.0.1:9090"} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"-url", u, "no-such-file.json"}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "-url") || !strings.Contains(stderr.String(), "must") {
			t.Errorf("-url %s: exit %d, stderr %q; want 2 and a message naming -url and what it accepts", u, code, stderr.String())
		}
		if strings.Contains(stderr.String(), "pw@") {
			t.Errorf("-url %s: the password is printed: %s", u, stderr.String())
		}
	}
}

// A missing file fails the command (exit 1) without stopping the others.
func TestPromhistoryMissingFile(t *testing.T) {
	s := promtest.Start(t, promtest.Options{OutOfOrderWindow: "10y"})
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-url", s.URL, "no-such-file.json", "../../reports/v1.16.5/service_invocation/grpc/result.json"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no-such-file.json") || !strings.Contains(stdout.String(), "1 of 1 result files written") {
		t.Errorf("exit %d; stdout %q; stderr %q; want 1, the missing file named, the other written", code, stdout.String(), stderr.String())
	}
}

// A file without a run id is written under -run-id, else reference-v<daprd version>.
func TestPromhistoryNamesARunWithoutAnID(t *testing.T) {
	s := promtest.Start(t, promtest.Options{OutOfOrderWindow: "10y"})
	b, err := os.ReadFile("../../reports/v1.16.5/service_invocation/grpc/result.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "runID")
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := report.ReadReport(path)
	if err != nil || rep.RunID != "" {
		t.Fatalf("fixture: run id %q, %v; want none", rep.RunID, err)
	}
	for runID, args := range map[string][]string{
		"reference-v1.16.5": {"-url", s.URL, path},
		"named-here":        {"-url", s.URL, "-run-id", "named-here", path},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		got := s.Query(t, `daprperf_pass{run_id="`+runID+`"}`, rep.Environment.StartTime)
		if len(got) != 1 || got[0].Labels["perf_test"] != "service-invocation-grpc" {
			t.Errorf("%v: daprperf_pass under run_id %s: %v, want one series of service-invocation-grpc", args, runID, got)
		}
	}
}
