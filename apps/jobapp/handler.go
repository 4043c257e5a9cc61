package jobapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ScheduleRequest is the body of POST /schedule.
type ScheduleRequest struct {
	// Prefix starts every job name: "<prefix>-<seq>", seq 0 .. Count-1; required, a path
	// segment (no "/", "?", "#", "%" or space).
	Prefix string `json:"prefix"`
	// Count is how many jobs to schedule, 1 .. 1,000,000.
	Count int `json:"count"`
	// DueIn is each job's due time after its schedule request is sent, at least 1 s (daprd's
	// relative dueTime, sent as a Go duration such as "1s").
	DueIn time.Duration `json:"dueIn"`
	// Connections is how many requests are in flight at once (1 .. 256).
	Connections int `json:"connections"`
	// Timeout bounds the whole scheduling (default 5 min); each request has at most 10 s.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// ScheduleResult is the answer of POST /schedule.
type ScheduleResult struct {
	// Scheduled jobs were accepted (2xx); Errors were not (or got no answer).
	Scheduled int64 `json:"scheduled"`
	Errors    int64 `json:"errors"`
	// FirstError is the first failure, for the report.
	FirstError string `json:"firstError,omitempty"`
	// Seconds is the time from the first send to the last answer; RatePerSecond is
	// Scheduled / Seconds.
	Seconds       float64 `json:"seconds"`
	RatePerSecond float64 `json:"ratePerSecond"`
}

// Validate names the first bad field of r and what it accepts.
func (r ScheduleRequest) Validate() error {
	switch {
	case r.Prefix == "" || strings.ContainsAny(r.Prefix, "/?#% "):
		return fmt.Errorf("prefix %q: must be a non-empty path segment (no '/', '?', '#', '%%' or space)", r.Prefix)
	case r.Count < 1 || r.Count > 1_000_000:
		return fmt.Errorf("count %d: must be 1 .. 1000000", r.Count)
	case r.DueIn < time.Second:
		return fmt.Errorf("dueIn %v: must be at least 1s", r.DueIn)
	case r.Connections < 1 || r.Connections > 256:
		return fmt.Errorf("connections %d: must be 1 .. 256", r.Connections)
	case r.Timeout < 0:
		return fmt.Errorf("timeout %v: must be >= 0 (0: 5m)", r.Timeout)
	}
	return nil
}

// requestTimeout bounds one schedule request to daprd.
const requestTimeout = 10 * time.Second

// Options configure the handler.
type Options struct {
	// DaprHTTP is the base URL of the app's daprd HTTP API ("http://127.0.0.1:3500"); without
	// it POST /schedule answers 409.
	DaprHTTP string
	// Counter counts the triggers; nil makes a new one.
	Counter *Counter
}

// NewHandler serves the job app's HTTP API (package doc).
func NewHandler(o Options) http.Handler {
	c := o.Counter
	if c == nil {
		c = NewCounter()
	}
	var scheduling sync.Mutex
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /job/{name}", func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		_, _ = io.Copy(io.Discard, r.Body)
		c.Fired(r.PathValue("name"), at)
		w.WriteHeader(http.StatusOK)
	})
	// The scheduling scenario's baseline: the same schedule request sent straight to the app,
	// which reads the body and answers 204 as daprd does, with no daprd and no scheduler.
	mux.HandleFunc("POST /v1.0-alpha1/jobs/{name}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(c.Stats())
	})
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, _ *http.Request) {
		c.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /schedule", func(w http.ResponseWriter, r *http.Request) {
		var req ScheduleRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil {
			http.Error(w, "schedule: body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if err := req.Validate(); err != nil {
			http.Error(w, "schedule: "+err.Error(), http.StatusBadRequest)
			return
		}
		if o.DaprHTTP == "" {
			http.Error(w, "schedule: no daprd HTTP port (DAPR_HTTP_PORT unset)", http.StatusConflict)
			return
		}
		if !scheduling.TryLock() {
			http.Error(w, "schedule: a scheduling run is in progress", http.StatusConflict)
			return
		}
		defer scheduling.Unlock()
		res := Schedule(r.Context(), client, o.DaprHTTP, req, c)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(res)
	})
	return mux
}

// TriggerData is each scheduled job's data, as Dapr's trigger test sends it (tests/perf/jobs at
// v1.18.3: {"dueTime":"1s","data":"trigger-perf"}).
const TriggerData = "trigger-perf"

// jobBody is daprd's schedule-job body: a relative dueTime and a small payload.
type jobBody struct {
	DueTime string `json:"dueTime"`
	Data    string `json:"data"`
}

// Schedule schedules req.Count jobs through daprd at dapr (POST /v1.0-alpha1/jobs/{name}) with
// req.Connections in flight, recording each in c before it is sent (so a trigger that comes
// back before the answer is not unexpected) and forgetting it again when daprd refuses it.
func Schedule(ctx context.Context, client *http.Client, dapr string, req ScheduleRequest, c *Counter) ScheduleResult {
	timeout := req.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, _ := json.Marshal(jobBody{DueTime: req.DueIn.String(), Data: TriggerData})
	var next, ok, failed atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	var wg sync.WaitGroup
	for range req.Connections {
		wg.Go(func() {
			for {
				seq := next.Add(1) - 1
				if seq >= int64(req.Count) || ctx.Err() != nil {
					return
				}
				name := fmt.Sprintf("%s-%d", req.Prefix, seq)
				sent := time.Now()
				c.Scheduled(name, sent.Add(req.DueIn))
				if err := post(ctx, client, dapr+"/v1.0-alpha1/jobs/"+url.PathEscape(name), body); err != nil {
					c.unschedule(name)
					c.ScheduleFailed(err.Error())
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	res := ScheduleResult{Scheduled: ok.Load(), Errors: failed.Load(), Seconds: time.Since(start).Seconds()}
	if missing := int64(req.Count) - res.Scheduled - res.Errors; missing > 0 { // the timeout ended it
		res.Errors += missing
		firstErr.CompareAndSwap(nil, fmt.Sprintf("%d jobs not sent: %v", missing, ctx.Err()))
	}
	if e, _ := firstErr.Load().(string); e != "" {
		res.FirstError = e
	}
	if res.Seconds > 0 {
		res.RatePerSecond = float64(res.Scheduled) / res.Seconds
	}
	return res
}

// unschedule forgets job name again (its schedule request failed).
func (c *Counter) unschedule(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.due, name)
}

// post sends one schedule request; any answer but 2xx is an error with daprd's body.
func post(ctx context.Context, client *http.Client, u string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(r)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 != 2 {
		return errors.New(resp.Status + ": " + string(bytes.TrimSpace(msg)))
	}
	return nil
}
