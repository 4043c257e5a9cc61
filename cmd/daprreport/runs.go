package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// latencyKind says what one measured request of ours is in k6's vocabulary.
type latencyKind int

const (
	// latencyBoth: one request is one k6 iteration of one HTTP request, so its time is both
	// http_req_duration and iteration_duration.
	latencyBoth latencyKind = iota
	// latencyRequest: the request is the iteration's HTTP request only; Dapr's iteration also
	// waits for something we do not time as part of it (the subscribe tests' wait for delivery).
	latencyRequest
	// latencyIteration: the request is a whole iteration of several HTTP requests (the bulk
	// publish test's "normal" run of N single publishes), whose single requests we do not time.
	latencyIteration
)

// sample is the measurements one Dapr run's summary is made of.
type sample struct {
	// Results are the loads measured, in order: one result, the rounds of one phase, or several
	// loads that Dapr runs as one k6 run.
	Results []perf.Result
	// Rounds is set when Results are the rounds of one phase: its figures (the median over
	// rounds) are then the summary's percentiles, mean and rate.
	Rounds *perf.PhaseFigures
	// P95 is the rounds' p95 in seconds (Figures.Gates "latency.p95", the median over rounds
	// as well), for the main phase only; 0 when unknown.
	P95 float64
	// Latency says whether a request is k6's HTTP request, its iteration, or both.
	Latency latencyKind
}

// daprRun is one run of one of Dapr's tests that a result gives: a test function, or one
// subtest of it.
type daprRun struct {
	Test daprTest
	// Sub is the subtest's name as Dapr passes it to t.Run ("" for the function itself);
	// SubOrder its place among the function's subtests.
	Sub      string
	SubOrder int
	// Sample is nil when Dapr's test logs no summary.
	Sample *sample
	// Source is the result it comes from, and Path its file.
	Source *perf.Report
	Path   string
}

// runsFunc turns a result into Dapr runs of one test, or says why it cannot.
type runsFunc func(r *perf.Report) ([]daprRun, error)

// mainPhase is the main phase of the rounds, as the function itself (sub "") or one subtest.
func mainPhase(sub string, order int) runsFunc {
	return func(r *perf.Report) ([]daprRun, error) {
		s, err := roundsSample(r, perf.PhaseMain, func(rd perf.Round) perf.Result { return rd.Main })
		if err != nil {
			return nil, err
		}
		return []daprRun{{Sub: sub, SubOrder: order, Sample: s}}, nil
	}
}

// normalAndBulk is Dapr's pair of bulk publish runs, prefix + "_normal" from our baseline (each
// request the singles of one bulk in turn: an iteration) then prefix + "_bulk" from our main phase.
func normalAndBulk(prefix string, order int) runsFunc {
	return func(r *perf.Report) ([]daprRun, error) {
		normal, err := roundsSample(r, perf.PhaseBaseline, func(rd perf.Round) perf.Result { return rd.Baseline })
		if err != nil {
			return nil, err
		}
		normal.Latency = latencyIteration
		bulk, err := roundsSample(r, perf.PhaseMain, func(rd perf.Round) perf.Result { return rd.Main })
		if err != nil {
			return nil, err
		}
		return []daprRun{
			{Sub: prefix + "_normal", SubOrder: order, Sample: normal},
			{Sub: prefix + "_bulk", SubOrder: order + 1, Sample: bulk},
		}, nil
	}
}

// namedLoad is the load named load, as the function itself or one subtest.
func namedLoad(sub string, order int, load string, kind latencyKind) runsFunc {
	return func(r *perf.Report) ([]daprRun, error) {
		for _, l := range r.Loads {
			if l.Name == load {
				return []daprRun{{Sub: sub, SubOrder: order, Sample: &sample{Results: []perf.Result{l.Result}, Latency: kind}}}, nil
			}
		}
		return nil, fmt.Errorf("no load named %q (the result has %s)", load, loadNames(r))
	}
}

// pooledLoads is every load of the result as one run: Dapr's k6 script runs its scenarios (the
// double activation's two phases, the publish test's eight stages) in one k6 run, one summary.
func pooledLoads() runsFunc {
	return func(r *perf.Report) ([]daprRun, error) {
		if len(r.Loads) == 0 {
			return nil, fmt.Errorf("no loads")
		}
		s := &sample{}
		for _, l := range r.Loads {
			s.Results = append(s.Results, l.Result)
		}
		return []daprRun{{Sample: s}}, nil
	}
}

// workflowLoadName is a load of the iterations plan named after Dapr's k6 scenario,
// t_<VUs>_<iterations>, with "-<n>" when a scenario repeats.
var workflowLoadName = regexp.MustCompile(`^(t_[0-9]+_[0-9]+)(-[0-9]+)?$`)

// eachLoad is one subtest per load, named as Dapr's workflow test names it: "[" + the k6
// scenario in capitals + "]: " (workflow_test.go, testWorkflow). order places the result's
// subtests among the function's (Dapr's payload test runs its inputs in turn).
func eachLoad(order int) runsFunc {
	return func(r *perf.Report) ([]daprRun, error) {
		if len(r.Loads) == 0 {
			return nil, fmt.Errorf("no loads")
		}
		var out []daprRun
		for i, l := range r.Loads {
			m := workflowLoadName.FindStringSubmatch(l.Name)
			if m == nil {
				return nil, fmt.Errorf("load %q is not named after a k6 scenario t_<VUs>_<iterations>", l.Name)
			}
			out = append(out, daprRun{Sub: "[" + strings.ToUpper(m[1]) + "]: ", SubOrder: order*100 + i,
				Sample: &sample{Results: []perf.Result{l.Result}}})
		}
		return out, nil
	}
}

// nothingLogged is a test that logs no summary: the function itself, with its resource lines
// when it logs them.
func nothingLogged() runsFunc {
	return func(*perf.Report) ([]daprRun, error) { return []daprRun{{}}, nil }
}

// roundsSample is phase pick of every round, with the phase's figures.
func roundsSample(r *perf.Report, phase string, pick func(perf.Round) perf.Result) (*sample, error) {
	if len(r.Rounds) == 0 {
		return nil, fmt.Errorf("no rounds")
	}
	s := &sample{}
	for _, rd := range r.Rounds {
		s.Results = append(s.Results, pick(rd))
	}
	if len(r.Rounds) > 1 {
		s.Rounds = r.Figures.Phase(phase)
		if s.Rounds == nil {
			return nil, fmt.Errorf("%d rounds but no %s figures", len(r.Rounds), phase)
		}
		if phase == perf.PhaseMain {
			s.P95 = r.Figures.Gates["latency.p95"]
		}
	}
	return s, nil
}

// loadNames lists r's load names for a message.
func loadNames(r *perf.Report) string {
	if len(r.Loads) == 0 {
		return "no loads"
	}
	names := make([]string, len(r.Loads))
	for i, l := range r.Loads {
		names[i] = fmt.Sprintf("%q", l.Name)
	}
	return strings.Join(names, ", ")
}

// runsOf returns the Dapr runs r gives, each with its test and source; the reason to skip r when
// it has no Dapr twin or is left out (twinsLeftOut); err when it has one but lacks what the
// runs need.
func runsOf(r *perf.Report, path string) (runs []daprRun, skip string, err error) {
	if why, ok := twinsLeftOut[r.Test]; ok {
		return nil, why, nil
	}
	m, ok := mappingOf(r)
	if !ok {
		return nil, fmt.Sprintf("%s over %s is not one of Dapr's tests (a daprperf variant or scenario of its own)", r.Test, r.Transport), nil
	}
	runs, err = m.runs(r)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %s/%s as Dapr's %s: %w", path, r.Test, r.Transport, m.dapr.Func, err)
	}
	for i := range runs {
		runs[i].Test, runs[i].Source, runs[i].Path = m.dapr, r, path
	}
	return runs, "", nil
}
