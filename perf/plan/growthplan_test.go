package plan

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/growth"
)

// linearRSS is four readings 3,000 requests apart, RSS rising kib KiB per round from 90 MiB.
func linearRSS(kib float64) []growth.Point {
	out := make([]growth.Point, 4)
	for i := range out {
		out[i] = growth.Point{Requests: int64(3000 * i), Seconds: float64(10 * i), RSSBytes: uint64(90<<20 + float64(i)*kib*1024)}
	}
	return out
}

func TestGrowthThresholdEnv(t *testing.T) {
	t.Setenv(perf.EnvGrowthThreshold, "abc")
	_, err := runner.LoadEnv()
	require.Error(t, err)
	assert.Contains(t, err.Error(), perf.EnvGrowthThreshold)
	t.Setenv(perf.EnvGrowthThreshold, "-1")
	_, err = runner.LoadEnv()
	require.Error(t, err)
	inf := math.Inf(1)
	_, err = growthThreshold(perf.Env{GrowthThreshold: &inf}, "a-fixed", nil)
	require.Error(t, err)
	t.Setenv(perf.EnvGrowthThreshold, "300")
	env, err := runner.LoadEnv()
	require.NoError(t, err)
	d, err := growthThreshold(env, "a-fixed", [][]growth.Point{linearRSS(900)})
	require.NoError(t, err)
	assert.Equal(t, 300.0, d.KiBPer1000)
	assert.Equal(t, "env", d.Rule)
	assert.Contains(t, d.Text, perf.EnvGrowthThreshold)
	assert.Contains(t, d.Text, "margin 1.0x, BELOW the stated 2x")
}

// On the published runs' own readings, the derived threshold gives the published verdicts,
// with at least 2x over every fixed-method slope and 3x under every distinct-path slope.
func TestGrowthThresholdOnPublishedRuns(t *testing.T) {
	for _, version := range []string{"v1.16.5", "v1.17.5"} {
		rep, err := report.ReadReport("../../reports/" + version + "/memory_growth/http/result.json")
		require.NoError(t, err)
		var reference [][]growth.Point
		for _, v := range rep.Growth.Variants {
			if v.Name == "a-fixed" {
				for _, s := range v.Sidecars {
					reference = append(reference, s.LoadPoints())
				}
			}
		}
		require.Len(t, reference, 2, version)
		d, err := growthThreshold(perf.Env{}, "a-fixed", reference)
		require.NoError(t, err)
		for _, v := range rep.Growth.Variants {
			for _, s := range v.Sidecars {
				g := growth.Classify(s.LoadPoints(), s.Idle, d.KiBPer1000)
				assert.Equal(t, s.Growth.Verdict, g.Verdict, "%s %s %s", version, v.Name, s.Role)
				if g.Verdict == growth.Growing {
					assert.GreaterOrEqual(t, math.Min(g.SlopeKiBPer1000, g.TailSlopeKiBPer1000), 3*d.KiBPer1000, "%s %s %s", version, v.Name, s.Role)
				}
				if v.Name == "a-fixed" {
					assert.LessOrEqual(t, 2*math.Max(g.SlopeKiBPer1000, g.TailSlopeKiBPer1000), d.KiBPer1000, "%s %s", version, s.Role)
				}
			}
		}
	}
}

// A growth round that sent requests late stays valid with a warning naming it; one that did not
// reach its rate is invalid.
func TestGrowthValidity(t *testing.T) {
	late := perf.Result{RequestedQPS: 500, ActualQPS: 499.6, Schedule: perf.Schedule{Scheduled: 3000, Late: 82}}
	slow := perf.Result{RequestedQPS: 500, ActualQPS: 430, Schedule: perf.Schedule{Scheduled: 3000}}
	ok := perf.Result{RequestedQPS: 500, ActualQPS: 499.9, Schedule: perf.Schedule{Scheduled: 3000, Late: 3}}
	v, w := growthValidity([]report.NamedResult{{Name: "e round 1", Res: &late}, {Name: "e round 2", Res: &ok}})
	assert.True(t, v.Valid, "%v", v.Reasons)
	require.Len(t, w, 1)
	assert.Contains(t, w[0], "e round 1: 2.73 % of 3000 requests went out late")
	v, _ = growthValidity([]report.NamedResult{{Name: "b round 3", Res: &slow}})
	assert.False(t, v.Valid)
	require.Len(t, v.Reasons, 1)
	assert.Contains(t, v.Reasons[0], "b round 3: achieved 430.0 of 500 QPS")
}

// A short round is judged with its last request's time allowed for, as an overhead run's
// validity judges it: a 2 s round of 1,000 requests at 500 QPS whose last call ends 68 ms after
// the phase shows 483.6 QPS by fortio's elapsed time, which alone would call it invalid.
// A round behind by more than that one request's time stays invalid.
func TestGrowthValidityAllowsTheLastRequest(t *testing.T) {
	round := func(actual, lastSeconds float64) *perf.Result {
		return &perf.Result{Params: perf.Params{Duration: 2 * time.Second}, RequestedQPS: 500, ActualQPS: actual,
			Schedule: perf.Schedule{Scheduled: 1000}, Latency: perf.Latency{MaxSeconds: lastSeconds}}
	}
	v, _ := growthValidity([]report.NamedResult{{Name: "e round 2", Res: round(1000/2.068, 0.068)}})
	assert.True(t, v.Valid, "%v", v.Reasons)
	v, _ = growthValidity([]report.NamedResult{{Name: "e round 2", Res: round(1000/2.2, 0.068)}})
	assert.False(t, v.Valid, "0.13 s behind beyond the last request's 68 ms")
	require.Len(t, v.Reasons, 1)
	assert.Contains(t, v.Reasons[0], "the last request's 68 ms allowed for")
}

// sampledDeployment is a perf.Deployment whose usage comes from a sampler like the metrics
// API's: each Usage call returns the sample taken at the last multiple of every since start.
type sampledDeployment struct {
	perf.Deployment
	start time.Time
	every time.Duration
	calls int
}

func (d *sampledDeployment) Usage(context.Context) (map[string]perf.Usage, error) {
	d.calls++
	n := time.Since(d.start) / d.every
	return map[string]perf.Usage{"a-daprd": {RSSBytes: 1, SampledAt: d.start.Add(n * d.every)}}, nil
}

// A reading after a round waits for the platform's next sample, and takes the first one after
// the round; a platform that reads at the call (zero SampledAt) is read once.
func TestUsageAfterWaitsForAFreshSample(t *testing.T) {
	d := &sampledDeployment{start: time.Now(), every: 1500 * time.Millisecond}
	after := time.Now()
	u, err := usageAfter(t.Context(), d, after, []string{"a-daprd"})
	require.NoError(t, err)
	assert.False(t, u["a-daprd"].SampledAt.Before(after), "the sample at %v is after the round's end %v", u["a-daprd"].SampledAt, after)
	assert.Greater(t, d.calls, 1, "the first sample predated the round: it was read again")

	local := &sampledDeployment{start: time.Now(), every: time.Hour}
	u, err = usageAfter(t.Context(), localUsage{local}, time.Now(), []string{"a-daprd"})
	require.NoError(t, err)
	assert.True(t, u["a-daprd"].SampledAt.IsZero())
}

// newPods is a metrics API that has no reading of a pod until its first sample, after
// `missing` calls.
type newPods struct {
	*sampledDeployment
	missing int
}

func (d *newPods) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	if d.missing > 0 {
		d.missing--
		return map[string]perf.Usage{}, nil
	}
	return d.sampledDeployment.Usage(ctx)
}

// A process with no reading yet (a new pod, before the metrics API's first sample of it) is
// waited for, not read as 0 bytes.
func TestUsageAfterWaitsForANewPodsFirstSample(t *testing.T) {
	d := &newPods{sampledDeployment: &sampledDeployment{start: time.Now().Add(-time.Hour), every: time.Millisecond}, missing: 2}
	u, err := usageAfter(t.Context(), d, time.Now().Add(-time.Minute), []string{"a-daprd"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, u["a-daprd"].RSSBytes)
	assert.Equal(t, 1, d.calls, "read after the two calls with no reading")
}

// localUsage reads at the call: no SampledAt.
type localUsage struct{ *sampledDeployment }

func (localUsage) Usage(context.Context) (map[string]perf.Usage, error) {
	return map[string]perf.Usage{"a-daprd": {RSSBytes: 1}}, nil
}

// A wait for a sample that never comes ends with the context (freshWait is longer).
func TestUsageAfterEndsWithItsContext(t *testing.T) {
	d := &sampledDeployment{start: time.Now(), every: time.Hour}
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	_, err := usageAfter(ctx, d, time.Now(), []string{"a-daprd"})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// finishSession is the part of a Session that Finish reads.
type finishSession struct {
	perf.Session
	cfg *perf.RunConfig
	rep *perf.Report
}

func (f finishSession) Config() *perf.RunConfig { return f.cfg }
func (f finishSession) Report() *perf.Report    { return f.rep }
func (f finishSession) InfraError(what string, err error) {
	f.rep.InfraErrors = append(f.rep.InfraErrors, what)
}
func (f finishSession) Scenario() perf.Scenario { return perf.Scenario{Test: "memory_growth"} }

// A control variant whose RSS climbs fails the detector's own check: the run is invalid (its
// readings cannot tell growth from noise), with the check named, not an unexplained failure.
func TestGrowthFinishIsInvalidWhenTheControlIsNotFlat(t *testing.T) {
	readings := func(kib float64) []growth.Reading {
		var out []growth.Reading
		for _, p := range linearRSS(kib) {
			out = append(out, growth.Reading{Label: fmt.Sprint(p.Requests), Requests: p.Requests, Seconds: p.Seconds, RSSBytes: p.RSSBytes, Series: -1})
		}
		return out
	}
	round := perf.NamedLoad{Name: "a-fixed round 1", Result: perf.Result{RequestedQPS: 500, ActualQPS: 499.9, Schedule: perf.Schedule{Scheduled: 3000}}}
	run := func(controlKiB float64) *perf.Report {
		rep := &perf.Report{Loads: []perf.NamedLoad{round}, Growth: &growth.Report{Variants: []growth.Variant{
			{Name: "a-fixed", Control: true, Sidecars: []growth.Sidecar{{Process: "tester-daprd", Role: perf.RoleCallerSidecar, Readings: readings(controlKiB)}}},
		}}}
		(&growthConfig{GrowthPlan: GrowthPlan{Variants: []perf.GrowthVariant{{Name: "a-fixed", Control: true}}}}).Finish(finishSession{cfg: &perf.RunConfig{}, rep: rep}, nil)
		return rep
	}
	flat := run(20)
	assert.True(t, flat.Validity.Valid, "%v", flat.Validity.Reasons)
	climbing := run(3000)
	assert.False(t, climbing.Validity.Valid)
	require.Len(t, climbing.Validity.Reasons, 1, "%v", climbing.Validity.Reasons)
	assert.Contains(t, climbing.Validity.Reasons[0], "memory-growth detector: control flat, a-fixed caller-sidecar: FAIL")
}
