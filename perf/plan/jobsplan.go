package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// JobTriggerPlan measures Dapr's job triggering end to end: the job app (Kind JobApp) schedules
// Jobs one-shot jobs through its own daprd (POST /v1.0-alpha1/jobs/{name}, dueTime DueIn, from
// Connections requests in flight, as fast as daprd answers), the scheduler triggers each once
// it is due, and daprd calls the app back (POST /job/{name}), which counts every trigger per
// job name. In order:
//
//  1. the app's counts are reset, resources are sampled from here to the end;
//  2. the scheduling: POST /schedule to the app, which answers once every job was sent; with
//     Fault set, the scheduler is restarted or killed Fault.After into the scheduling;
//  3. the wait: the app's counts are read every 200 ms until every accepted job fired or
//     Window has passed since the scheduling ended, then for Settle more so that a second
//     trigger of a job is seen too; the report's Jobs: scheduled, fired, never fired, fired
//     twice, unexpected, the trigger lag (receipt minus due time) and the trigger rate.
//
// Load scaling: Jobs is for Dapr's load (1000 QPS x 1 min, Scenario.MainOptions); under
// DAPR_PERF_QPS or DAPR_TEST_DURATION the count is Jobs x (QPS / 1000) x (duration / 1 min),
// at least MinJobs, and the bound of "jobs.triggerRate" scales by the same factor; the report
// states the factor (JobsReport.LoadFactor). Under DAPR_PERF_OVERHEAD_GATE=warn the rate bound
// is warn-only: Dapr's 12,200/s comes from 8-vCPU nodes, as its overhead bounds do.
//
// Gates (by Threshold.Figure): "jobs.neverFired", "jobs.firedTwice", "jobs.unexpected" and
// "jobs.scheduleErrors" (counts), "jobs.allFiredSeconds" (seconds from the end of the
// scheduling until the last job's first trigger; the window when some never fired),
// "jobs.triggerRate" (jobs/s, Dapr's definition: fired / that time), "jobs.triggerThroughput"
// (jobs/s: fired / (last first trigger - first trigger)), "jobs.lag.p50", "jobs.lag.p90",
// "jobs.lag.p99" (seconds), and "errors" (= scheduleErrors) and "restarts".
//
// The plan reads the app's own port (perf.AppControl: on kubernetes through a port-forward).
type JobTriggerPlan struct {
	// App is the job app's name; Scenario.Main.To must name it too.
	App string
	// Jobs is how many jobs at Dapr's load (default 20,000); DueIn each one's due time after
	// its schedule request (default 1 s); Connections the schedule requests in flight (16).
	Jobs        int
	DueIn       time.Duration
	Connections int
	// Window bounds the wait for every job to fire, from the end of the scheduling (default
	// 120 s, Dapr's); Settle is the wait after the last one for second triggers (default 3 s).
	Window, Settle time.Duration
	// ScheduleTimeout bounds the scheduling (default 5 min): with the scheduler down, daprd
	// may hold each schedule request until the app's 10 s per-request timeout.
	ScheduleTimeout time.Duration
	// Fault, when set, is done to the scheduler during the scheduling (the must-show tests).
	Fault *perf.JobFault
}

// The JobFault kinds.
const (
	JobFaultRestart = "restart"
	JobFaultKill    = "kill"
)

// Kind is "jobs.trigger".
func (*JobTriggerPlan) Kind() string { return perf.KindJobs }

// Defaults of JobTriggerPlan (Dapr's jobs perf test and the issue: 20,000 jobs due in 1 s, all
// triggered within 120 s).
const (
	defaultJobs       = 20_000
	defaultJobsDueIn  = time.Second
	defaultJobsConns  = 16
	defaultJobsWindow = 120 * time.Second
	defaultJobsSettle = 3 * time.Second
	// defaultScheduleTimeout bounds the scheduling of the default 20,000 jobs (about 20 s here).
	defaultScheduleTimeout = 5 * time.Minute
	jobsPoll               = 200 * time.Millisecond
	jobsAppCallTimeout     = 10 * time.Second
)

// daprJobsQPS and daprJobsDuration are the load Jobs is stated for: 1000 QPS x 1 min (Dapr's jobs perf test).
const (
	daprJobsQPS      = 1000
	daprJobsDuration = time.Minute
)

func (j *JobTriggerPlan) withDefaults() JobTriggerPlan {
	c := *j
	if c.Jobs == 0 {
		c.Jobs = defaultJobs
	}
	if c.DueIn == 0 {
		c.DueIn = defaultJobsDueIn
	}
	if c.Connections == 0 {
		c.Connections = defaultJobsConns
	}
	if c.Window == 0 {
		c.Window = defaultJobsWindow
	}
	if c.Settle == 0 {
		c.Settle = defaultJobsSettle
	}
	if c.ScheduleTimeout == 0 {
		c.ScheduleTimeout = defaultScheduleTimeout
	}
	return c
}

// loadFactor is (QPS / 1000) x (duration / 1 min) of the main Params, at most 1.
func loadFactor(p perf.Params) float64 {
	f := float64(p.QPS) / daprJobsQPS * p.Duration.Seconds() / daprJobsDuration.Seconds()
	if p.QPS == 0 || f > 1 {
		return 1
	}
	return f
}

// jobCount is Jobs scaled by f, at least MinJobs (or Jobs when that is fewer).
func jobCount(jobs int, f float64) int {
	return max(min(jobs, perf.MinJobs), int(math.Round(float64(jobs)*f)))
}

// Configure validates the plan and scales the trigger-rate bound with the load; the plan keeps
// no state of its own, so it is its own run.
func (j *JobTriggerPlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	var errs problems
	add := errs.add
	loadParams(sc, cfg, add)
	c := j.withDefaults()
	if j.App == "" || sc.Main.To != j.App {
		add(fmt.Errorf("jobs plan: App %q must name the app Main.To names (%q)", j.App, sc.Main.To))
	}
	found := false
	for _, a := range sc.Apps {
		if a.Name != j.App {
			continue
		}
		found = true
		if a.Kind != perf.JobApp {
			add(fmt.Errorf("jobs plan: app %s: Kind %q, want %q", a.Name, a.Kind, perf.JobApp))
		}
		if a.Sidecar == nil || !a.Sidecar.Scheduler {
			add(fmt.Errorf("jobs plan: app %s: needs a sidecar with Scheduler true (its daprd schedules the jobs)", a.Name))
		}
	}
	if !found {
		add(fmt.Errorf("jobs plan: no app named %q (App)", j.App))
	}
	switch {
	case c.Jobs < 1 || c.Jobs > 1_000_000:
		add(fmt.Errorf("jobs plan: Jobs %d: must be 1 .. 1000000", c.Jobs))
	case c.DueIn < time.Second:
		add(fmt.Errorf("jobs plan: DueIn %v: must be at least 1s", c.DueIn))
	case c.Connections < 1 || c.Connections > 256:
		add(fmt.Errorf("jobs plan: Connections %d: must be 1 .. 256", c.Connections))
	case c.Window < 0 || c.Settle < 0 || c.ScheduleTimeout < 0:
		add(fmt.Errorf("jobs plan: Window %v, Settle %v and ScheduleTimeout %v must be >= 0", c.Window, c.Settle, c.ScheduleTimeout))
	}
	if f := j.Fault; f != nil && ((f.Kind != JobFaultRestart && f.Kind != JobFaultKill) || f.After <= 0) {
		add(fmt.Errorf("jobs plan: Fault %+v: Kind must be %q or %q and After > 0", *f, JobFaultRestart, JobFaultKill))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// The rate bound scales with the load; it is machine-bound, so warn-only under warn mode
	// like every ".triggerRate" bound (ThresholdsFromEnv).
	factor := loadFactor(cfg.Main)
	for i := range cfg.Thresholds {
		th := &cfg.Thresholds[i]
		if th.Figure != "jobs.triggerRate" {
			continue
		}
		if factor < 1 && !strings.HasPrefix(th.Source, "DAPR_") {
			th.Limit *= factor
			th.Source += fmt.Sprintf("; scaled by the load factor %.4g (QPS x duration against Dapr's 1000 QPS x 1 min)", factor)
		}
	}
	return j, nil
}

func (j *JobTriggerPlan) Steps(_ perf.Scenario, cfg perf.RunConfig) []perf.Step {
	c := j.withDefaults()
	n := jobCount(c.Jobs, loadFactor(cfg.Main))
	return []perf.Step{
		{Name: fmt.Sprintf("schedule %d jobs due in %v through the job app's daprd, %d in flight", n, c.DueIn, c.Connections), Duration: time.Duration(n) * time.Millisecond},
		{Name: fmt.Sprintf("wait: up to %v for every job to fire, then %v for second triggers", c.Window, c.Settle), Duration: c.DueIn + c.Settle},
	}
}

// jobScheduleResult is the job app's answer to POST /schedule.
type jobScheduleResult struct {
	Scheduled     int64   `json:"scheduled"`
	Errors        int64   `json:"errors"`
	FirstError    string  `json:"firstError,omitempty"`
	Seconds       float64 `json:"seconds"`
	RatePerSecond float64 `json:"ratePerSecond"`
}

// jobApp calls the job app's own HTTP port.
type jobApp struct{ url string }

func (a jobApp) call(ctx context.Context, method, path string, body any, timeout time.Duration, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.url+path, rd)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("job app %s: %s %s: %w", a.url, method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("job app %s: %s %s: %s: %s", a.url, method, path, resp.Status, bytes.TrimSpace(msg))
	}
	if out != nil {
		if err := json.Unmarshal(msg, out); err != nil {
			return fmt.Errorf("job app %s: %s %s: decode: %w", a.url, method, path, err)
		}
	}
	return nil
}

func (a jobApp) stats(ctx context.Context) (perf.JobAppStats, error) {
	var st perf.JobAppStats
	err := a.call(ctx, http.MethodGet, "/stats", nil, jobsAppCallTimeout, &st)
	return st, err
}

// schedulerKiller is a Deployment that can SIGKILL one of its processes (local.Deployment).
type schedulerKiller interface {
	Kill(process string) error
}

func (j *JobTriggerPlan) Run(s perf.Session) error {
	t, sc, cfg, rep := s.T(), s.Scenario(), s.Config(), s.Report()
	c := j.withDefaults()
	dep := s.Deploy(t, "", sc.Apps)
	base, err := dep.Endpoint(j.App, perf.AppControl)
	if err != nil {
		return err
	}
	app := jobApp{url: base}
	ctx := t.Context()
	factor := loadFactor(cfg.Main)
	jr := &perf.JobsReport{JobsAtDaprLoad: c.Jobs, LoadFactor: factor, Jobs: jobCount(c.Jobs, factor),
		DueInSeconds: c.DueIn.Seconds(), Connections: c.Connections, WindowSeconds: c.Window.Seconds()}
	rep.Jobs = jr
	if err := app.call(ctx, http.MethodPost, "/reset", nil, jobsAppCallTimeout, nil); err != nil {
		return err
	}
	stopSampling := s.Record(dep, sc.Roles(), "jobs")
	// The sidecars' profiles (DAPR_PERF_PROFILES) over the scheduling and the triggers, whose
	// expected length is the phases' below.
	stopProfiles := s.Profile(dep, "jobs", time.Duration(jr.Jobs)*time.Millisecond+c.DueIn)
	stopRec := func() {
		stopProfiles()
		// no request count to grow per: only peak RSS and CPU
		rep.Resources = report.ResourcesWithoutGrowth([]perf.Round{{Resources: stopSampling()}})
	}

	// 2. the scheduling, with the fault beside it
	faulted := make(chan struct{})
	if j.Fault != nil {
		jr.Fault = &perf.JobFault{Kind: j.Fault.Kind, After: j.Fault.After}
		go func() {
			defer close(faulted)
			j.fault(ctx, t, dep, jr.Fault)
		}()
	} else {
		close(faulted)
	}
	done := s.Phase(fmt.Sprintf("schedule %d jobs due in %v, %d in flight", jr.Jobs, c.DueIn, c.Connections), time.Duration(jr.Jobs)*time.Millisecond)
	var sr jobScheduleResult
	err = app.call(ctx, http.MethodPost, "/schedule", map[string]any{
		"prefix": "job-" + rep.RunID, "count": jr.Jobs, "dueIn": c.DueIn, "connections": c.Connections, "timeout": c.ScheduleTimeout,
	}, c.ScheduleTimeout+time.Minute, &sr)
	scheduledAt := time.Now()
	done()
	<-faulted
	if err != nil {
		stopRec()
		return fmt.Errorf("schedule: %w", err)
	}
	jr.Scheduled, jr.ScheduleErrors, jr.ScheduleError = sr.Scheduled, sr.Errors, sr.FirstError
	jr.ScheduleSeconds, jr.ScheduleRate = sr.Seconds, sr.RatePerSecond
	s.Checkpoint("schedule")

	// 3. the wait for every trigger, then for second ones
	done = s.Phase(fmt.Sprintf("wait: up to %v for %d jobs to fire", c.Window, jr.Scheduled), c.DueIn)
	var st perf.JobAppStats
	for {
		if st, err = app.stats(ctx); err != nil {
			break
		}
		if st.Fired >= st.Scheduled || time.Since(scheduledAt) >= c.Window {
			break
		}
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(jobsPoll):
		}
		if err != nil {
			break
		}
	}
	done()
	if err == nil && c.Settle > 0 {
		done = s.Phase(fmt.Sprintf("settle: %v for second triggers", c.Settle), c.Settle)
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(c.Settle):
		}
		if err == nil {
			st, err = app.stats(ctx)
		}
		done()
	}
	stopRec()
	if err != nil {
		return fmt.Errorf("wait for triggers: %w", err)
	}
	jr.Fill(st, scheduledAt)
	s.Checkpoint("triggers")
	return nil
}

// fault does f to the scheduler f.After from now, recording it in f.
func (j *JobTriggerPlan) fault(ctx context.Context, t interface{ Logf(string, ...any) }, dep perf.Deployment, f *perf.JobFault) {
	start := time.Now()
	select {
	case <-ctx.Done():
		return
	case <-time.After(f.After):
	}
	f.AtSeconds = time.Since(start).Seconds()
	switch f.Kind {
	case JobFaultRestart:
		r, ok := dep.(perf.BackendRestarter)
		if !ok {
			f.Error = fmt.Sprintf("the %T deployment cannot restart a backend", dep)
		} else if down, err := r.RestartBackend(ctx, perf.ControlScheduler); err != nil {
			f.Error = err.Error()
		} else {
			f.DownSeconds = down.Seconds()
		}
	case JobFaultKill:
		k, ok := dep.(schedulerKiller)
		if !ok {
			f.Error = fmt.Sprintf("the %T deployment cannot kill a process", dep)
		} else if err := k.Kill(string(perf.ControlScheduler)); err != nil {
			f.Error = err.Error()
		}
	}
	t.Logf("jobs: scheduler %s %.2f s into the scheduling (down %.2f s) %s", f.Kind, f.AtSeconds, f.DownSeconds, f.Error)
}

func (j *JobTriggerPlan) Finish(s perf.Session, runErr error) {
	r := s.Report()
	r.Validity = perf.Validity{Valid: true}
	addRunError(r, "jobs", runErr)
	if jr := r.Jobs; jr != nil && jr.Fault != nil && jr.Fault.Error != "" {
		r.InfraErrors = append(r.InfraErrors, "scheduler "+jr.Fault.Kind+": "+jr.Fault.Error)
	}
	finishCounted(r, r.Jobs != nil && r.Jobs.ScheduleSeconds != 0, "the scheduling did not complete")
}
