package subscriber

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/perf"
)

// The configuration mode (Options.ConfigurationStore set): instead of a pub/sub subscription
// the app subscribes, through its daprd, to every key of one configuration store, and counts
// and times each update it is told of exactly as it does pub/sub messages. Each update's
// value is a perf.DeliveryMessage that the tester wrote straight into the store (kind
// perf.OpConfigurationSet, one new key per update), so the counts are the same: received,
// missing (lost), duplicated, and the latency from the store update to the notification.
//
// The plan asks for the subscription once daprd is up (POST RouteConfigurationSubscribe
// ?protocol=http|grpc&dapr=<daprd address>), over one of Dapr's two subscribe APIs:
//   - http: GET <daprd>/v1.0/configuration/<store>/subscribe (no key: every key); daprd then
//     POSTs each update to the app's /configuration/<store>/<key> with the update event as
//     JSON ({"id", "items": {<key>: {"value", "version", "metadata"}}}), and wants a 200;
//   - grpc: Dapr.SubscribeConfiguration on daprd's gRPC port, a server stream whose first
//     answer carries the subscription id and each later one the items of one update;
//
// or, for the baseline (?protocol=store, no daprd), straight to the Redis the store is on
// (configstore.go), as daprd's configuration.redis component itself subscribes. POST
// RouteConfigurationUnsubscribe ends the subscription made, so that the next can be made.
const (
	// RouteConfigurationSubscribe subscribes (POST ?protocol=http|grpc&dapr=..., or
	// ?protocol=store); a second call answers the subscription already made.
	RouteConfigurationSubscribe = "/configuration-subscribe"
	// RouteConfigurationUnsubscribe ends the subscription made (POST); 204, also when there
	// is none.
	RouteConfigurationUnsubscribe = "/configuration-unsubscribe"
	// RouteConfigurationPrefix is where daprd's HTTP subscription delivers:
	// /configuration/<store>/<key>.
	RouteConfigurationPrefix = "/configuration/"
)

// configSubscribeTimeout bounds the subscribe call to daprd (and the gRPC stream's first answer).
const configSubscribeTimeout = 15 * time.Second

// ConfigurationSubscription is what RouteConfigurationSubscribe answers: the subscription's
// id as daprd gave it and the API it went through.
type ConfigurationSubscription struct {
	ID       string `json:"id"`
	Protocol string `json:"protocol"`
	Store    string `json:"store"`
}

// configState is the configuration mode's subscription: one at a time, made once until it is
// ended.
type configState struct {
	store string
	// redis is the client of the store's Redis (the store subscription), made on first use.
	redis func() (*redis.Client, error)
	mu    sync.Mutex
	sub   *ConfigurationSubscription
	stop  func() // ends the subscription: the gRPC stream, the Redis subscription, or daprd's HTTP one
}

// configItem is one item of daprd's HTTP update event.
type configItem struct {
	Value   string `json:"value"`
	Version string `json:"version"`
}

// configEvent is daprd's HTTP update event (configuration.UpdateEvent as JSON).
type configEvent struct {
	ID    string                 `json:"id"`
	Items map[string]*configItem `json:"items"`
}

// routeConfiguration adds the configuration mode's routes to m.
func (h *Handler) routeConfiguration(m *http.ServeMux) {
	m.HandleFunc("POST "+RouteConfigurationSubscribe, h.configurationSubscribe)
	m.HandleFunc("POST "+RouteConfigurationUnsubscribe, h.configurationUnsubscribe)
	m.HandleFunc("POST "+RouteConfigurationPrefix+"{store}/{key}", h.configurationUpdate)
}

// configurationUpdate takes one update daprd's HTTP subscription POSTs: the item of the
// path's key (daprd posts the whole event once per key it holds). Every answer is 200, a
// malformed update included (counted, not retried).
func (h *Handler) configurationUpdate(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var ev configEvent
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	var d delivered
	switch item := ev.Items[r.PathValue("key")]; {
	case err != nil:
		d.err = err
	case r.PathValue("store") != h.cfg.store:
		d.err = fmt.Errorf("update for store %q, subscribed to %q", r.PathValue("store"), h.cfg.store)
	case item == nil:
		d.err = fmt.Errorf("update event without an item for key %q", r.PathValue("key"))
	default:
		d.msg, d.err = decodeConfigValue(item.Value)
	}
	h.c.take(start, []delivered{d}, false)
	w.WriteHeader(http.StatusOK)
	h.c.handled(time.Since(start))
}

// decodeConfigValue reads a DeliveryMessage from an item's value.
func decodeConfigValue(v string) (perf.DeliveryMessage, error) {
	var m perf.DeliveryMessage
	if v == "" {
		return m, errors.New("configuration item without a value")
	}
	err := json.Unmarshal([]byte(v), &m)
	return m, err
}

// configurationSubscribe makes the subscription (once) and answers it.
func (h *Handler) configurationSubscribe(w http.ResponseWriter, r *http.Request) {
	proto, addr := r.URL.Query().Get("protocol"), r.URL.Query().Get("dapr")
	if proto != "http" && proto != "grpc" && proto != protocolStore {
		http.Error(w, fmt.Sprintf("configuration subscribe: query parameter protocol = %q: want http, grpc or %s", proto, protocolStore), http.StatusBadRequest)
		return
	}
	if proto == protocolStore && addr != "" {
		http.Error(w, "configuration subscribe: query parameter dapr: the store subscription goes through no daprd", http.StatusBadRequest)
		return
	}
	if err := loopbackAddr(proto, addr); proto != protocolStore && err != nil {
		http.Error(w, "configuration subscribe: query parameter dapr: "+err.Error(), http.StatusBadRequest)
		return
	}
	sub, err := h.cfg.subscribe(r.Context(), proto, addr, h.takeGRPC)
	if errors.Is(err, errOtherProtocol) {
		http.Error(w, "configuration subscribe: "+err.Error(), http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "configuration subscribe: "+err.Error(), http.StatusBadGateway)
		return
	}
	writeJSON(w, sub)
}

// loopbackAddr checks that daprd's address is on loopback: a base URL http://127.x.x.x:port
// (http) or host:port (grpc).
func loopbackAddr(proto, addr string) error {
	hostport := addr
	if proto == "http" {
		u, err := url.Parse(addr)
		if err != nil || u.Scheme != "http" || u.Host == "" {
			return fmt.Errorf("%q: want daprd's HTTP base URL, http://127.0.0.1:<port>", addr)
		}
		hostport = u.Host
	}
	host, _, err := net.SplitHostPort(hostport)
	ip := net.ParseIP(host)
	if err != nil || ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q: want a loopback IP address and port", addr)
	}
	return nil
}

var errOtherProtocol = errors.New("already subscribed over the other protocol")

// subscribe subscribes over proto to daprd at addr, or returns the subscription already made.
func (s *configState) subscribe(ctx context.Context, proto, addr string, take func(map[string]string, time.Time)) (*ConfigurationSubscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sub != nil {
		if s.sub.Protocol != proto {
			return nil, fmt.Errorf("%w (%s)", errOtherProtocol, s.sub.Protocol)
		}
		return s.sub, nil
	}
	ctx, cancel := context.WithTimeout(ctx, configSubscribeTimeout)
	defer cancel()
	var (
		id  string
		err error
	)
	switch proto {
	case "http":
		id, err = subscribeHTTP(ctx, addr, s.store)
		s.stop = func() { unsubscribeHTTP(addr, s.store, id) }
	case "grpc":
		id, s.stop, err = subscribeGRPC(ctx, addr, s.store, take)
	default:
		var c *redis.Client
		if c, err = s.redis(); err == nil {
			id, s.stop, err = subscribeStore(ctx, c, take)
		}
	}
	if err != nil {
		s.stop = nil
		return nil, err
	}
	s.sub = &ConfigurationSubscription{ID: id, Protocol: proto, Store: s.store}
	return s.sub, nil
}

// unsubscribe ends the subscription made, if any.
func (s *configState) unsubscribe() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		s.stop()
	}
	s.sub, s.stop = nil, nil
}

// configurationUnsubscribe ends the subscription made, if any.
func (h *Handler) configurationUnsubscribe(w http.ResponseWriter, _ *http.Request) {
	h.cfg.unsubscribe()
	w.WriteHeader(http.StatusNoContent)
}

// unsubscribeHTTP ends daprd's HTTP subscription id of store (GET
// <daprd>/v1.0/configuration/<store>/<id>/unsubscribe); a failure leaves daprd telling the app
// of later updates, which the counts of the next load then show as stale.
func unsubscribeHTTP(base, store, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), configSubscribeTimeout)
	defer cancel()
	u := strings.TrimSuffix(base, "/") + "/v1.0/configuration/" + url.PathEscape(store) + "/" + url.PathEscape(id) + "/unsubscribe"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}

// subscribeHTTP calls daprd's HTTP subscribe API for every key of store.
func subscribeHTTP(ctx context.Context, base, store string) (string, error) {
	u := strings.TrimSuffix(base, "/") + "/v1.0/configuration/" + url.PathEscape(store) + "/subscribe"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", u, resp.Status, strings.TrimSpace(string(b)))
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("GET %s: answer %q: want {\"id\": <subscription id>}", u, strings.TrimSpace(string(b)))
	}
	return out.ID, nil
}

// subscribeGRPC opens Dapr.SubscribeConfiguration for every key of store on daprd at addr,
// waits for its first answer (the id), then hands each later answer's values to take until
// stop is called or the stream ends.
func subscribeGRPC(ctx context.Context, addr, store string, take func(map[string]string, time.Time)) (id string, stop func(), err error) {
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", nil, fmt.Errorf("grpc client for %s: %w", addr, err)
	}
	streamCtx, cancel := context.WithCancel(context.Background()) // outlives this call
	stop = func() { cancel(); _ = conn.Close() }
	stream, err := runtimev1.NewDaprClient(conn).SubscribeConfiguration(streamCtx, &runtimev1.SubscribeConfigurationRequest{StoreName: store})
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("SubscribeConfiguration on %s: %w", addr, err)
	}
	first := make(chan error, 1)
	go func() {
		resp, err := stream.Recv()
		if err == nil {
			id = resp.GetId()
			if id == "" {
				err = errors.New("first answer without a subscription id")
			}
		}
		first <- err
		if err != nil {
			return
		}
		for {
			resp, err := stream.Recv()
			if err != nil {
				return
			}
			now := time.Now()
			vals := make(map[string]string, len(resp.GetItems()))
			for k, it := range resp.GetItems() {
				vals[k] = it.GetValue()
			}
			take(vals, now)
		}
	}()
	select {
	case err = <-first:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("SubscribeConfiguration on %s: %w", addr, err)
	}
	return id, stop, nil
}

// takeGRPC counts the items of one gRPC update received at now, as one delivery call.
func (h *Handler) takeGRPC(vals map[string]string, now time.Time) {
	ds := make([]delivered, 0, len(vals))
	for _, v := range vals {
		m, err := decodeConfigValue(v)
		ds = append(ds, delivered{msg: m, err: err})
	}
	if len(ds) == 0 {
		ds = append(ds, delivered{err: errors.New("update without items")})
	}
	h.c.take(now, ds, len(ds) > 1)
	h.c.handled(time.Since(now))
}

// Close ends the configuration mode's gRPC stream or store subscription, if any, and closes
// the get routes' clients (the process's exit does it too). daprd's HTTP subscription is left
// to daprd, which may be stopping too.
func (h *Handler) Close() {
	if h.cfg == nil {
		return
	}
	h.cfg.mu.Lock()
	if h.cfg.stop != nil && h.cfg.sub != nil && h.cfg.sub.Protocol != "http" {
		h.cfg.stop()
		h.cfg.sub, h.cfg.stop = nil, nil
	}
	h.cfg.mu.Unlock()
	h.get.close()
}
