package plan

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/growth"
)

// daprdMetrics is a Deployment whose sidecars serve /metrics with a process RSS gauge (a
// loopback httptest server) and whose own usage says something else.
type daprdMetrics struct {
	perf.Deployment
	url     string
	sampled bool
}

func (d daprdMetrics) Endpoint(app string, e perf.Endpoint) (string, error) {
	if e != perf.SidecarMetrics || d.url == "" {
		return "", fmt.Errorf("%s: no endpoint %v", app, e)
	}
	return d.url, nil
}
func (d daprdMetrics) Usage(context.Context) (map[string]perf.Usage, error) {
	return map[string]perf.Usage{"a-daprd": {RSSBytes: 7}}, nil
}
func (d daprdMetrics) UsageSampled() bool { return d.sampled }

// Where the platform samples usage (kubernetes), a growth reading takes each sidecar's own
// process_resident_memory_bytes, read at the call; where it reads /proc (local), or a sidecar
// has no metrics endpoint, the platform's usage.
func TestRSSReaderTakesDaprdsGaugeWhereUsageIsSampled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/metrics", r.URL.Path)
		fmt.Fprint(w, "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 8.3726336e+07\n")
	}))
	defer srv.Close()
	procs, apps := []string{"a-daprd"}, []string{"a"}

	for _, c := range []struct {
		name   string
		dep    daprdMetrics
		source string
		rss    uint64
	}{
		{"sampled, metrics on", daprdMetrics{url: srv.URL, sampled: true}, rssFromDaprd, 83726336},
		{"sampled, metrics off", daprdMetrics{sampled: true}, rssFromPlatform, 7},
		{"read at the call", daprdMetrics{url: srv.URL}, rssFromPlatform, 7},
	} {
		r := newRSSReader(c.dep, procs, apps)
		assert.Equal(t, c.source, r.source, c.name)
		for _, fresh := range []bool{true, false} {
			got, err := r.read(t.Context(), fresh)
			require.NoError(t, err, c.name)
			assert.Equal(t, c.rss, got["a-daprd"], "%s, fresh %v", c.name, fresh)
		}
	}
}

// The idle window takes idleReadings readings from the platform, and none from daprd's
// /metrics (each would be a scrape whose own allocations read as growth when idle).
func TestIdleWindowReadsNothingFromDaprdMetrics(t *testing.T) {
	dep := daprdMetrics{}
	for _, c := range []struct {
		r    rssReader
		want int
	}{
		{rssReader{dep: dep, procs: []string{"a-daprd"}, apps: []string{"a"}}, idleReadings},
		{rssReader{dep: dep, procs: []string{"a-daprd"}, apps: []string{"a"}, daprd: true}, 0},
	} {
		sidecars := []growth.Sidecar{{Process: "a-daprd"}}
		require.NoError(t, idle(t.Context(), c.r, 60*time.Millisecond, time.Now(), 10, sidecars))
		assert.Len(t, sidecars[0].Idle, c.want, "daprd %v", c.r.daprd)
	}
}
