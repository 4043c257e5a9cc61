package plan

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// StagePlan runs a scenario's Main route as a sequence of fixed-rate loads, one per stage,
// each recorded like any phase (HDR service and response time, schedule, resources) and stored
// in Report.Loads under the stage's name, with its own figures (Figures.Phases, one per stage)
// and its own gate figure StageMeanFigure(name): the stage's mean service time in seconds. One
// warmup (Scenario.WarmupOptions, through the same route) comes first, its result discarded.
// There is no baseline phase and so no overhead: it is the shape of Dapr's k6 stage tests
// (pubsub_publish_http), whose bound is each stage's mean.
//
// Connections come from Scenario.MainOptions (DAPR_PERF_CONNECTIONS), capped at a stage's
// rate so that each connection sends at least one request a second. Env overrides: with
// DAPR_TEST_DURATION set, a stage lasts at most that long (fewer samples), which keeps a smoke
// run short; with DAPR_PERF_QPS set, no stage is faster than that rate. A stage's payload is its
// own: DAPR_PAYLOAD_SIZE and DAPR_PAYLOAD are refused, naming them.
type StagePlan struct {
	// Stages run in order; at least one, names distinct.
	Stages []perf.Stage
}

// stageRun is one run of a StagePlan: each stage's load after the overrides, and the stages' results as they come.
type stageRun struct {
	StagePlan

	loads []perf.Params // each stage's load, set by configure
	namedLoads
}

// Kind is "stages".
func (*StagePlan) Kind() string { return perf.KindStages }

func (sp *StagePlan) Configure(sc perf.Scenario, cfg *perf.RunConfig) (perf.PlanRun, error) {
	r := &stageRun{StagePlan: *sp}
	var errs problems
	add := errs.add
	env := cfg.Env
	var err error
	if env.PayloadSize != nil || env.Payload != nil {
		add(fmt.Errorf("stage plan: %s and %s are not applied: each stage has its own payload size (unset them)", perf.EnvPayloadSize, perf.EnvPayload))
	}
	cfg.Main, err = cfg.Env.MainParams(append([]perf.Option{perf.WithQPS(1)}, sc.MainOptions...)...)
	add(err)
	cfg.Warmup, err = cfg.Env.WarmupParams(sc.WarmupOptions...)
	add(err)
	if sc.Tester == "" || sc.Main.To == "" {
		add(fmt.Errorf("stage plan: Tester and Main.To must name apps (got %q, %q)", sc.Tester, sc.Main.To))
	}
	validateNamed("stage plan: Stages", "stage", sp.Stages, func(st perf.Stage) string { return st.Name }, add)
	for i, st := range sp.Stages {
		if !checkFields("stage plan: Stages", i, st.Name, add,
			fieldCheck{"QPS", st.QPS, st.QPS >= 1 && st.QPS <= perf.MaxQPS, fmt.Sprintf("from 1 to %d requests/s", perf.MaxQPS)},
			fieldCheck{"Samples", st.Samples, st.Samples >= 1, "at least 1 request"},
			fieldCheck{"PayloadBytes", st.PayloadBytes, st.PayloadBytes >= 0 && st.PayloadBytes <= perf.MaxPayloadBytes, fmt.Sprintf("from 0 to %d bytes", perf.MaxPayloadBytes)},
		) {
			continue
		}
		p := cfg.Main
		p.QPS = st.QPS
		if env.QPS != nil {
			p.QPS = min(p.QPS, *env.QPS)
		}
		p.Duration = stageDuration(st.Samples, p.QPS)
		if env.Duration != nil {
			p.Duration = max(min(p.Duration, *env.Duration), perf.MinDuration)
		}
		p.Connections = min(cfg.Main.Connections, p.QPS)
		p.PayloadBytes = st.PayloadBytes
		r.loads = append(r.loads, p)
	}
	return r, errors.Join(errs...)
}

// stageDuration is how long samples requests at qps take, rounded up to whole milliseconds and
// at least MinDuration.
func stageDuration(samples, qps int) time.Duration {
	d := time.Duration(math.Ceil(float64(samples)/float64(qps)*1e3)) * time.Millisecond
	return max(d, perf.MinDuration)
}

// Steps are the warmup, then each stage.
func (sp *stageRun) Steps(_ perf.Scenario, cfg perf.RunConfig) []perf.Step {
	out := []perf.Step{{Name: fmt.Sprintf("warmup, %d QPS x %v", cfg.Warmup.QPS, cfg.Warmup.Duration), Duration: cfg.Warmup.Duration}}
	for i, p := range sp.loads {
		out = append(out, perf.Step{Name: fmt.Sprintf("stage %s: %d QPS x %v, %d-byte payload, %d connections", sp.Stages[i].Name, p.QPS, p.Duration, p.PayloadBytes, p.Connections), Duration: p.Duration})
	}
	return out
}

func (sp *stageRun) Run(s perf.Session) error {
	sc := s.Scenario()
	dep, tester, err := deployAndWarm(s, sp.loads...)
	if err != nil {
		return err
	}
	sp.namedLoads = namedLoads{prefix: "stage "}
	for i, p := range sp.loads {
		name := sp.Stages[i].Name
		lp, err := routed(dep, sc, sc.Main, p)
		if err != nil {
			return fmt.Errorf("stage %s: %w", name, err)
		}
		phase := perf.Step{Name: fmt.Sprintf("stage %d/%d %s: %d QPS x %v, %d-byte payload to %s", i+1, len(sp.loads), name, lp.QPS, lp.Duration, lp.PayloadBytes, lp.Target), Duration: lp.Duration}
		if _, err := sp.measureLoad(s, dep, tester, name, phase, lp, sc.Roles()); err != nil {
			return err
		}
	}
	return nil
}

// Finish warns of coordinated omission in any stage, then takes the validity of every stage,
// the resources over all stages, and how complete the run is.
func (sp *stageRun) Finish(s perf.Session, runErr error) {
	r := s.Report()
	for i := range r.Loads {
		if ratio, flagged := r.Loads[i].CoordinatedOmission(); flagged {
			r.Warnings = append(r.Warnings, fmt.Sprintf("stage %s: coordinated omission: response-time p99 is %.1fx the service-time p99 (flagged above %gx)", r.Loads[i].Name, ratio, perf.CoordinatedOmissionFactor))
		}
	}
	// No memory-growth verdict: a stage is too short or too sparse (down to 1 request/s) for an
	// RSS slope per 1,000 requests to mean anything (30 requests gave 21 MiB/1000).
	sp.finish(s, len(sp.loads), "stage", "memory growth is not classified by the stage plan: its stages are too short or too sparse for an RSS slope per request (peak RSS and mean CPU are over all stages)", runErr)
}
