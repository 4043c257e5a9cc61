// Package workflowapp is the workflow worker of daprperf's workflow scenarios: Dapr's perf
// workflow shapes (dapr/dapr tests/apps/perf/workflowsapp, there in Python) written in Go on
// github.com/dapr/durabletask-go/workflow v0.11.3, the version Dapr's go-sdk v1.14 uses, and
// connected to its daprd over gRPC (daprd's TaskHubSidecarService).
//
// Workflows, with Dapr's names and inputs (the request body is the input, as text):
//
//   - sum_series_wf (input n, Dapr's "100"): five sum_activity calls one after another, each
//     summing a fifth of 1..n; the total must be n(n+1)/2.
//   - sum_parallel_wf (input n): the same five activities scheduled at once (fan-out), awaited
//     together (fan-in); same check.
//   - state_wf (input: a size in bytes, Dapr's 10000, 50000, 100000): a value of that many
//     bytes is saved to the state store through daprd, read back and compared, then deleted, one
//     activity each; the value travels in the activities' inputs and outputs, so it is in the
//     workflow's history.
//   - delay_wf (input: milliseconds, Dapr's 5000): one activity that sleeps that long.
//
// One request, POST /<workflow name> with the input as body, schedules one instance, waits for
// it to complete (WaitForWorkflowCompletion) and answers 200 with the instance id, or 500 with
// the reason (failed to schedule, not COMPLETED, wrong result). So one request's latency is one
// whole workflow, start to completion, as in Dapr's app (POST /run-workflow/<id>). Dapr's app
// also sleeps 0.5 s between starting and waiting (Options.WaitDelay), sleeps 1 s at the end of
// each state activity (Options.StateSleep), and after completion gets, terminates, purges and
// gets the instance again (Options.Cleanup); each is off unless set, and the workflow scenarios
// set all three (dapr/dapr tests/apps/perf/workflowsapp/app.py, v1.18.3).
//
// GET /healthz answers 200 at once (the platform checks it before daprd starts); GET /readyz
// answers 200 once the worker is connected to daprd, 503 before. A workflow request that
// arrives before the worker is connected waits for it (up to Options.ConnectTimeout).
package workflowapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dapr/durabletask-go/api/protos"
	"github.com/dapr/durabletask-go/workflow"
	"google.golang.org/grpc"
)

// Workflow names, as Dapr's app registers them.
const (
	SumSeries   = "sum_series_wf"
	SumParallel = "sum_parallel_wf"
	State       = "state_wf"
	Delay       = "delay_wf"
)

// Names lists the workflows, in the order above.
var Names = []string{SumSeries, SumParallel, State, Delay}

// Bounds of the inputs.
const (
	// MaxSumN bounds the series' n, so that n(n+1)/2 fits an int64 comfortably.
	MaxSumN = 1_000_000_000
	// MaxStateBytes bounds state_wf's value (Dapr's largest is 100,000).
	MaxStateBytes = 4 << 20
	// MaxDelay bounds delay_wf's sleep.
	MaxDelay = 10 * time.Minute
	// maxBody bounds a request body (the input is a number).
	maxBody = 64
)

// Options configure the app.
type Options struct {
	// Conn is the gRPC connection to daprd's API port (the worker and the client share it).
	Conn grpc.ClientConnInterface
	// DaprHTTP is daprd's HTTP API base URL ("http://127.0.0.1:3500"), for state_wf's state
	// calls; "" disables state_wf (its requests answer 500 naming the missing setting).
	DaprHTTP string
	// StateStore is the state store component state_wf uses (Dapr's app: "statestore").
	StateStore string
	// WaitDelay is slept between scheduling and waiting, Dapr's app's sleep(0.5); default 0.
	WaitDelay time.Duration
	// StateSleep is slept at the end of each state activity, Dapr's sleep(1); default 0.
	StateSleep time.Duration
	// Cleanup, after a workflow completed, fetches its metadata, terminates it, purges its
	// state and fetches it again, as Dapr's app does inside each request. Dapr's app prints an
	// error of any of the four and answers 200; so does this one, counting them (GET /stats
	// "cleanupErrors"; the last fetch finds no instance once purged, which is not an error).
	Cleanup bool
	// ConnectTimeout bounds how long a request waits for the worker to connect (default 30 s).
	ConnectTimeout time.Duration
}

// App is the worker and its HTTP handler.
type App struct {
	o         Options
	client    *workflow.Client
	http      *http.Client
	connected chan struct{}
	ready     atomic.Bool
	// Counts, read by GET /stats.
	completed, failed, cleanupErrors atomic.Int64
}

// New returns an App; Start connects its worker.
func New(o Options) (*App, error) {
	if o.Conn == nil {
		return nil, errors.New("workflowapp: Options.Conn is nil: need a gRPC connection to daprd")
	}
	if o.StateStore == "" {
		o.StateStore = "statestore"
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 30 * time.Second
	}
	if o.WaitDelay < 0 || o.StateSleep < 0 {
		return nil, fmt.Errorf("workflowapp: WaitDelay %v and StateSleep %v must be >= 0", o.WaitDelay, o.StateSleep)
	}
	return &App{o: o, client: workflow.NewClient(o.Conn), http: &http.Client{Timeout: 30 * time.Second},
		connected: make(chan struct{})}, nil
}

// Registry returns the workflows and activities of the app, registered under Dapr's names.
func (a *App) Registry() (*workflow.Registry, error) {
	r := workflow.NewRegistry()
	errs := []error{
		r.AddWorkflowN(SumSeries, sumSeries),
		r.AddWorkflowN(SumParallel, sumParallel),
		r.AddWorkflowN(State, a.stateWorkflow),
		r.AddWorkflowN(Delay, delayWorkflow),
		r.AddActivityN("sum_activity", sumActivity),
		r.AddActivityN("state_save_act", a.stateSave),
		r.AddActivityN("state_get_act", a.stateGet),
		r.AddActivityN("state_delete_act", a.stateDelete),
		r.AddActivityN("delay_activity", delayActivity),
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("workflowapp: register: %w", err)
	}
	return r, nil
}

// Start connects the worker to daprd, retrying every retry until it succeeds or ctx ends (daprd
// may start after the app). It returns at once; Ready says when it is connected. The worker
// stops when ctx ends.
func (a *App) Start(ctx context.Context, retry time.Duration) error {
	reg, err := a.Registry()
	if err != nil {
		return err
	}
	go func() {
		t := time.NewTicker(retry)
		defer t.Stop()
		for {
			if err := a.client.StartWorker(ctx, reg); err == nil {
				a.ready.Store(true)
				close(a.connected)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// Ready reports whether the worker is connected.
func (a *App) Ready() bool { return a.ready.Load() }

// Handler serves GET /healthz, GET /readyz, GET /stats and POST /<workflow name>.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !a.Ready() {
			http.Error(w, "workflow worker not connected to daprd yet", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"completed":%d,"failed":%d,"cleanupErrors":%d}`+"\n", a.completed.Load(), a.failed.Load(), a.cleanupErrors.Load())
	})
	mux.HandleFunc("POST /{name}", a.run)
	return mux
}

// run schedules one workflow with the body as input and answers once it completed.
func (a *App) run(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, fmt.Sprintf("read body: at most %d bytes of input (got %d, %v)", maxBody, len(body), err), http.StatusBadRequest)
		return
	}
	input := strings.TrimSpace(string(body))
	if err := validInput(name, input); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if name == State && a.o.DaprHTTP == "" {
		http.Error(w, "state_wf: no daprd HTTP address (DAPR_HTTP_PORT) for its state calls", http.StatusInternalServerError)
		return
	}
	id, err := a.Run(r.Context(), name, input)
	if err != nil {
		a.failed.Add(1)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	a.completed.Add(1)
	_, _ = fmt.Fprintln(w, id)
}

// validInput checks a request's workflow name and input.
func validInput(name, input string) error {
	n, err := strconv.ParseInt(input, 10, 64)
	switch name {
	case SumSeries, SumParallel:
		if err != nil || n < 5 || n > MaxSumN {
			return fmt.Errorf("%s: input %q: must be an integer n from 5 to %d (Dapr's: 100)", name, input, MaxSumN)
		}
	case State:
		if err != nil || n < 1 || n > MaxStateBytes {
			return fmt.Errorf("%s: input %q: must be a size in bytes from 1 to %d (Dapr's: 10000, 50000, 100000)", name, input, MaxStateBytes)
		}
	case Delay:
		if err != nil || n < 0 || time.Duration(n)*time.Millisecond > MaxDelay {
			return fmt.Errorf("%s: input %q: must be milliseconds from 0 to %d (Dapr's: 5000)", name, input, MaxDelay.Milliseconds())
		}
	default:
		return fmt.Errorf("workflow %q: unknown (want one of %s)", name, strings.Join(Names, ", "))
	}
	return nil
}

// Run schedules workflow name with input (a number as text, see the package doc), waits for it
// to complete and returns its instance id; an error says what went wrong, with the instance's
// failure details when it did not complete.
func (a *App) Run(ctx context.Context, name, input string) (string, error) {
	wait, cancel := context.WithTimeout(ctx, a.o.ConnectTimeout)
	select {
	case <-a.connected:
	case <-wait.Done():
		cancel()
		return "", fmt.Errorf("%s: worker not connected to daprd after %v", name, a.o.ConnectTimeout)
	}
	cancel()
	id, err := a.client.ScheduleWorkflow(ctx, name, workflow.WithInput(input))
	if err != nil {
		return "", fmt.Errorf("%s: schedule: %w", name, err)
	}
	if a.o.WaitDelay > 0 {
		select {
		case <-time.After(a.o.WaitDelay):
		case <-ctx.Done():
			return id, ctx.Err()
		}
	}
	md, err := a.client.WaitForWorkflowCompletion(ctx, id)
	if err != nil {
		return id, fmt.Errorf("%s %s: wait for completion: %w", name, id, err)
	}
	if md.RuntimeStatus != protos.OrchestrationStatus_ORCHESTRATION_STATUS_COMPLETED {
		msg := md.RuntimeStatus.String()
		if fd := md.FailureDetails; fd != nil {
			msg += ": " + fd.ErrorType + ": " + fd.ErrorMessage
		}
		return id, fmt.Errorf("%s %s: ended %s", name, id, msg)
	}
	if a.o.Cleanup {
		a.cleanup(ctx, id)
	}
	return id, nil
}

// cleanup is Dapr's app's epilogue to a completed workflow: get, terminate, purge, get again.
// Errors are counted, not returned, as Dapr's app prints them and answers 200; the last get is
// expected to find nothing.
func (a *App) cleanup(ctx context.Context, id string) {
	count := func(err error) {
		if err != nil && a.cleanupErrors.Add(1) == 1 {
			log.Printf("workflowapp: cleanup of %s: %v (further cleanup errors are only counted, GET /stats)", id, err)
		}
	}
	_, err := a.client.FetchWorkflowMetadata(ctx, id)
	count(err)
	count(a.client.TerminateWorkflow(ctx, id))
	count(a.client.PurgeWorkflowState(ctx, id))
	_, _ = a.client.FetchWorkflowMetadata(ctx, id)
}

// parts splits 1..n into the five ranges Dapr's app sums: four of n/5, the last to n.
func parts(n int64) [][2]int64 {
	l := n / 5
	return [][2]int64{{1, l}, {l + 1, 2 * l}, {2*l + 1, 3 * l}, {3*l + 1, 4 * l}, {4*l + 1, n}}
}

// sumInput reads a workflow's input n.
func sumInput(ctx *workflow.WorkflowContext) (int64, error) {
	var s string
	if err := ctx.GetInput(&s); err != nil {
		return 0, fmt.Errorf("input: %w", err)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 5 {
		return 0, fmt.Errorf("input %q: want an integer >= 5", s)
	}
	return n, nil
}

func checkSum(n, got int64) error {
	if want := n * (n + 1) / 2; got != want {
		return fmt.Errorf("sum of 1..%d: got %d, want %d", n, got, want)
	}
	return nil
}

// sumSeries is sum_series_wf: five activities one after another.
func sumSeries(ctx *workflow.WorkflowContext) (any, error) {
	n, err := sumInput(ctx)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, p := range parts(n) {
		var s int64
		if err := ctx.CallActivity("sum_activity", workflow.WithActivityInput(p)).Await(&s); err != nil {
			return nil, err
		}
		total += s
	}
	return total, checkSum(n, total)
}

// sumParallel is sum_parallel_wf: the five activities at once, then awaited together.
func sumParallel(ctx *workflow.WorkflowContext) (any, error) {
	n, err := sumInput(ctx)
	if err != nil {
		return nil, err
	}
	ps := parts(n)
	tasks := make([]workflow.Task, len(ps))
	for i, p := range ps {
		tasks[i] = ctx.CallActivity("sum_activity", workflow.WithActivityInput(p))
	}
	var total int64
	for _, t := range tasks {
		var s int64
		if err := t.Await(&s); err != nil {
			return nil, err
		}
		total += s
	}
	return total, checkSum(n, total)
}

// sumActivity sums the integers of [lo, hi], one by one as Dapr's app does.
func sumActivity(ctx workflow.ActivityContext) (any, error) {
	var p [2]int64
	if err := ctx.GetInput(&p); err != nil {
		return nil, fmt.Errorf("sum_activity input: %w", err)
	}
	var s int64
	for i := p[0]; i <= p[1]; i++ {
		s += i
	}
	return s, nil
}

// stateItem is state_wf's key and value, an activity's input.
type stateItem struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// stateWorkflow is state_wf: save a value of the input's size, read it back, compare, delete.
func (a *App) stateWorkflow(ctx *workflow.WorkflowContext) (any, error) {
	var s string
	if err := ctx.GetInput(&s); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	size, err := strconv.Atoi(s)
	if err != nil || size < 1 || size > MaxStateBytes {
		return nil, fmt.Errorf("input %q: want a size in bytes from 1 to %d", s, MaxStateBytes)
	}
	item := stateItem{Key: ctx.ID(), Value: strings.Repeat("1", size)} // Dapr's "1" * dataSize
	if err := ctx.CallActivity("state_save_act", workflow.WithActivityInput(item)).Await(nil); err != nil {
		return nil, err
	}
	var got string
	if err := ctx.CallActivity("state_get_act", workflow.WithActivityInput(item.Key)).Await(&got); err != nil {
		return nil, err
	}
	if got != item.Value {
		return nil, fmt.Errorf("state %s: read back %d bytes, saved %d", item.Key, len(got), len(item.Value))
	}
	if err := ctx.CallActivity("state_delete_act", workflow.WithActivityInput(item.Key)).Await(nil); err != nil {
		return nil, err
	}
	return size, nil
}

func (a *App) sleepState(ctx context.Context) error {
	if a.o.StateSleep <= 0 {
		return nil
	}
	select {
	case <-time.After(a.o.StateSleep):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stateCall sends one state API request to daprd and returns the body of a 2xx answer.
func (a *App) stateCall(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.o.DaprHTTP+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	out, err := io.ReadAll(io.LimitReader(resp.Body, MaxStateBytes+1024))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(out[:min(len(out), 512)]))
	}
	return out, nil
}

func (a *App) stateSave(ctx workflow.ActivityContext) (any, error) {
	var it stateItem
	if err := ctx.GetInput(&it); err != nil {
		return nil, fmt.Errorf("state_save_act input: %w", err)
	}
	body, err := json.Marshal([]stateItem{it})
	if err != nil {
		return nil, err
	}
	if _, err := a.stateCall(ctx.Context(), http.MethodPost, "/v1.0/state/"+a.o.StateStore, body); err != nil {
		return nil, err
	}
	return nil, a.sleepState(ctx.Context())
}

func (a *App) stateGet(ctx workflow.ActivityContext) (any, error) {
	var key string
	if err := ctx.GetInput(&key); err != nil {
		return nil, fmt.Errorf("state_get_act input: %w", err)
	}
	out, err := a.stateCall(ctx.Context(), http.MethodGet, "/v1.0/state/"+a.o.StateStore+"/"+key, nil)
	if err != nil {
		return nil, err
	}
	var v string
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("state_get_act %s: value is not a JSON string: %w", key, err)
	}
	return v, a.sleepState(ctx.Context())
}

func (a *App) stateDelete(ctx workflow.ActivityContext) (any, error) {
	var key string
	if err := ctx.GetInput(&key); err != nil {
		return nil, fmt.Errorf("state_delete_act input: %w", err)
	}
	if _, err := a.stateCall(ctx.Context(), http.MethodDelete, "/v1.0/state/"+a.o.StateStore+"/"+key, nil); err != nil {
		return nil, err
	}
	return nil, a.sleepState(ctx.Context())
}

// delayWorkflow is delay_wf: one activity sleeping the input's milliseconds.
func delayWorkflow(ctx *workflow.WorkflowContext) (any, error) {
	var s string
	if err := ctx.GetInput(&s); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil || ms < 0 {
		return nil, fmt.Errorf("input %q: want milliseconds >= 0", s)
	}
	return nil, ctx.CallActivity("delay_activity", workflow.WithActivityInput(ms)).Await(nil)
}

func delayActivity(ctx workflow.ActivityContext) (any, error) {
	var ms int64
	if err := ctx.GetInput(&ms); err != nil {
		return nil, fmt.Errorf("delay_activity input: %w", err)
	}
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
		return nil, nil
	case <-ctx.Context().Done():
		return nil, ctx.Context().Err()
	}
}
