package perf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// idleReadings is how many RSS readings the idle window takes, evenly spaced.
const idleReadings = 6

// RunGrowth runs a GrowthScenario: for each variant, in a subtest with its own deployment,
// a short warmup with a fixed method (so start-up allocation is not read as growth), a
// reading, K rounds of exactly M requests through the tester's sidecar each followed by a
// reading, and an idle window with RSS readings and a last full reading. A reading takes, for
// the tester's and the callee's sidecars, RSS first, then Go heap in use (pprof, when
// profiling is on) and the series of each metric family on /metrics (when the endpoint is on).
//
// Each variant is a subtest, so `-run 'TestX/a-fixed'` runs one: only the variants that ran
// are classified, checked and compared. Each sidecar is classified (ClassifyGrowth) against
// GrowthThreshold, derived from the control variant when it ran and the floor when it did not
// (the report says which). Then the detector checks itself (CheckGrowth) and the verdicts are
// compared with the scenario's expected-verdicts table (CompareGrowth): a changed verdict is
// reported, not failed. The result file is written first; then each failed check is one test
// error. The expected-verdicts table is read before any process starts: a bad one is fatal.
func RunGrowth(t *testing.T, g GrowthScenario, opts ...RunOption) *Report {
	t.Helper()
	cfg := runConfig{reportRoot: os.Getenv(EnvReportDir)}
	for _, o := range opts {
		o(&cfg)
	}
	g, err := g.withEnv()
	if err == nil && cfg.platform == nil {
		err = errors.New("perf: no platform: pass perf.WithPlatform")
	}
	if err == nil && cfg.reportRoot == "" {
		cfg.reportRoot, err = defaultReportRoot()
	}
	var table []GrowthExpectation
	tablePath := g.ExpectedVerdicts
	if err == nil && tablePath != "" {
		if !filepath.IsAbs(tablePath) {
			var root string
			if root, err = RepoRoot(); err == nil {
				tablePath = filepath.Join(root, tablePath)
			}
		}
		if err == nil {
			table, err = ReadGrowthExpectations(tablePath)
		}
	}
	if err == nil {
		// Validates the env override before any process starts; derived again below.
		_, err = GrowthThreshold("", nil)
	}
	if err == nil {
		cfg.runID, err = RunIDFromEnv()
	}
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Schema: ReportSchema, Test: g.Test, Transport: HTTP, Params: g.roundParams(), RunID: cfg.runID, Command: commandFromEnv()}
	gr := &GrowthReport{Rounds: g.Rounds, RequestsPerRound: g.RequestsPerRound, IdleSeconds: g.Idle.Seconds()}
	rf, err := createRunFile(cfg.reportRoot, rep)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run %s: result file %s", rep.RunID, rf.Path())
	defer rf.stopped(t, rep)
	for _, v := range g.Variants {
		// A variant that -run filters out never calls the function: it is not in the report.
		t.Run(v.Name, func(t *testing.T) {
			vg, env, err := runVariant(t, g, v, cfg.platform)
			if err != nil {
				t.Errorf("%s: %v", v.Name, err)
				rep.InfraErrors = append(rep.InfraErrors, v.Name+": "+err.Error())
			}
			if rep.Environment.DaprVersion == "" && env != nil {
				rep.Environment = env.Environment
			}
			gr.Variants = append(gr.Variants, vg)
		})
		rep.Growth = gr
		if err := rf.checkpoint(rep, "variant "+v.Name); err != nil {
			t.Error(err)
		}
	}
	if len(gr.Variants) == 0 {
		t.Skipf("%s: no variant ran (-run selected none of them)", g.Test)
	}
	var reference [][]GrowthPoint
	for _, v := range gr.Variants {
		if v.Control {
			for _, s := range v.Sidecars {
				reference = append(reference, s.loadPoints())
			}
		}
	}
	d, err := GrowthThreshold(g.control(), reference)
	if err != nil {
		t.Fatal(err)
	}
	gr.Threshold = &d
	gr.ThresholdKiBPer1000, gr.ThresholdSource = gr.Threshold.KiBPer1000, gr.Threshold.Text
	for i := range gr.Variants {
		for j := range gr.Variants[i].Sidecars {
			s := &gr.Variants[i].Sidecars[j]
			s.Growth = ClassifyGrowth(s.loadPoints(), s.Idle, gr.ThresholdKiBPer1000)
		}
	}
	gr.Checks = CheckGrowth(gr)
	if tablePath != "" {
		c := CompareGrowth(gr, table, rep.Environment.DaprVersion, rep.RunID)
		c.Table = g.ExpectedVerdicts
		gr.Expectations = &c
	}
	rep.Growth = gr
	rep.Validity = Validity{Valid: true}
	failed := 0
	for _, c := range gr.Checks {
		if !c.Pass {
			failed++
		}
	}
	rep.Pass = !t.Failed() && failed == 0
	if err := rf.finish(rep); err != nil {
		t.Error(err)
	} else {
		t.Logf("result file: %s", rf.Path())
	}
	t.Log("\n" + GrowthTable(gr) + "\n" + GrowthFamilyTable(gr) + "\n" + GrowthFindings(gr))
	for _, c := range gr.Checks {
		if !c.Pass {
			t.Errorf("memory-growth detector: %s", c)
		}
	}
	return rep
}

func defaultReportRoot() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "reports"), nil
}

// runVariant deploys one variant, loads it and reads its sidecars. The deployment is torn down
// when the subtest t ends.
func runVariant(t *testing.T, g GrowthScenario, v GrowthVariant, platform Platform) (VariantGrowth, *Report, error) {
	t.Helper()
	out := VariantGrowth{Name: v.Name, Description: v.Description, Control: v.Control, UniquePath: v.UniquePath}
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	dep := platform.Start(ctx, t, withTesterLimits(v.Apps, g.roundParams())...)
	cancel()
	env := newReport(Scenario{}, runConfig{platform: platform}, dep)

	tester, err := NewTesterClient(dep, v.Tester)
	if err != nil {
		return out, env, err
	}
	sc := Scenario{Transport: HTTP, Tester: v.Tester}
	p, err := routed(dep, sc, v.Route, g.roundParams())
	if err != nil {
		return out, env, err
	}
	// Warm up with one round of the fixed method: the first round after start-up steps RSS
	// up by several MiB (connection pools, buffers, heap target), which is not growth.
	if _, err := RunLoad(t.Context(), tester, p); err != nil {
		return out, env, fmt.Errorf("warmup: %w", err)
	}
	p.UniquePath = v.UniquePath

	roles := map[string]string{SidecarName(v.Tester): "caller-sidecar", SidecarName(v.Route.To): "callee-sidecar"}
	for _, app := range []string{v.Tester, v.Route.To} {
		out.Sidecars = append(out.Sidecars, SidecarGrowth{Process: SidecarName(app), Role: roles[SidecarName(app)], app: app})
	}
	start := time.Now()
	var requests int64
	// read takes a reading of both sidecars: RSS first; then, when scrape is set, heap in use
	// and /metrics series. The reading after the last round skips the scrape, so that the idle
	// window's RSS is not inflated by it; the final reading after the idle window scrapes
	// (no request ran meanwhile, so its series are the last round's).
	read := func(label string, scrape bool) error {
		usage, err := dep.Usage(t.Context())
		if err != nil {
			return err
		}
		for i := range out.Sidecars {
			s := &out.Sidecars[i]
			r := GrowthReading{Label: label, Requests: requests, Seconds: time.Since(start).Seconds(),
				RSSBytes: usage[s.Process].RSSBytes, Series: -1}
			if scrape {
				if r.HeapInUseBytes, r.Families, err = scrapeSidecar(t.Context(), dep, s.app); err != nil {
					return err
				}
				if r.Families != nil {
					r.Series = totalSeries(r.Families)
				}
			}
			s.Readings = append(s.Readings, r)
		}
		return nil
	}
	// A first scrape allocates (pprof's heap text, the /metrics encoder) and the Go runtime keeps
	// that memory a while: take it before reading 0, so that it is not read as the first
	// round's growth.
	for _, s := range out.Sidecars {
		if _, _, err := scrapeSidecar(t.Context(), dep, s.app); err != nil {
			return out, env, err
		}
	}
	if err := read("0", true); err != nil {
		return out, env, err
	}
	for k := 1; k <= g.Rounds; k++ {
		res, err := RunLoad(t.Context(), tester, p)
		if err != nil {
			return out, env, fmt.Errorf("round %d: %w", k, err)
		}
		requests += res.Requests
		out.Errors += res.Errors()
		if err := read(fmt.Sprint(requests), k < g.Rounds); err != nil {
			return out, env, fmt.Errorf("round %d: %w", k, err)
		}
	}
	if err := idle(t.Context(), dep, g.Idle, start, requests, out.Sidecars); err != nil {
		return out, env, err
	}
	if err := read("idle", true); err != nil {
		return out, env, err
	}
	for i := range out.Sidecars {
		s := &out.Sidecars[i]
		first, last := s.Readings[0], s.Readings[len(s.Readings)-1] // "idle": the last round's series
		if first.Series >= 0 && last.Series >= 0 {
			s.SeriesPerRequest = perRequest(first.Series, last.Series, first.Requests, last.Requests)
			if second := s.Readings[1]; len(s.Readings) > 3 && second.Series >= 0 {
				s.SeriesTailPerRequest = perRequest(second.Series, last.Series, second.Requests, last.Requests)
			}
		}
		s.FamilyGrowth = familyGrowth(s.Readings)
	}
	if out.Errors > 0 {
		return out, env, fmt.Errorf("%d requests failed", out.Errors)
	}
	return out, env, nil
}

// idle waits out the idle window, reading only RSS (no scrape) idleReadings times.
func idle(ctx context.Context, dep Deployment, window time.Duration, start time.Time, requests int64, sidecars []SidecarGrowth) error {
	step := window / idleReadings
	for range idleReadings {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(step):
		}
		usage, err := dep.Usage(ctx)
		if err != nil {
			return err
		}
		for i := range sidecars {
			sidecars[i].Idle = append(sidecars[i].Idle, GrowthPoint{Requests: requests,
				Seconds: time.Since(start).Seconds(), RSSBytes: usage[sidecars[i].Process].RSSBytes})
		}
	}
	return nil
}

// scrapeSidecar reads app's sidecar's Go heap in use (bytes; 0 when profiling is off) and the
// series count of each metric family on its /metrics (nil when the endpoint is off).
func scrapeSidecar(ctx context.Context, dep Deployment, app string) (heap uint64, families map[string]int, err error) {
	if u, err := dep.Endpoint(app, SidecarProfile); err == nil {
		if heap, err = HeapInUse(ctx, u); err != nil {
			return 0, nil, err
		}
	}
	if u, err := dep.Endpoint(app, SidecarMetrics); err == nil {
		if families, err = ScrapeFamilySeries(ctx, u); err != nil {
			return 0, nil, err
		}
	}
	return heap, families, nil
}
