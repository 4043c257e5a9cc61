// Package actorapp is the actor host of daprperf's actor scenarios: Dapr's actor HTTP protocol
// (what daprd calls on an app that hosts actors), with nothing behind the methods, so what a
// scenario measures is Dapr's actor runtime.
//
// What daprd calls, and what the handler answers:
//
//	GET    /dapr/config                                   the actor types (entities) and the idle timeout
//	GET    /healthz                                       200 (daprd's actor runtime probes it)
//	PUT    /actors/{type}/{id}/method/{method}            a method call: activates the actor on its first call
//	PUT    /actors/{type}/{id}/method/timer/{name}        a timer fired
//	PUT    /actors/{type}/{id}/method/remind/{name}       a reminder fired (its lag: reminder.go)
//	DELETE /actors/{type}/{id}                            deactivation
//
// and for the scenarios:
//
//	POST   /v1.0/actors/{type}/{id}/method/{method}       the same method, called straight (the baseline:
//	                                                      the tester's actor path, no daprd, no activation)
//	POST   /v1.0/actors/{type}/{id}/reminders/{name}      registered through this host's daprd (proxy.go)
//	GET    /stats                                         Stats, as JSON
//	POST   /faults                                        open a fault window on the method calls (faults.go)
//
// Every activation takes a lock on the actor id in a Lock shared by every host (RedisLock: Redis
// SET NX, the way Dapr's own double-activation test app does it), held until the deactivation.
// An activation that finds the lock held by another host is a double activation: the same id
// active on two hosts at once. Since every active actor holds its lock from its activation to its
// deactivation, the second activation of a pair always finds the first's lock: none is missed.
// A host that dies leaves its locks behind (a stale lock is a false double activation for the
// next host of that id), which a run's own Redis avoids.
//
// Its own cost: one Redis round trip per activation and per deactivation (about 0.1 ms on
// loopback), a map entry per actor id ever activated (about 100 bytes), and a mutex per call.
package actorapp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/daprperf/daprperf/apps/internal/faults"
	"github.com/daprperf/daprperf/perf"
)

// Options configure the handler; the zero value hosts DefaultType with no lock across hosts.
type Options struct {
	// Types are the actor types this host serves (GET /dapr/config "entities"); empty is
	// []string{DefaultType}.
	Types []string
	// IdleTimeout is Dapr's actorIdleTimeout: an actor not called for this long is deactivated.
	// 0 is one hour, long enough that no actor of a one-minute run is deactivated for idleness.
	IdleTimeout time.Duration
	// TimerDue, when > 0, makes every activation register a one-shot timer due after TimerDue
	// (Dapr's actor_timer test: 10 s), through daprd's API at DaprHTTP. The fire lag (fire time
	// minus registration time minus TimerDue) is in Stats.
	TimerDue time.Duration
	// TimerPeriod, when > 0, makes that timer periodic: it fires again every TimerPeriod
	// until the actor is deactivated (Dapr's actor_timer: due 10 s, period 10 s). The lag in
	// Stats is the first fire's; every fire counts in TimerFires.
	TimerPeriod time.Duration
	// DaprHTTP is the base URL of this host's daprd HTTP API ("http://127.0.0.1:3500"); needed
	// with TimerDue and for reminder registrations (proxy.go).
	DaprHTTP string
	// Host names this host in the lock (unique per host: app id and PID).
	Host string
	// Lock is shared by every host of the actor types; nil is an in-process lock, which sees
	// no other host and so no double activation.
	Lock Lock
	// FailFraction, in [0, 1], is the fraction of actor method calls this host answers 500 on
	// its own, all the time (1 of every 10 at 0.1, package faults): a host that fails outside
	// any fault window, uncounted as injected, as a test of the fault plan's gate needs. 0 is
	// none; NewHandler panics outside [0, 1].
	FailFraction float64
}

// DefaultType is the actor type of Dapr's actor perf tests' app.
const DefaultType = "PerfTestActor"

// Lock holds one entry per active actor id, shared by every host.
type Lock interface {
	// Acquire takes key for host. held is false when another host holds it; holder names that
	// host then.
	Acquire(ctx context.Context, key, host string) (held bool, holder string, err error)
	// Release gives key up when host holds it.
	Release(ctx context.Context, key, host string) error
}

// Stats are the handler's counters since it started, in the shape runner.Run reads from GET
// /stats.
type Stats = perf.ActorStats

type actorKey struct{ typ, id string }

// Handler is the actor host; one mutex guards its maps (calls are short).
type Handler struct {
	o      Options
	client *http.Client
	proxy  *http.Client // reminder registrations to daprd (proxy.go)
	mux    *http.ServeMux

	mu          sync.Mutex
	active      map[actorKey]bool
	activations map[actorKey]int64
	registered  map[actorKey]time.Time // when the timer of an active actor was registered
	lags        []time.Duration
	reminders   reminderLog // reminder.go
	st          Stats
	fault       *faultWindow     // the open or last fault window (faults.go); nil before the first
	own         *faults.Injector // Options.FailFraction's failures; nil for none
}

// NewHandler returns the actor host's HTTP handler.
func NewHandler(o Options) *Handler {
	if len(o.Types) == 0 {
		o.Types = []string{DefaultType}
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = time.Hour
	}
	lockName := "in-process"
	if o.Lock == nil {
		o.Lock = &memLock{held: map[string]string{}}
	} else if s, ok := o.Lock.(fmt.Stringer); ok {
		lockName = s.String()
	}
	h := &Handler{
		o:           o,
		client:      &http.Client{Timeout: 10 * time.Second},
		proxy:       newProxyClient(),
		mux:         http.NewServeMux(),
		active:      map[actorKey]bool{},
		activations: map[actorKey]int64{},
		registered:  map[actorKey]time.Time{},
		st:          Stats{Host: o.Host, Lock: lockName},
	}
	if o.FailFraction > 0 {
		h.own = faults.New(faults.Options{FailFraction: o.FailFraction})
	}
	h.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	h.mux.HandleFunc("GET /dapr/config", h.config)
	h.mux.HandleFunc("PUT /actors/{type}/{id}/method/timer/{name}", h.timer)
	h.mux.HandleFunc("PUT /actors/{type}/{id}/method/remind/{name}", h.reminder)
	h.mux.HandleFunc("PUT /actors/{type}/{id}/method/{method}", h.method)
	h.mux.HandleFunc("DELETE /actors/{type}/{id}", h.deactivate)
	h.mux.HandleFunc("POST /v1.0/actors/{type}/{id}/method/{method}", h.direct)
	h.mux.HandleFunc("GET /stats", h.stats)
	h.mux.HandleFunc("POST /faults", h.armFaults)
	h.mux.HandleFunc("POST /v1.0/actors/{type}/{id}/reminders/{name}", h.registerReminder)
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// config is Dapr's actor configuration of the app (daprd reads it once at start).
func (h *Handler) config(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"entities":                h.o.Types,
		"actorIdleTimeout":        h.o.IdleTimeout.String(),
		"drainOngoingCallTimeout": "10s",
		"drainRebalancedActors":   true,
	})
}

// known answers 404 for an actor type this host does not serve.
func (h *Handler) known(w http.ResponseWriter, typ string) bool {
	if !slices.Contains(h.o.Types, typ) {
		http.Error(w, fmt.Sprintf("actor type %q is not hosted here (types: %s)", typ, strings.Join(h.o.Types, ", ")), http.StatusNotFound)
		return false
	}
	return true
}

// method is a call through daprd: it activates the actor on its first call.
func (h *Handler) method(w http.ResponseWriter, r *http.Request) {
	k := actorKey{r.PathValue("type"), r.PathValue("id")}
	if !h.known(w, k.typ) || h.faulted(w, r) {
		return
	}
	if h.own != nil && h.own.Next().Fail {
		http.Error(w, "daprperf: the host's own failure (-fail-fraction), not an injected fault", http.StatusInternalServerError)
		return
	}
	h.mu.Lock()
	h.st.Calls++
	first := !h.active[k]
	if first {
		h.active[k] = true
		h.activations[k]++
		h.st.Activations++
	}
	h.mu.Unlock()
	if first {
		h.activate(r.Context(), k)
	}
	w.WriteHeader(http.StatusOK)
}

// activate takes k's lock, counting a double activation when another host holds it, and
// registers the timer when the options ask for one.
func (h *Handler) activate(ctx context.Context, k actorKey) {
	held, holder, err := h.o.Lock.Acquire(ctx, lockKey(k), h.o.Host)
	h.mu.Lock()
	switch {
	case err != nil:
		h.errorLocked(fmt.Errorf("lock %s/%s: %w", k.typ, k.id, err))
	case !held:
		h.st.DoubleActivations++
		if len(h.st.DoubleActivated) < 100 {
			h.st.DoubleActivated = append(h.st.DoubleActivated, k.typ+"/"+k.id+" held by "+holder)
		}
	}
	h.mu.Unlock()
	if h.o.TimerDue <= 0 {
		return
	}
	if err := h.registerTimer(ctx, k); err != nil {
		h.mu.Lock()
		h.errorLocked(err)
		h.mu.Unlock()
		return
	}
	h.mu.Lock()
	h.registered[k] = time.Now()
	h.st.TimersRegistered++
	h.mu.Unlock()
}

// registerTimer registers a timer of k due after TimerDue, periodic when TimerPeriod is set,
// through daprd.
func (h *Handler) registerTimer(ctx context.Context, k actorKey) error {
	url := h.o.DaprHTTP + "/v1.0/actors/" + k.typ + "/" + k.id + "/timers/fire"
	body := fmt.Sprintf(`{"dueTime":%q,"callback":"fire"}`, h.o.TimerDue.String())
	if h.o.TimerPeriod > 0 {
		body = fmt.Sprintf(`{"dueTime":%q,"period":%q,"callback":"fire"}`, h.o.TimerDue.String(), h.o.TimerPeriod.String())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("register timer of %s/%s: %w", k.typ, k.id, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode/100 != 2 {
		var b [512]byte
		n, _ := resp.Body.Read(b[:])
		return fmt.Errorf("register timer of %s/%s: POST %s: %s: %s", k.typ, k.id, url, resp.Status, strings.TrimSpace(string(b[:n])))
	}
	return nil
}

// timer records a timer's fire and its lag behind its due time.
func (h *Handler) timer(w http.ResponseWriter, r *http.Request) {
	k := actorKey{r.PathValue("type"), r.PathValue("id")}
	if !h.known(w, k.typ) {
		return
	}
	now := time.Now()
	h.mu.Lock()
	h.st.TimerFires++
	if at, ok := h.registered[k]; ok {
		h.lags = append(h.lags, now.Sub(at)-h.o.TimerDue)
		delete(h.registered, k)
	}
	h.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// reminder records a reminder's fire and, when its body says when it was due, its lag
// (reminder.go).
func (h *Handler) reminder(w http.ResponseWriter, r *http.Request) {
	k := actorKey{r.PathValue("type"), r.PathValue("id")}
	if !h.known(w, k.typ) {
		return
	}
	now := time.Now()
	due, period, ok := reminderSchedule(r.Body)
	h.mu.Lock()
	h.st.ReminderFires++
	h.reminders.fire(reminderKey{k, r.PathValue("name")}, now, due, period, ok)
	h.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// deactivate ends k's activation and releases its lock.
func (h *Handler) deactivate(w http.ResponseWriter, r *http.Request) {
	k := actorKey{r.PathValue("type"), r.PathValue("id")}
	if !h.known(w, k.typ) {
		return
	}
	h.mu.Lock()
	h.st.Deactivations++
	was := h.active[k]
	delete(h.active, k)
	delete(h.registered, k)
	h.mu.Unlock()
	if was {
		if err := h.o.Lock.Release(r.Context(), lockKey(k), h.o.Host); err != nil {
			h.mu.Lock()
			h.errorLocked(fmt.Errorf("unlock %s/%s: %w", k.typ, k.id, err))
			h.mu.Unlock()
		}
	}
	w.WriteHeader(http.StatusOK)
}

// direct is the baseline: the method called straight, without daprd or activation.
func (h *Handler) direct(w http.ResponseWriter, r *http.Request) {
	if !h.known(w, r.PathValue("type")) {
		return
	}
	h.mu.Lock()
	h.st.DirectCalls++
	h.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// stats answers Stats; with ?reminderFires=N it also says when the N-th timed reminder fire
// arrived (Stats.ReminderNthFire), for a trigger rate over N fires.
func (h *Handler) stats(w http.ResponseWriter, r *http.Request) {
	st := h.Stats()
	if q := r.URL.Query().Get("reminderFires"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 {
			http.Error(w, fmt.Sprintf("reminderFires=%q: must be a count >= 1", q), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		if at, ok := h.reminders.nth(n); ok {
			st.ReminderNthFire = &at
		}
		h.mu.Unlock()
	}
	writeJSON(w, st)
}

// Stats returns a copy of the counters.
func (h *Handler) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.st
	st.Active = len(h.active)
	st.IDs = len(h.activations)
	never := int64(len(h.registered))
	st.TimersNeverFired = &never
	for _, n := range h.activations {
		st.MaxActivationsPerID = max(st.MaxActivationsPerID, n)
	}
	st.DoubleActivated = slices.Clone(h.st.DoubleActivated)
	if h.st.Faults != nil {
		f := *h.st.Faults
		st.Faults = &f
	}
	if len(h.lags) > 0 {
		l := slices.Clone(h.lags)
		slices.Sort(l)
		at := func(p float64) float64 { return l[min(len(l)-1, int(p/100*float64(len(l))))].Seconds() }
		st.TimerLagSeconds = map[string]float64{"p50": at(50), "p90": at(90), "p99": at(99), "max": l[len(l)-1].Seconds()}
	}
	h.reminders.stats(&st)
	return st
}

func (h *Handler) errorLocked(err error) {
	h.st.Errors++
	h.st.LastError = err.Error()
}

// lockKey is the lock's key of k.
func lockKey(k actorKey) string { return "daprperf-actor-lock/" + k.typ + "/" + k.id }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// memLock is the in-process Lock: one host only.
type memLock struct {
	mu   sync.Mutex
	held map[string]string
}

func (l *memLock) Acquire(_ context.Context, key, host string) (bool, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.held[key]; ok && h != host {
		return false, h, nil
	}
	l.held[key] = host
	return true, host, nil
}

func (l *memLock) Release(_ context.Context, key, host string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[key] == host {
		delete(l.held, key)
	}
	return nil
}
