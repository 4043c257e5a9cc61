package perf

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The load of one scenario can come from several testers, as Dapr's k6 tests spread theirs
// over runner pods (parallelism 3 in actor_double_activation, 5 in actor_id_scale): each
// tester, with its own daprd, runs its share of the rate and connections from one shared
// start, and the result merges their histograms exactly (MergeResults).

// EnvTesterReplicas sets how many testers share each load (Env.TesterReplicas).
const EnvTesterReplicas = "DAPR_PERF_TESTER_REPLICAS"

// EnvHostReplicas sets the number of actor host replicas of the scenarios that run several on
// one placement (actor_timer, actor_id_scale; read by LoadEnv, applied where the scenario is
// built), for a machine that cannot hold Dapr's.
const EnvHostReplicas = "DAPR_PERF_HOST_REPLICAS"

// MaxTesterReplicas bounds the testers of one scenario.
const MaxTesterReplicas = 16

// StartLead is how far ahead of the calls the runner sets the shared StartAt of a split load:
// long enough for every tester to receive its request (on loopback about a millisecond; a
// port-forward on kubernetes adds a round trip or two), short enough not to shift the load
// against what a plan does around it (a fault window opened just before the load). A tester
// that gets its request late starts at once, and StartSpreadSeconds shows it.
const StartLead = 250 * time.Millisecond

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

// NewTesterGroup returns the client of the testers named in names (Scenario.TesterNames) in
// dep: the first one's, with the others as its Replicas. Errors: an unknown endpoint or token.
func NewTesterGroup(dep Deployment, names []string) (TesterClient, error) {
	if len(names) == 0 {
		return TesterClient{}, errors.New("perf: no tester named")
	}
	first, err := NewTesterClient(dep, names[0])
	if err != nil {
		return TesterClient{}, err
	}
	for _, name := range names[1:] {
		c, err := NewTesterClient(dep, name)
		if err != nil {
			return TesterClient{}, err
		}
		first.Replicas = append(first.Replicas, c)
	}
	return first, nil
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

// runSplit is RunLoad for a tester with replicas: p split over all of them (Split), each
// share aimed at its tester's own daprd where p goes through the first one's (retarget), one
// shared StartAt StartLead from now, the calls made at once, and their results merged (MergeResults).
// Errors: the split, any tester's error (all of them, joined), or the merge.
func runSplit(ctx context.Context, tester TesterClient, p Params) (Result, error) {
	first := tester
	first.Replicas = nil
	all := append([]TesterClient{first}, tester.Replicas...)
	shares, err := p.Split(len(all))
	if err != nil {
		return Result{}, err
	}
	for i := range shares {
		if shares[i].Target, err = retarget(p.Target, first, all[i]); err != nil {
			return Result{}, err
		}
	}
	start := time.Now().Add(StartLead)
	results := make([]Result, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, t := range all {
		shares[i].StartAt = start
		wg.Go(func() { results[i], errs[i] = RunLoad(ctx, t, shares[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	return MergeResults(p, results)
}

// retarget is target for tester to, when target was set for tester from: an address of from's
// own daprd (its HTTP base URL with any path, or its gRPC host:port) becomes the same address
// of to's daprd; any other target (an app, a store) is the same for every tester. Error: the
// target is from's daprd and to has none.
func retarget(target string, from, to TesterClient) (string, error) {
	switch {
	case from.SidecarHTTP != "" && (target == from.SidecarHTTP || strings.HasPrefix(target, from.SidecarHTTP+"/")):
		if to.SidecarHTTP == "" {
			return "", fmt.Errorf("perf: tester %s has no daprd for the load aimed at %s", to.URL, target)
		}
		return to.SidecarHTTP + strings.TrimPrefix(target, from.SidecarHTTP), nil
	case from.SidecarGRPC != "" && target == from.SidecarGRPC:
		if to.SidecarGRPC == "" {
			return "", fmt.Errorf("perf: tester %s has no daprd for the load aimed at %s", to.URL, target)
		}
		return to.SidecarGRPC, nil
	}
	return target, nil
}
