package perf

import (
	"fmt"
	"strconv"
	"time"
)

// The load of one scenario can come from several testers, as Dapr's k6 tests spread theirs
// over runner pods (parallelism 3 in actor_double_activation, 5 in actor_id_scale): each
// tester, with its own daprd, runs its share of the rate and connections from one shared
// start, and the result merges their histograms exactly (testers.MergeResults, in package
// perf/testers, which runs the shares).

// EnvTesterReplicas sets how many testers share each load (Env.TesterReplicas).
const EnvTesterReplicas = "DAPR_PERF_TESTER_REPLICAS"

// EnvHostReplicas sets the number of actor host replicas of the scenarios that run several on
// one placement (actor_timer, actor_id_scale; read by LoadEnv, applied where the scenario is
// built), for a machine that cannot hold Dapr's.
const EnvHostReplicas = "DAPR_PERF_HOST_REPLICAS"

// MaxTesterReplicas bounds the testers of one scenario.
const MaxTesterReplicas = 16

// MaxStartLead is the furthest ahead of its clock a tester accepts a StartAt.
const MaxStartLead = time.Minute

// TesterReplicasFromEnv is the number of testers of sc: DAPR_PERF_TESTER_REPLICAS when set,
// else sc.TesterReplicas, else 1.
func (sc Scenario) TesterReplicasFromEnv(env Env) int {
	switch {
	case env.TesterReplicas != nil:
		return *env.TesterReplicas
	case sc.TesterReplicas > 0:
		return sc.TesterReplicas
	}
	return 1
}

// TesterNames are the app names of sc's testers: sc.Tester, then sc.Tester-2 up to
// sc.Tester-N for N = sc.TesterReplicas.
func (sc Scenario) TesterNames() []string {
	names := []string{sc.Tester}
	for i := 2; i <= sc.TesterReplicas; i++ {
		names = append(names, sc.Tester+"-"+strconv.Itoa(i))
	}
	return names
}

// WithTesters returns sc with n testers: TesterReplicas n, and the tester app copied n-1 times
// under TesterNames, each copy with its own sidecar (Dapr's k6 runner pods each have their
// daprd). Errors: n out of [1, MaxTesterReplicas], no app named sc.Tester, or a copy's name
// already taken by another app.
func (sc Scenario) WithTesters(n int) (Scenario, error) {
	if n < 1 || n > MaxTesterReplicas {
		return sc, fmt.Errorf("perf: %s = %d: must be from 1 to %d", EnvTesterReplicas, n, MaxTesterReplicas)
	}
	var tester *App
	for i := range sc.Apps {
		if sc.Apps[i].Name == sc.Tester {
			tester = &sc.Apps[i]
		}
	}
	if tester == nil {
		return sc, fmt.Errorf("perf: scenario %s: no app named %q (its Tester)", sc.Test, sc.Tester)
	}
	out := sc
	out.TesterReplicas = n
	out.Apps = append([]App(nil), sc.Apps...)
	for _, name := range out.TesterNames()[1:] {
		for _, a := range sc.Apps {
			if a.Name == name {
				return sc, fmt.Errorf("perf: scenario %s: tester replica %q: an app of that name exists", sc.Test, name)
			}
		}
		c := *tester
		c.Name = name
		if tester.Sidecar != nil {
			side := *tester.Sidecar
			c.Sidecar = &side
		}
		out.Apps = append(out.Apps, c)
	}
	return out, nil
}

// Split divides p among n testers, as k6 divides a test over execution segments: QPS and
// connections (or the executor's counts, driver.Executor.Share) are split evenly, the first
// ones taking the remainder, so the shares add up to p exactly; everything else is p's own.
// Errors: n < 1, or a share left without a connection or a request per second.
func (p Params) Split(n int) ([]Params, error) {
	if n < 1 {
		return nil, fmt.Errorf("perf: split over %d testers: must be at least 1", n)
	}
	if n == 1 {
		return []Params{p}, nil
	}
	part := func(x, i int) int {
		s := x / n
		if i < x%n {
			s++
		}
		return s
	}
	if !p.HasExecutor() {
		if p.Connections < n {
			return nil, fmt.Errorf("perf: connections = %d cannot be split over %d testers (%s): each needs at least one", p.Connections, n, EnvTesterReplicas)
		}
		if !p.MaxRate && p.QPS < n {
			return nil, fmt.Errorf("perf: qps = %d cannot be split over %d testers (%s): each needs at least 1 request/s", p.QPS, n, EnvTesterReplicas)
		}
	}
	out := make([]Params, n)
	for i := range out {
		s := p
		s.Percentiles = append([]float64(nil), p.Percentiles...)
		if p.HasExecutor() {
			ex, err := p.Executor.Share(i, n)
			if err != nil {
				return nil, fmt.Errorf("perf: %w (%s)", err, EnvTesterReplicas)
			}
			s.Executor = ex
		} else {
			s.Connections = part(p.Connections, i)
			if !p.MaxRate {
				s.QPS = part(p.QPS, i)
			}
		}
		out[i] = s
	}
	return out, nil
}
