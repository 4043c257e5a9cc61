package growth

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
				return 0, fmt.Errorf("growth: %s: HeapInuse %q: %w", u, v, err)
			}
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("growth: read %s: %w", u, err)
	}
	return 0, fmt.Errorf("growth: %s: no HeapInuse line", u)
}

func get(ctx context.Context, u string) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("growth: %s: %w", u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("growth: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("growth: %s: %s: %s", u, resp.Status, strings.TrimSpace(string(b)))
	}
	return cancelOnClose{resp.Body, cancel}, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error { err := c.ReadCloser.Close(); c.cancel(); return err }
