package actorapp

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// registerReminder registers a reminder through this host's daprd: the request's body is
// POSTed as it is to daprd's POST /v1.0/actors/{type}/{id}/reminders/{name}, and daprd's status
// and body are relayed. daprd 1.15 and later refuse a reminder of an actor type they do not host
// (403 ERR_ACTOR_REMINDER_NON_HOSTED), and the local platform lets the tester load only its own
// daprd and the apps' own ports, so a reminder load goes through the host app, as Dapr's
// actor_reminder test sends it from inside the host's pod. Its cost: one more loopback HTTP
// call per registration (a kept-alive connection, no parsing of the body).
func (h *Handler) registerReminder(w http.ResponseWriter, r *http.Request) {
	typ, id, name := r.PathValue("type"), r.PathValue("id"), r.PathValue("name")
	if !h.known(w, typ) {
		return
	}
	if h.o.DaprHTTP == "" {
		http.Error(w, "reminder registration needs this host's daprd: DAPR_HTTP_PORT is not set", http.StatusServiceUnavailable)
		return
	}
	url := h.o.DaprHTTP + "/v1.0/actors/" + typ + "/" + id + "/reminders/" + name
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, url, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.proxy.Do(req)
	if err != nil {
		http.Error(w, fmt.Sprintf("POST %s: %v", url, err), http.StatusBadGateway)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		h.mu.Lock()
		h.errorLocked(fmt.Errorf("register reminder %s/%s/%s: %s: %s", typ, id, name, resp.Status, strings.TrimSpace(string(body))))
		h.mu.Unlock()
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body))) // also for daprd's 204, so keep-alive holds
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

// newProxyClient is the client of registerReminder: enough idle connections for a load's
// connections (Dapr's 24, the trigger phase's 50 VUs) to stay kept alive.
func newProxyClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 512, 512
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}
