package scenarios

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
	"github.com/daprperf/daprperf/perf/plan"
)

// Names of the workflow scenarios' app and components: Dapr's workflow perf app keeps its
// workflows in "statestore-actorstore" and state_wf's value in "statestore"
// (dapr/dapr tests/apps/perf/workflowsapp).
const (
	WorkflowHostApp     = "workflowapp"
	WorkflowActorStore  = "statestore-actorstore"
	WorkflowStateStore  = "statestore"
	workflowDaprSource  = "Dapr v1.17 perf suite (tests/perf/workflows): every k6 check 2xx (rate==1)"
	workflowSeriesInput = "100" // Dapr's input of sum_series_wf and sum_parallel_wf
)

// WorkflowAppArgs are the workflow app's flags that give it Dapr's app's own work per request
// (dapr/dapr tests/apps/perf/workflowsapp/app.py at v1.18.3, unchanged since v1.17.5): sleep
// 0.5 s between starting a workflow and waiting for it, sleep 1 s at the end of each of
// state_wf's three activities, and after completion get, terminate, purge and get the instance.
var WorkflowAppArgs = []string{"-wait-delay", "500ms", "-state-sleep", "1s", "-cleanup"}

// workflowAppWork is WorkflowAppArgs in words, as the result records it (Scenario.AppWork).
const workflowAppWork = "Dapr's workflow app's: 0.5 s between starting a workflow and waiting for it, " +
	"1 s at the end of each state activity (state_wf: 3), then get, terminate, purge and get the instance"

// Workflow names (apps/workflowapp registers Dapr's).
const (
	wfSeries   = "sum_series_wf"
	wfParallel = "sum_parallel_wf"
	wfState    = "state_wf"
	wfDelay    = "delay_wf"
)

// WorkflowBackends are the actor state stores the workflow scenarios run on
// (DAPR_PERF_WORKFLOW_BACKEND), each with the component type it uses for both of its stores.
var WorkflowBackends = map[string]perf.ComponentType{
	"in-memory":  perf.StateInMemory,
	"redis":      perf.StateRedis,
	"postgresql": perf.StatePostgreSQL, // v2, as Dapr's CI uses for workflows
}

// EnvWorkflowBackend picks the workflow scenarios' backend: postgresql (default: v2, as Dapr's
// CI), redis or in-memory. EnvWorkflowBackendName is Dapr's variable, with Dapr's meaning: a
// suffix of the workflow app's id (dapr/dapr tests/perf/workflows/workflow_test.go appends it
// to "perf-workflowsapp"; Dapr's CI sets "-actors", and its components are scoped to both
// names), not a store.
const (
	EnvWorkflowBackend     = "DAPR_PERF_WORKFLOW_BACKEND"
	EnvWorkflowBackendName = "DAPR_PERF_WORKFLOW_BACKEND_NAME"
)

// workflowAppSuffix is what an app-id suffix may hold here: lowercase letters, digits and '-',
// at most 40 characters (an app id is a DNS label on Kubernetes: 63 characters in all).
var workflowAppSuffix = regexp.MustCompile(`^[a-z0-9-]{0,40}$`)

// WorkflowBackendFromEnv returns env's DAPR_PERF_WORKFLOW_BACKEND, "postgresql" when unset; an
// unknown store is an error naming the variable and what it accepts.
func WorkflowBackendFromEnv(env perf.Env) (string, error) {
	b := perf.Val(env.WorkflowBackend)
	if b == "" {
		return "postgresql", nil
	}
	if _, ok := WorkflowBackends[b]; !ok {
		return "", fmt.Errorf("%s=%q: must be in-memory, redis or postgresql", EnvWorkflowBackend, b)
	}
	return b, nil
}

// WorkflowAppFromEnv returns the workflow app's name: WorkflowHostApp followed by Dapr's
// DAPR_PERF_WORKFLOW_BACKEND_NAME ("workflowapp-actors" for Dapr's CI's "-actors"); an error
// names the variable and what it accepts.
func WorkflowAppFromEnv(env perf.Env) (string, error) {
	suffix := perf.Val(env.WorkflowBackendName)
	if !workflowAppSuffix.MatchString(suffix) {
		return "", fmt.Errorf("%s=%q: must be an app-id suffix of lowercase letters, digits and '-', at most 40 characters, such as -actors", EnvWorkflowBackendName, suffix)
	}
	return WorkflowHostApp + suffix, nil
}

// workflowApps are the tester (no sidecar: Dapr's k6 calls the app directly) and the workflow
// app with its daprd: placement (the actor store gives it one), the scheduler (workflow timers
// and reminders in 1.17), the actor store and state_wf's store, both of backend's type.
func workflowApps(backend, app string, appArgs ...string) []perf.App {
	ct := WorkflowBackends[backend]
	return []perf.App{
		{Name: TesterApp, Kind: perf.Tester},
		{Name: app, Kind: perf.WorkflowApp, Args: appArgs, Sidecar: &perf.Sidecar{
			AppProtocol: perf.HTTP, Scheduler: true,
			Components: []perf.Component{
				{Name: WorkflowActorStore, Type: ct, Metadata: map[string]string{"actorStateStore": "true"}},
				{Name: WorkflowStateStore, Type: ct},
			},
		}},
	}
}

// WorkflowRun is one of Dapr's k6 shared-iterations scenarios (tests/perf/workflows/test.js):
// t_<VUs>_<iterations> with its maxDuration.
func WorkflowRun(vus int, iterations int64, maxDuration time.Duration) perf.IterationRun {
	return perf.IterationRun{Name: fmt.Sprintf("t_%d_%d", vus, iterations), VUs: vus, Iterations: iterations, MaxDuration: maxDuration}
}

// Dapr's k6 scenarios, with their maxDuration.
var (
	t30x300   = WorkflowRun(30, 300, 200*time.Second)
	t60x300   = WorkflowRun(60, 300, 380*time.Second)
	t90x300   = WorkflowRun(90, 300, 380*time.Second)
	t350x1400 = WorkflowRun(350, 1400, 1000*time.Second)
	t110x440  = WorkflowRun(110, 440, 450*time.Second)
	t500x1e4  = WorkflowRun(500, 10000, 3600*time.Second)
)

// named returns r under another name (a repeated scenario needs distinct names).
func named(r perf.IterationRun, name string, fresh bool) perf.IterationRun {
	r.Name, r.Fresh = name, fresh
	return r
}

// workflowScenario is one of Dapr's workflow tests on backend: the tester POSTs input to the
// workflow app's /<workflow>, which starts one instance through its daprd and answers when it
// completed, so one iteration is one whole workflow. Each deployment gets a warmup of 5 VUs
// sharing 10 iterations (5 for the delay workflow), discarded. Bounds: every request 2xx
// (Dapr's only check), every planned iteration completed, no restart. An empty backend is the
// run's (WorkflowBackendFromEnv, through Scenario.ForEnv), postgresql until the run resolves it;
// the app's name is the run's too (WorkflowAppFromEnv), WorkflowHostApp until then.
func workflowScenario(test, backend, workflow, input string, runs ...perf.IterationRun) perf.Scenario {
	if backend == "" {
		sc := workflowScenarioOn(test, "postgresql", WorkflowHostApp, workflow, input, runs...)
		sc.ForEnv = func(env perf.Env, _ perf.Scenario) (perf.Scenario, error) {
			b, err := WorkflowBackendFromEnv(env)
			if err != nil {
				return perf.Scenario{}, err
			}
			app, err := WorkflowAppFromEnv(env)
			if err != nil {
				return perf.Scenario{}, err
			}
			return workflowScenarioOn(test, b, app, workflow, input, runs...), nil
		}
		return sc
	}
	return workflowScenarioOn(test, backend, WorkflowHostApp, workflow, input, runs...)
}

// workflowScenarioOn is workflowScenario on backend with the workflow app named app.
func workflowScenarioOn(test, backend, app, workflow, input string, runs ...perf.IterationRun) perf.Scenario {
	warm := int64(10)
	if workflow == wfDelay {
		warm = 5
	}
	tag := map[string]string{"in-memory": "inmemory", "redis": "redis", "postgresql": "postgresql"}[backend]
	return perf.Scenario{
		Test:          test + "_" + tag,
		Transport:     perf.HTTP,
		Apps:          workflowApps(backend, app, WorkflowAppArgs...),
		AppWork:       workflowAppWork,
		Tester:        TesterApp,
		Main:          perf.Route{To: app, Method: workflow},
		MainOptions:   []perf.Option{perf.WithPayload(input), perf.WithPercentiles(50, 75, 90, 95, 99, 99.9)},
		WarmupOptions: []perf.Option{perf.WithPayload(input), perf.WithExecutor(driver.Executor{Kind: driver.SharedIterations, VUs: 5, Iterations: warm, Duration: 2 * time.Minute})},
		Plan:          &plan.IterationsPlan{Runs: runs},
		Thresholds: []perf.Threshold{
			{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: workflowDaprSource},
			{Figure: perf.IterationsUnfinishedFigure, Op: perf.AtMost, Limit: 0, Source: "daprperf: every planned iteration ran (k6 counts the dropped apart; Dapr's check does not see them)"},
			{Figure: "restarts", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite (tests/perf/workflows): restarts reported"},
		},
	}
}

// WorkflowWithConstantVUs is Dapr's TestWorkflowWithConstantVUs: sum_series_wf (five chained
// activities, input 100) at t_30_300 three times on one deployment, not restarted between.
func WorkflowWithConstantVUs(backend string) perf.Scenario {
	return workflowScenario("workflow_constant_vus", backend, wfSeries, workflowSeriesInput,
		named(t30x300, "t_30_300-1", false), named(t30x300, "t_30_300-2", false), named(t30x300, "t_30_300-3", false))
}

// WorkflowWithConstantIterations is Dapr's TestWorkflowWithConstantIterations: sum_series_wf at
// t_30_300, t_60_300 and t_90_300, each on a fresh deployment (Dapr restarts the app).
func WorkflowWithConstantIterations(backend string) perf.Scenario {
	return workflowScenario("workflow_constant_iterations", backend, wfSeries, workflowSeriesInput,
		named(t30x300, t30x300.Name, true), named(t60x300, t60x300.Name, true), named(t90x300, t90x300.Name, true))
}

// SeriesWorkflowWithMaxVUs is Dapr's TestSeriesWorkflowWithMaxVUs: sum_series_wf at t_350_1400.
func SeriesWorkflowWithMaxVUs(backend string) perf.Scenario {
	return workflowScenario("workflow_series_max_vus", backend, wfSeries, workflowSeriesInput, t350x1400)
}

// ParallelWorkflowWithMaxVUs is Dapr's TestParallelWorkflowWithMaxVUs: sum_parallel_wf (five
// activities fanned out, then fanned in) at t_110_440.
func ParallelWorkflowWithMaxVUs(backend string) perf.Scenario {
	return workflowScenario("workflow_parallel_max_vus", backend, wfParallel, workflowSeriesInput, t110x440)
}

// WorkflowPayloadSizes are Dapr's state_wf inputs, bytes.
var WorkflowPayloadSizes = []int{10_000, 50_000, 100_000}

// WorkflowWithPayload is one variant of Dapr's TestWorkflowWithDifferentPayloads: state_wf
// (save a value of bytes bytes, read it back and compare, delete it; one activity each) at
// t_30_300. Each size is its own scenario and result: Dapr's report averages the three under one
// name.
func WorkflowWithPayload(backend string, bytes int) perf.Scenario {
	return workflowScenario("workflow_payload_"+strconv.Itoa(bytes), backend, wfState, strconv.Itoa(bytes), t30x300)
}

// DelayWorkflowsAtScale is Dapr's TestDelayWorkflowsAtScale: delay_wf (one activity sleeping
// 5000 ms) at t_500_10000.
func DelayWorkflowsAtScale(backend string) perf.Scenario {
	return workflowScenario("workflow_delay_at_scale", backend, wfDelay, "5000", t500x1e4)
}
