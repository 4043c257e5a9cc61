package growth

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fixtures are daprd 1.17.5's /metrics (stablecomponents build), captured from the
// memory-growth deployment after one GET of checkout and one of each of checkout/order-00 ...
// checkout/order-11 through the caller's sidecar: 12 distinct paths.
const (
	callerMetrics      = "testdata/daprd-1.17.5-caller-12-paths.metrics"
	calleeMetrics      = "testdata/daprd-1.17.5-callee-12-paths.metrics"
	pathMatchedMetrics = "testdata/daprd-1.17.5-caller-12-paths-pathMatching.metrics" // pathMatching: [/checkout/{orderId}]
)

func readFixture(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// sampleName matches the metric name of a sample line of the text format.
var sampleName = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)`)

// linesPerFamily counts the sample lines of text per family, by a different route than the
// parser: a line belongs to the family its "# TYPE" line declares for the name or for the
// name less _bucket, _sum or _count.
func linesPerFamily(t *testing.T, text []byte) map[string]int {
	t.Helper()
	families := map[string]bool{}
	out := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			families[strings.Fields(f)[0]] = true
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := sampleName.FindString(line)
		require.NotEmpty(t, name, "line %q", line)
		fam := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && families[base] && !families[name] {
				fam = base
			}
		}
		out[fam]++
	}
	require.NoError(t, sc.Err())
	return out
}

func TestFamilySeriesOnDaprdMetrics(t *testing.T) {
	for _, path := range []string{callerMetrics, calleeMetrics, pathMatchedMetrics} {
		text := readFixture(t, path)
		fams, err := FamilySeries(bytes.NewReader(text))
		require.NoError(t, err, path)
		assert.Equal(t, linesPerFamily(t, text), fams, path)
		samples := 0
		for line := range strings.Lines(string(text)) {
			if !strings.HasPrefix(line, "#") && strings.TrimSpace(line) != "" {
				samples++
			}
		}
		assert.Equal(t, samples, TotalSeries(fams), path)
		assert.Greater(t, len(fams), 40, path)
	}
}

// dropPaths returns text without the sample lines of the 12 distinct paths: the same sidecar
// as if those requests had not been made.
func dropPaths(text []byte) []byte {
	var b bytes.Buffer
	for line := range strings.Lines(string(text)) {
		if !strings.Contains(line, `/checkout/order-`) {
			b.WriteString(line)
		}
	}
	return b.Bytes()
}

func TestFamilyGrowthNamesWhatGrowsPerPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want map[string]float64 // series per distinct path, per family
	}{
		// 35 buckets + _sum + _count, and two counters: 39 per path (daprd's HTTP server metrics).
		{callerMetrics, map[string]float64{"dapr_http_server_latency": 37, "dapr_http_server_request_count": 1, "dapr_http_server_response_count": 1}},
		// The callee's client side: 37 + 16 + 1 = 54 per path.
		{calleeMetrics, map[string]float64{"dapr_http_client_roundtrip_latency": 37, "dapr_http_client_sent_bytes": 16, "dapr_http_client_completed_count": 1}},
	} {
		text := readFixture(t, tc.path)
		before, err := FamilySeries(bytes.NewReader(dropPaths(text)))
		require.NoError(t, err)
		after, err := FamilySeries(bytes.NewReader(text))
		require.NoError(t, err)
		growth := familyGrowth([]Reading{
			{Label: "0", Requests: 0, Families: before},
			{Label: "12", Requests: 12}, // not scraped: skipped
			{Label: "idle", Requests: 12, Families: after},
		})
		// Three scraped readings: the paths came in the first round (stepped once, then flat), or
		// in the last (grows with distinct paths).
		stepped := familyGrowth([]Reading{
			{Label: "0", Requests: 0, Families: before},
			{Label: "12", Requests: 12, Families: after},
			{Label: "idle", Requests: 24, Families: after},
		})
		grows := familyGrowth([]Reading{
			{Label: "0", Requests: 0, Families: before},
			{Label: "12", Requests: 12, Families: before},
			{Label: "idle", Requests: 24, Families: after},
		})
		got := map[string]float64{}
		for _, f := range growth {
			got[f.Family] = f.PerRequest
			assert.Zero(t, f.TailPerRequest, "two scraped readings: no tail")
			assert.False(t, f.GrowsWithPaths())
			assert.Equal(t, before[f.Family], f.First)
			assert.Equal(t, after[f.Family], f.Last)
		}
		assert.Equal(t, tc.want, got, tc.path)
		require.Len(t, stepped, len(tc.want))
		require.Len(t, grows, len(tc.want))
		for i := range stepped {
			assert.False(t, stepped[i].GrowsWithPaths(), stepped[i].Family)
			assert.InDelta(t, tc.want[grows[i].Family]/2, grows[i].PerRequest, 1e-9)
			assert.InDelta(t, tc.want[grows[i].Family], grows[i].TailPerRequest, 1e-9)
			assert.True(t, grows[i].GrowsWithPaths(), grows[i].Family)
		}
		assert.Equal(t, "dapr_http_"+map[string]string{callerMetrics: "server_latency", calleeMetrics: "client_roundtrip_latency"}[tc.path], growth[0].Family, "largest first")
	}
}

func TestFamilySeriesPathMatchingKeepsOnePathLabel(t *testing.T) {
	text := readFixture(t, pathMatchedMetrics)
	assert.NotContains(t, string(text), "order-")
	fams, err := FamilySeries(bytes.NewReader(text))
	require.NoError(t, err)
	plain, err := FamilySeries(bytes.NewReader(readFixture(t, callerMetrics)))
	require.NoError(t, err)
	// The 12 paths share one label, /v1.0/invoke/{app_id}/method/checkout/{orderId}: one path's
	// worth of series instead of 12.
	assert.Equal(t, plain["dapr_http_server_latency"]-11*37, fams["dapr_http_server_latency"])
	assert.Equal(t, plain["dapr_http_server_request_count"]-11, fams["dapr_http_server_request_count"])
}

func TestFamilySeriesRejectsMalformedText(t *testing.T) {
	_, err := FamilySeries(strings.NewReader("# TYPE a counter\na 1\nb{x=\"1\" 2\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 3")
	assert.Contains(t, err.Error(), "/metrics")
}

// daprd's own RSS gauge is read from its /metrics; an exposition without it, or with it as
// something else than one gauge, is an error naming the metric.
func TestProcessRSSOnDaprdMetrics(t *testing.T) {
	for path, want := range map[string]uint64{callerMetrics: 99860480, calleeMetrics: 98877440} {
		got, err := ProcessRSS(bytes.NewReader(readFixture(t, path)))
		require.NoError(t, err, path)
		assert.Equal(t, want, got, path)
	}

	_, err := ProcessRSS(strings.NewReader("# TYPE go_goroutines gauge\ngo_goroutines 12\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no process_resident_memory_bytes")

	_, err = ProcessRSS(strings.NewReader("# TYPE process_resident_memory_bytes counter\nprocess_resident_memory_bytes 12\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "want one gauge")
}
