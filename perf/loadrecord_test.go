package perf

import (
	"strings"
	"testing"
	"time"
)

// A run with no load variable set ran the scenario's own load; each load variable set is named
// with its value (the literal payload by its size), and the summary line says it is not Dapr's.
func TestLoadOf(t *testing.T) {
	if r := LoadOf(Env{}); len(r.Overrides) != 0 || !strings.Contains(r.String(), "the scenario's own") {
		t.Errorf("no overrides: %+v, %q", r, r.String())
	}
	qps, d, payload := 100, 4*time.Second, "abc"
	r := LoadOf(Env{QPS: &qps, Duration: &d, Payload: &payload})
	want := "load: overridden by DAPR_PERF_QPS=100, DAPR_TEST_DURATION=4s, DAPR_PAYLOAD=<3 bytes>: not Dapr's load"
	if r.String() != want {
		t.Errorf("String = %q, want %q", r.String(), want)
	}
}
