package plan

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// storeSubscription is subscribeConfiguration's proto for the subscriber's own subscription
// to the store, with no daprd (the baseline of DeliveryPlan.Baseline).
const storeSubscription perf.Protocol = "store"

// subscribeConfiguration asks the subscriber app (configuration mode) to subscribe through its
// daprd at dapr (HTTP: daprd's base URL; gRPC: host:port) over proto, or straight to the store
// (proto storeSubscription, dapr ""); the app answers once daprd has given the subscription an
// id, or once the store has confirmed its own.
func (c subscriberClient) subscribeConfiguration(ctx context.Context, proto perf.Protocol, dapr string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*subscriberTimeout)
	defer cancel()
	q := url.Values{"protocol": {string(proto)}}
	if dapr != "" {
		q.Set("dapr", dapr)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/configuration-subscribe?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("subscriber %s: configuration subscribe: %w", c.url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("subscriber %s: configuration subscribe over %s via %s: %s: %s", c.url, proto, dapr, resp.Status, strings.TrimSpace(string(b)))
	}
	return nil
}

// unsubscribeConfiguration asks the subscriber app to end its configuration subscription.
func (c subscriberClient) unsubscribeConfiguration(ctx context.Context) error {
	return c.post(ctx, "/configuration-unsubscribe", "configuration unsubscribe", 2*subscriberTimeout)
}
