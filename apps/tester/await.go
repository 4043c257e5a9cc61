package tester

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// stamper is a caller whose requests stamp sequence numbers into the messages they send
// (stampCaller over daprd's HTTP API, configurationCaller into the store): lastStamped is the
// block its last request used.
type stamper interface {
	caller
	lastStamped() stampedBlock
}

// awaitCaller makes one request of its stamper, then, when it succeeded, waits for the
// subscriber to have received every message that request stamped (perf.Await). Its service
// time is the request alone, or the request and the wait with Await.Timed (callTimed).
type awaitCaller struct {
	inner  stamper
	a      perf.Await
	base   string       // a.URL + perf.AwaitPath
	client *http.Client // its own connection to the subscriber, not counted in sockets
}

// newAwaitCaller wraps inner, which must stamp its messages, for a.
func newAwaitCaller(inner caller, a perf.Await) (caller, error) {
	st, ok := inner.(stamper)
	if !ok {
		_ = inner.close()
		return nil, fmt.Errorf("tester: await: a %T stamps no messages to wait for", inner)
	}
	return &awaitCaller{inner: st, a: a, base: a.URL + perf.AwaitPath, client: &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
	}}}, nil
}

func (c *awaitCaller) call(ctx context.Context) (string, bool) {
	code, ok, _ := c.callTimed(ctx)
	return code, ok
}

// awaitSlack is how much longer than Await.Timeout the tester waits for the subscriber's
// answer, which comes at the timeout at the latest.
const awaitSlack = 5 * time.Second

// callTimed is one iteration: the request, then the wait. A failed request ends it with its
// own code; a wait that timed out ends it with perf.CodeDeliveryTimeout; a subscriber that
// cannot be asked, with perf.CodeAwaitPrefix and "-1" (a socket error) or its HTTP status.
func (c *awaitCaller) callTimed(ctx context.Context) (string, bool, time.Duration) {
	t0 := time.Now()
	code, ok := c.inner.call(ctx)
	request := time.Since(t0)
	if !ok {
		return code, false, request
	}
	took := func() time.Duration {
		if c.a.Timed {
			return time.Since(t0)
		}
		return request
	}
	b := c.inner.lastStamped()
	if b.n == 0 {
		return code, true, took()
	}
	q := url.Values{
		"run": {c.a.Run}, "from": {strconv.FormatInt(b.base, 10)}, "count": {strconv.FormatInt(b.n, 10)},
		"timeout": {c.a.Timeout.String()},
	}
	wctx, cancel := context.WithTimeout(ctx, c.a.Timeout+awaitSlack)
	defer cancel()
	r, err := http.NewRequestWithContext(wctx, http.MethodGet, c.base+"?"+q.Encode(), nil)
	if err != nil {
		return perf.CodeAwaitPrefix + "-1", false, took()
	}
	resp, err := c.client.Do(r)
	if err != nil {
		return perf.CodeAwaitPrefix + "-1", false, took()
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		return code, true, took()
	case resp.StatusCode == http.StatusGatewayTimeout:
		return perf.CodeDeliveryTimeout, false, took()
	}
	return perf.CodeAwaitPrefix + strconv.Itoa(resp.StatusCode), false, took()
}

func (c *awaitCaller) sockets() int64 { return c.inner.sockets() }

func (c *awaitCaller) close() error {
	c.client.CloseIdleConnections()
	return c.inner.close()
}

// awaitable wraps each caller newCaller makes in an awaitCaller when p waits (p.Await set).
func awaitable(p perf.Params, newCaller func() (caller, error)) func() (caller, error) {
	if p.Await == nil {
		return newCaller
	}
	return func() (caller, error) {
		c, err := newCaller()
		if err != nil {
			return nil, err
		}
		return newAwaitCaller(c, *p.Await)
	}
}
