package actorapp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/daprperf/daprperf/apps/internal/faults"
	"github.com/daprperf/daprperf/perf"
)

// The fault window: daprperf's own stand-in for the xk6-disruptor fault Dapr's
// actor_double_activation test injects into one replica (averageDelay 50 ms, errorRate 0.1,
// errorCode 500, for 15 s). POST /faults arms it:
//
//	POST /faults {"delay": 50000000, "failFraction": 0.1, "window": 15000000000}
//
// (durations in nanoseconds, as every duration of perf's JSON). From then on, for Window,
// every actor method call daprd makes on this host (PUT /actors/{type}/{id}/method/{method})
// first waits Delay, then, for the fraction FailFraction of them (exactly 1 of every 10 at 0.1:
// package faults, deterministic), is answered 500 without running the method; the others run
// as usual. Every injected 500 is counted (Stats.Faults.Failed), so a gate can tell them from
// errors the host did not inject. The window closes by itself at its end, whether or not
// anyone asks; timer and reminder callbacks, deactivations, /dapr/config and /healthz are never
// faulted. One window per host at a time (409 while one is open); the answer is the window's
// FaultStats.

// MaxFaultWindow bounds a window's length.
const MaxFaultWindow = 10 * time.Minute

// FaultStats are a fault window's settings and counters (perf.FaultStats).
type FaultStats = perf.FaultStats

// faultWindow is the open (or last) window.
type faultWindow struct {
	inj   *faults.Injector
	until time.Time
	st    FaultStats
}

// FaultRequest is POST /faults's body.
type FaultRequest struct {
	Delay        time.Duration `json:"delay"`
	FailFraction float64       `json:"failFraction"`
	Window       time.Duration `json:"window"`
}

// Validate names every field out of range.
func (r FaultRequest) Validate() error {
	if err := (faults.Options{Delay: r.Delay, FailFraction: r.FailFraction}).Validate(); err != nil {
		return err
	}
	if r.Window <= 0 || r.Window > MaxFaultWindow {
		return fmt.Errorf("invalid Window %v: must be in (0, %v]", r.Window, MaxFaultWindow)
	}
	return nil
}

// armFaults opens a fault window (POST /faults).
func (h *Handler) armFaults(w http.ResponseWriter, r *http.Request) {
	var req FaultRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<10))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err == nil {
		err = req.Validate()
	}
	if err != nil {
		http.Error(w, "POST /faults: "+err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	h.mu.Lock()
	if f := h.fault; f != nil && now.Before(f.until) {
		st := f.st
		h.mu.Unlock()
		http.Error(w, fmt.Sprintf("POST /faults: a window is open until %s", st.Until.Format(time.RFC3339Nano)), http.StatusConflict)
		return
	}
	f := &faultWindow{
		inj:   faults.New(faults.Options{Delay: req.Delay, FailFraction: req.FailFraction}),
		until: now.Add(req.Window),
		st:    FaultStats{Delay: req.Delay, FailFraction: req.FailFraction, Window: req.Window, From: now, Until: now.Add(req.Window)},
	}
	h.fault = f
	h.st.Faults = &f.st
	st := f.st
	h.mu.Unlock()
	writeJSON(w, st)
}

// faulted applies the open fault window, if any, to one method call: it waits the delay and
// answers 500 for the injected failures. It reports whether it answered.
func (h *Handler) faulted(w http.ResponseWriter, r *http.Request) bool {
	h.mu.Lock()
	f := h.fault
	if f == nil || !time.Now().Before(f.until) {
		h.mu.Unlock()
		return false
	}
	req := f.inj.Next()
	f.st.Calls++
	if req.Fail {
		f.st.Failed++
	}
	h.mu.Unlock()
	if err := req.Wait(r.Context()); err != nil {
		return true // the caller went away; nothing to answer
	}
	if req.Fail {
		http.Error(w, "daprperf: injected fault", http.StatusInternalServerError)
		return true
	}
	return false
}
