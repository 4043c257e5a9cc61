package perf

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// probeTimeout bounds one scrape of /metrics or pprof.
const probeTimeout = 30 * time.Second

// MetricsSeries counts the series a Prometheus scrape of metricsURL (a sidecar's metrics base
// URL; the path /metrics is added) returns: every sample line of the text format, so a
// histogram counts one series per bucket plus _sum and _count. This is the series cardinality
// a Prometheus server would store for the target.
func MetricsSeries(ctx context.Context, metricsURL string) (int, error) {
	body, err := get(ctx, metricsURL+"/metrics")
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n := 0
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("perf: read %s/metrics: %w", metricsURL, err)
	}
	return n, nil
}

// HeapInUse returns the Go heap in use, in bytes, from the "# HeapInuse = N" line of the pprof
// heap profile at profileURL (a sidecar's profiling base URL) in text form (debug=1).
func HeapInUse(ctx context.Context, profileURL string) (uint64, error) {
	u := profileURL + "/debug/pprof/heap?debug=1"
	body, err := get(ctx, u)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapInuse = "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("perf: %s: HeapInuse %q: %w", u, v, err)
			}
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("perf: read %s: %w", u, err)
	}
	return 0, fmt.Errorf("perf: %s: no HeapInuse line", u)
}

func get(ctx context.Context, u string) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("perf: %s: %w", u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("perf: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("perf: %s: %s: %s", u, resp.Status, strings.TrimSpace(string(b)))
	}
	return cancelOnClose{resp.Body, cancel}, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error { err := c.ReadCloser.Close(); c.cancel(); return err }
