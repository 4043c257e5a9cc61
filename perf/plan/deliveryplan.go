package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/testers"
)

// DeliveryPlan measures pub/sub delivery end to end: the tester publishes at a fixed rate
// through its own daprd (Scenario.Main: a publish Operation, ThroughSidecar), each message
// stamped with its load's nonce, a sequence number and its send time (DeliveryPayload); the
// broker and the subscriber's daprd deliver it to the subscriber app (Kind Subscriber), which
// records its receipt. In order:
//
//  1. a warmup load (Scenario.WarmupOptions) under its own nonce, so that the subscription,
//     the broker's queues and the connections exist before anything is measured; its late
//     messages count as stale, not as the main load's;
//  2. the subscriber's counts reset to the main load's nonce, then the main load
//     (Scenario.MainOptions; its PayloadBytes is the message size), with resources sampled
//     from its start to the end of the drain;
//  3. the drain: the subscriber's counts are read every 200 ms until every accepted message
//     has arrived and every delivery call has been answered, or Drain has passed; then the
//     report's Delivery: sent, received, lost,
//     duplicated and delivery-latency percentiles (receipt - send time, HDR, exact).
//
// Gates (by Threshold.Figure): "delivery.lost" (count), "delivery.p50" .. "delivery.p99.9"
// (seconds, perf.DeliveryPercentiles), "delivery.duplicated" (count), and "errors" (failed
// publishes), "qps.ratio" and "restarts" as for the other plans. With RestartBroker set, the
// broker's backend is restarted once during the main load (the platform must implement
// BackendRestarter) and the report says when and for how long it was down.
//
// On both platforms the plan reads the subscriber's own port (GET /stats, perf.AppControl; on
// kubernetes through a port-forward), and in mode SubscribeConfiguration the tester writes to
// the store itself (on kubernetes to its Service). RestartBroker on kubernetes deletes the
// broker's pods behind the Service its address names (kube.Deployment.RestartBackend). HTTP only: the tester stamps messages over HTTP (gRPC
// publishes send one fixed body).
//
// Mode SubscribeConfiguration (configuration.go) measures a configuration subscription the
// same way: Main is then a configuration.set straight to the store (the tester stamps each
// update in its Redis client, so both transports work), the subscriber subscribes through its
// daprd over the scenario's transport before the warmup, and latency runs from the store
// update to the app's notification. Its gate "delivery.mean" (seconds) is Dapr's.
type DeliveryPlan struct {
	// Subscriber is the subscriber app's name; Scenario.Main.To must name it too.
	Subscriber string
	// Mode is how it subscribes (normal or bulk), for the report.
	Mode perf.SubscribeMode
	// Broker is the backend of the pub/sub component (NoBackend for in-memory).
	Broker perf.Backend
	// Drain bounds the wait for the last messages after the main load (default 15 s).
	Drain time.Duration
	// RestartBroker restarts Broker's backend this long after the main load starts; 0 does not.
	// DAPR_PERF_RESTART_BROKER, when set, wins.
	RestartBroker time.Duration
	// Await, when > 0, makes each iteration of the main and warmup loads (closed loops: both
	// need an executor) wait up to that long for the subscriber to receive every message its
	// request stamped (perf.Await; Dapr's subscribe tests: perf.DaprAwaitTimeout). An iteration
	// whose messages do not all arrive in time fails with perf.CodeDeliveryTimeout.
	Await time.Duration
	// AwaitTimed makes an awaiting iteration's service time include the wait (Dapr's
	// configuration-subscribe iteration: update, then the notification); without it the
	// request alone is timed (Dapr's subscribe bound is on the publish request).
	AwaitTimed bool
	// Baseline (mode SubscribeConfiguration only) runs Dapr's baseline run first, before the
	// subscription through daprd: the subscriber subscribes straight to the store (as daprd's
	// configuration.redis component does, with no daprd), and the main load's parameters run
	// under their own nonce, then drain as the main load does. Its updates and waits are the
	// report's first load, "baseline", and its counts Delivery.Baseline; the sidecar overhead
	// is the main load's time minus the baseline's (one round each: no interval); the gate
	// "baseline.mean" is its mean. The store subscription ends before daprd's begins.
	Baseline bool
}

// deliveryRun is one run of a DeliveryPlan: when the broker restarts and how long an iteration
// waits, after the overrides.
type deliveryRun struct {
	DeliveryPlan
	// restartAt is when the broker restarts (0: never): the scenario's RestartBroker or
	// DAPR_PERF_RESTART_BROKER; awaitFor how long an iteration waits for its messages (0: it
	// does not): the scenario's Await or DAPR_PERF_AWAIT_TIMEOUT.
	restartAt, awaitFor time.Duration
}

// Kind is KindDelivery.
func (*DeliveryPlan) Kind() string { return perf.KindDelivery }

// mainPublish names the main load among the report's loads (its last); a baseline, when run,
// is the first, perf.PhaseBaseline.
const mainPublish = "main publish"

// defaultDrain is DeliveryPlan.Drain when unset: RabbitMQ's redelivery after a reconnect
// took several seconds here, and a drain that ends early reads late messages as lost.
const defaultDrain = 15 * time.Second

// warmupDrain bounds the wait after the warmup for its messages to arrive.
const warmupDrain = 5 * time.Second

func (d *DeliveryPlan) drain() time.Duration {
	if d.Drain > 0 {
		return d.Drain
	}
	return defaultDrain
}

func (d *DeliveryPlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	r := &deliveryRun{DeliveryPlan: *d}
	var errs problems
	add := errs.add
	loadParams(sc, cfg, add)
	restart := d.RestartBroker
	env := cfg.Env
	if env.RestartBroker != nil {
		restart = *env.RestartBroker
	}
	await := d.Await
	if env.AwaitTimeout != nil && await > 0 {
		await = *env.AwaitTimeout
	}
	r.restartAt, r.awaitFor = restart, await
	if rc, ok := cfg.Platform.(perf.RestartChecker); ok && restart > 0 && d.Broker != perf.NoBackend {
		if err := rc.CanRestartBackend(d.Broker); err != nil {
			add(fmt.Errorf("delivery plan: RestartBroker: %w", err))
		}
	}
	if sc.Transport != perf.HTTP && d.Mode != perf.SubscribeConfiguration {
		add(fmt.Errorf("delivery plan: Transport %q: only %q (the tester stamps each message's sequence number and send time over HTTP)", sc.Transport, perf.HTTP))
	}
	if d.Subscriber == "" || sc.Main.To != d.Subscriber {
		add(fmt.Errorf("delivery plan: Subscriber %q must name the app Main.To names (%q)", d.Subscriber, sc.Main.To))
	}
	found := false
	for _, a := range sc.Apps {
		if a.Name == d.Subscriber {
			found = true
			if a.Kind != perf.Subscriber {
				add(fmt.Errorf("delivery plan: app %s: Kind %q, want %q", a.Name, a.Kind, perf.Subscriber))
			}
		}
	}
	if !found {
		add(fmt.Errorf("delivery plan: no app named %q (Subscriber)", d.Subscriber))
	}
	if op := sc.Main.Operation; d.Mode == perf.SubscribeConfiguration {
		if op.Kind != perf.OpConfigurationSet || sc.Main.ThroughSidecar {
			add(fmt.Errorf("delivery plan: mode %s: Main must write configuration straight to the store (Operation.Kind %q, ThroughSidecar false); got %q, %v", d.Mode, perf.OpConfigurationSet, op.Kind, sc.Main.ThroughSidecar))
		}
	} else if (op.Kind != perf.OpPublish && op.Kind != perf.OpPublishBulk) || !sc.Main.ThroughSidecar {
		add(fmt.Errorf("delivery plan: Main must publish through the tester's sidecar (Operation.Kind %q or %q, ThroughSidecar true); got %q, %v", perf.OpPublish, perf.OpPublishBulk, op.Kind, sc.Main.ThroughSidecar))
	}
	switch d.Mode {
	case perf.SubscribeNormal, perf.SubscribeBulk, perf.SubscribeConfiguration:
	default:
		add(fmt.Errorf("delivery plan: Mode %q: want %q, %q or %q", d.Mode, perf.SubscribeNormal, perf.SubscribeBulk, perf.SubscribeConfiguration))
	}
	if d.Drain < 0 || restart < 0 {
		add(fmt.Errorf("delivery plan: Drain %v and RestartBroker %v must be >= 0", d.Drain, restart))
	}
	if restart > 0 && restart >= cfg.Main.Duration {
		add(fmt.Errorf("delivery plan: RestartBroker (%s) %v must fall inside the main load (%v)", perf.EnvRestartBroker, restart, cfg.Main.Duration))
	}
	if d.Await < 0 || (d.Await > 0 && (d.Await < perf.MinAwaitTimeout || d.Await > perf.MaxAwaitTimeout)) {
		add(fmt.Errorf("delivery plan: Await %v: from %v to %v, or 0 for no wait", d.Await, perf.MinAwaitTimeout, perf.MaxAwaitTimeout))
	}
	if d.Await > 0 && (!cfg.Main.HasExecutor() || !cfg.Warmup.HasExecutor()) {
		add(errors.New("delivery plan: Await needs an executor (a closed loop) on the main and warmup loads: a fixed-rate load cannot wait for its messages"))
	}
	if n := sc.TesterReplicasFromEnv(env); n > 1 {
		add(fmt.Errorf("delivery plan: %d testers (%s): one only, since each tester numbers its messages from 0 and the subscriber counts one sequence", n, perf.EnvTesterReplicas))
	}
	if d.Baseline && d.Mode != perf.SubscribeConfiguration {
		add(fmt.Errorf("delivery plan: Baseline: mode %q only (a subscription straight to the store); mode %q has none", perf.SubscribeConfiguration, d.Mode))
	}
	if d.AwaitTimed && d.Await == 0 {
		add(errors.New("delivery plan: AwaitTimed needs Await > 0"))
	}
	if restart > 0 && d.Broker == perf.NoBackend {
		add(fmt.Errorf("delivery plan: RestartBroker (%s) needs a Broker backend (an in-memory pub/sub has none to restart)", perf.EnvRestartBroker))
	}
	return r, errors.Join(errs...)
}

func (d *deliveryRun) Steps(_ perf.Scenario, cfg perf.RunConfig) []perf.Step {
	var steps []perf.Step
	if d.Baseline {
		steps = append(steps, perf.Step{Name: fmt.Sprintf("%s, then up to %v for its last updates", d.baselineName(cfg.Main), d.drain()), Duration: scheduled(cfg.Main) + time.Second})
	}
	return append(steps,
		perf.Step{Name: fmt.Sprintf("warmup, %s, then up to %v for its messages", d.pace(cfg.Warmup), warmupDrain), Duration: scheduled(cfg.Warmup) + 2*time.Second},
		perf.Step{Name: fmt.Sprintf("main: %s %s, %s subscribe", d.sends(), d.pace(cfg.Main), d.Mode), Duration: scheduled(cfg.Main)},
		perf.Step{Name: fmt.Sprintf("drain: up to %v for the last messages", d.drain()), Duration: time.Second},
	)
}

// baselineName is the baseline phase of load p, for the plan and the progress lines.
func (d *DeliveryPlan) baselineName(p perf.Params) string {
	return fmt.Sprintf("baseline: %s %s, the subscriber on the store's own notifications (no daprd)", d.sends(), d.pace(p))
}

// pace says how p's load goes, for the progress lines: a rate and a duration, or an
// executor's VUs, each iteration waiting for its messages when d awaits them.
func (d *DeliveryPlan) pace(p perf.Params) string {
	if !p.HasExecutor() {
		return fmt.Sprintf("%d msg/s x %v", p.QPS, p.Duration)
	}
	s := fmt.Sprintf("%s, up to %d VUs over %v", p.Executor.Kind, p.Executor.PeakVUs(), p.Executor.ScheduleDuration())
	if d.Await > 0 {
		s += ", each iteration waiting for its messages"
	}
	return s
}

// scheduled is how long p's load is planned to run: its duration, or its executor's schedule.
func scheduled(p perf.Params) time.Duration {
	if p.HasExecutor() {
		return p.Executor.ScheduleDuration()
	}
	return p.Duration
}

func (d *deliveryRun) Run(s perf.Session) error {
	t, sc, cfg, rep := s.T(), s.Scenario(), s.Config(), s.Report()
	dep := s.Deploy(t, "", sc.Apps, cfg.Main, cfg.Warmup)
	tester, err := startTester(s, dep)
	if err != nil {
		return err
	}
	subURL, err := dep.Endpoint(d.Subscriber, perf.AppControl)
	if err != nil {
		return err
	}
	sub := subscriberClient{url: subURL}
	warm, err := routed(dep, sc, sc.Main, cfg.Warmup)
	if err != nil {
		return fmt.Errorf("warmup: %w", err)
	}
	main, err := routed(dep, sc, sc.Main, cfg.Main)
	if err != nil {
		return fmt.Errorf("main: %w", err)
	}
	ctx := t.Context()
	var (
		base   *perf.Result
		baseDR *perf.DeliveryReport
	)
	if d.Baseline {
		res, br, err := d.runBaseline(s, dep, tester, sub, main)
		if err != nil {
			return err
		}
		base, baseDR = &res, br
		rep.Loads = append(rep.Loads, perf.NamedLoad{Name: perf.PhaseBaseline, Result: res})
	}
	if d.Mode == perf.SubscribeConfiguration {
		if err := d.subscribeConfiguration(ctx, dep, sc, sub); err != nil {
			return err
		}
	}

	// 1. warmup under its own nonce
	wn := rep.RunID + "-warmup"
	warm.Payload = perf.DeliveryPayload(wn, max(warm.PayloadBytes, 1))
	if warm.Await, err = d.await(dep, wn, d.awaitFor); err != nil {
		return err
	}
	if err := sub.reset(ctx, wn); err != nil {
		return err
	}
	wres, err := runWarmup(s, tester, warm, fmt.Sprintf(", %s to %s", d.pace(warm), warm.Target), scheduled(warm))
	if err != nil {
		return err
	}
	wseq, wsent := sequenced(wres)
	if _, _, err := sub.drain(ctx, wseq, wsent, warmupDrain); err != nil {
		return fmt.Errorf("warmup: %w", err)
	}

	// 2. the main load, resources sampled to the end of the drain
	mn := rep.RunID + "-main"
	size := main.PayloadBytes
	main.Payload = perf.DeliveryPayload(mn, max(size, 1))
	if main.Await, err = d.await(dep, mn, d.awaitFor); err != nil {
		return err
	}
	if err := sub.reset(ctx, mn); err != nil {
		return err
	}
	op := sc.Main.Operation
	dr := &perf.DeliveryReport{Mode: d.Mode, Delivery: d.delivery(sc), Broker: d.Broker, PubSub: op.PubSub, Topic: op.Topic, DrainWindowSeconds: d.drain().Seconds()}
	if d.Mode == perf.SubscribeConfiguration {
		dr.PubSub = op.Store // the configuration store's component
	}
	dr.Baseline = baseDR
	rep.Delivery = dr
	stopSampling := s.Record(dep, sc.Roles(), "delivery")
	restarted := make(chan struct{})
	if at := d.restartAt; at > 0 {
		go func() {
			defer close(restarted)
			d.restart(ctx, t, dep, dr, at)
		}()
	} else {
		close(restarted)
	}
	done := s.Phase(fmt.Sprintf("main: %s %s to %s, %s subscribe", d.sends(), d.pace(main), main.Target, d.Mode), scheduled(main))
	stopProfiles := s.Profile(dep, "main", scheduled(main))
	res, err := testers.RunLoad(ctx, tester, main)
	stopProfiles()
	done()
	<-restarted
	if err != nil {
		stopSampling()
		return fmt.Errorf("main: %w", err)
	}
	res.Params.PayloadBytes = size
	rep.Params = res.Params
	rep.Loads = append(rep.Loads, perf.NamedLoad{Name: mainPublish, Result: res})
	if base != nil {
		rd := []perf.Round{{Baseline: *base, Main: res}}
		if rep.Overhead, err = report.ComputeOverheads(rd); err != nil {
			rep.Warnings = append(rep.Warnings, "sidecar overhead: "+err.Error())
		}
		rep.ResponseOverhead, _ = report.ComputeResponseOverheads(rd) // nil when a load has none
	}
	dr.Sequenced, dr.Sent = sequenced(res)
	dr.PublishErrors = dr.Sequenced - dr.Sent
	dr.AwaitTimeouts = res.AwaitTimeouts()
	s.Checkpoint("main load")

	// 3. the drain
	done = s.Phase("drain: waiting for the last messages", d.drain())
	st, waited, err := sub.drain(ctx, dr.Sequenced, dr.Sent, d.drain())
	done()
	rep.Resources = report.SummariseResources([]perf.Round{{Main: res, Resources: stopSampling()}}, nil)
	if err != nil {
		return fmt.Errorf("drain: %w", err)
	}
	dr.Fill(st, waited)
	s.Checkpoint("drain")
	return nil
}

// runBaseline runs the baseline of DeliveryPlan.Baseline with the main load's parameters p:
// the subscriber subscribed straight to the store, the load under the nonce
// "<run id>-baseline", the drain, then the store subscription ended. It returns the load's
// result and its counts.
func (d *deliveryRun) runBaseline(s perf.Session, dep perf.Deployment, tester testers.Client, sub subscriberClient, p perf.Params) (perf.Result, *perf.DeliveryReport, error) {
	ctx := s.T().Context()
	if err := sub.subscribeConfiguration(ctx, storeSubscription, ""); err != nil {
		return perf.Result{}, nil, fmt.Errorf("baseline: %w", err)
	}
	bn := s.Report().RunID + "-baseline"
	size := p.PayloadBytes
	p.Payload = perf.DeliveryPayload(bn, max(size, 1))
	var err error
	if p.Await, err = d.await(dep, bn, d.awaitFor); err != nil {
		return perf.Result{}, nil, err
	}
	if err := sub.reset(ctx, bn); err != nil {
		return perf.Result{}, nil, fmt.Errorf("baseline: %w", err)
	}
	res, err := runPhase(s, tester, perf.Step{Name: d.baselineName(p) + " to " + p.Target, Duration: scheduled(p)}, p)
	if err != nil {
		return perf.Result{}, nil, fmt.Errorf("baseline: %w", err)
	}
	res.Params.PayloadBytes = size
	br := &perf.DeliveryReport{Mode: d.Mode, Delivery: storeSubscription, Broker: d.Broker, DrainWindowSeconds: d.drain().Seconds()}
	br.Sequenced, br.Sent = sequenced(res)
	br.PublishErrors = br.Sequenced - br.Sent
	br.AwaitTimeouts = res.AwaitTimeouts()
	done := s.Phase("baseline drain: waiting for its last updates", d.drain())
	st, waited, err := sub.drain(ctx, br.Sequenced, br.Sent, d.drain())
	done()
	if err != nil {
		return perf.Result{}, nil, fmt.Errorf("baseline drain: %w", err)
	}
	br.Fill(st, waited)
	if err := sub.unsubscribeConfiguration(ctx); err != nil {
		return perf.Result{}, nil, fmt.Errorf("baseline: %w", err)
	}
	s.Checkpoint("baseline")
	return res, br, nil
}

// sequenced is how many messages res stamped (sequence numbers 0 .. n-1: each request stamps
// Operation.EventsPerRequest of them, a configuration update one) and how many of them were
// accepted: all but those of failed requests. An iteration that failed in its wait for its
// messages (perf.Result.AwaitFailures) had its request accepted.
func sequenced(res perf.Result) (n, accepted int64) {
	per := int64(max(res.Params.Operation.EventsPerRequest(), 1))
	failed := res.Errors() - res.AwaitFailures()
	return res.Requests * per, (res.Requests - failed) * per
}

// await is the perf.Await of a load under nonce run with window timeout, or nil when d does
// not wait (timeout 0): the subscriber's own port as the tester reaches it.
func (d *deliveryRun) await(dep perf.Deployment, run string, timeout time.Duration) (*perf.Await, error) {
	if timeout == 0 {
		return nil, nil
	}
	u, err := dep.Endpoint(d.Subscriber, perf.AppHTTP)
	if err != nil {
		return nil, fmt.Errorf("delivery plan: Await: %w", err)
	}
	return &perf.Await{URL: u, Run: run, Timeout: timeout, Timed: d.AwaitTimed}, nil
}

// delivery is the protocol the subscriber's daprd delivers with: its sidecar's AppProtocol,
// else the subscriber kind's (HTTP).
func (d *DeliveryPlan) delivery(sc perf.Scenario) perf.Protocol {
	for _, a := range sc.Apps {
		if a.Name == d.Subscriber && a.Sidecar != nil && a.Sidecar.AppProtocol != "" {
			return a.Sidecar.AppProtocol
		}
	}
	return perf.Subscriber.Protocol()
}

// sends is what the main load does, for the progress lines.
func (d *DeliveryPlan) sends() string {
	if d.Mode == perf.SubscribeConfiguration {
		return "write configuration updates to the store,"
	}
	return "publish"
}

// subscribeConfiguration has the subscriber subscribe through its own daprd, over the
// scenario's transport (mode SubscribeConfiguration).
func (d *deliveryRun) subscribeConfiguration(ctx context.Context, dep perf.Deployment, sc perf.Scenario, sub subscriberClient) error {
	e := perf.SidecarHTTP
	if sc.Transport == perf.GRPC {
		e = perf.SidecarGRPC
	}
	addr, err := dep.Endpoint(d.Subscriber, e)
	if err != nil {
		return err
	}
	return sub.subscribeConfiguration(ctx, sc.Transport, addr)
}

// restart restarts the broker at after now, recording it in dr.
func (d *deliveryRun) restart(ctx context.Context, t perf.TB, dep perf.Deployment, dr *perf.DeliveryReport, at time.Duration) {
	start := time.Now()
	select {
	case <-ctx.Done():
		return
	case <-time.After(at):
	}
	br := &perf.BrokerRestart{AtSeconds: time.Since(start).Seconds()}
	r, ok := dep.(perf.BackendRestarter)
	if !ok {
		br.Error = fmt.Sprintf("the %T deployment cannot restart a backend", dep)
	} else if down, err := r.RestartBackend(ctx, d.Broker); err != nil {
		br.Error = err.Error()
	} else {
		br.DownSeconds = down.Seconds()
	}
	t.Logf("delivery: broker %s restarted %.1f s into the main load, down %.2f s %s", d.Broker, br.AtSeconds, br.DownSeconds, br.Error)
	dr.BrokerRestart = br
}

func (d *deliveryRun) Finish(s perf.Session, runErr error) {
	r := s.Report()
	r.Validity = report.PhaseValidity(namedResults(r.Loads, ""))
	addRunError(r, "delivery", runErr)
	if r.Delivery != nil && r.Delivery.BrokerRestart != nil && r.Delivery.BrokerRestart.Error != "" {
		r.InfraErrors = append(r.InfraErrors, "broker restart: "+r.Delivery.BrokerRestart.Error)
	}
	finishCounted(r, slices.ContainsFunc(r.Loads, func(l perf.NamedLoad) bool { return l.Name == mainPublish }), "the main load did not complete")
}

// subscriberClient reads and resets the subscriber app's counts.
type subscriberClient struct{ url string }

// subscriberTimeout bounds one call to the subscriber.
const subscriberTimeout = 10 * time.Second

func (c subscriberClient) reset(ctx context.Context, run string) error {
	return c.post(ctx, "/reset?run="+url.QueryEscape(run), "reset", subscriberTimeout)
}

// post POSTs to the subscriber's path, named what in errors, within timeout, and wants a 204.
func (c subscriberClient) post(ctx context.Context, path, what string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("subscriber %s: %s: %w", c.url, what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("subscriber %s: %s: %s: %s", c.url, what, resp.Status, strings.TrimSpace(string(b)))
	}
	return nil
}

func (c subscriberClient) stats(ctx context.Context, expected int64, timeline bool) (perf.SubscriberStats, error) {
	ctx, cancel := context.WithTimeout(ctx, subscriberTimeout)
	defer cancel()
	url := fmt.Sprintf("%s/stats?expected=%d", c.url, expected)
	if timeline {
		url += "&timeline=1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return perf.SubscriberStats{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return perf.SubscriberStats{}, fmt.Errorf("subscriber %s: stats: %w", c.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return perf.SubscriberStats{}, fmt.Errorf("subscriber %s: stats: %s: %s", c.url, resp.Status, strings.TrimSpace(string(b)))
	}
	var st perf.SubscriberStats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return perf.SubscriberStats{}, fmt.Errorf("subscriber %s: stats: decode: %w", c.url, err)
	}
	return st, nil
}

// drainPoll is how often a drain reads the subscriber's counts.
const drainPoll = 200 * time.Millisecond

// drain reads the counts of sequence numbers 0 .. expected-1 every drainPoll until want of
// them (the accepted publishes) have arrived and the subscriber has answered every delivery
// call, or window has passed, and returns the last counts and the time waited. Messages that
// arrive after it are not counted. Waiting for the answers keeps the teardown from stopping
// daprd in the middle of a delivery: a slow consumer counts a call's messages on arrival and
// answers after its delay, and daprd, stopped while it waits for that answer, can exceed its
// graceful shutdown timeout and exit 1.
func (c subscriberClient) drain(ctx context.Context, expected, want int64, window time.Duration) (perf.SubscriberStats, time.Duration, error) {
	start := time.Now()
	for {
		st, err := c.stats(ctx, expected, false)
		if err != nil {
			return st, time.Since(start), err
		}
		if (st.Received >= want && st.Answered >= st.HandlerCalls) || time.Since(start) >= window {
			waited := time.Since(start)
			// The last counts again, with the timeline: what arrived since is in both.
			if last, err := c.stats(ctx, expected, true); err == nil {
				st = last
			}
			return st, waited, nil
		}
		select {
		case <-ctx.Done():
			return st, time.Since(start), ctx.Err()
		case <-time.After(drainPoll):
		}
	}
}
