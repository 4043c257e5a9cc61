package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/history"
	"github.com/daprperf/daprperf/perf/report"
)

var (
	thisMachine  = perf.MachineFingerprint{CPUModel: "AMD EPYC", CPUs: 2, MemoryBytes: 24 << 30, KernelRelease: "6.1.0", Hash: "aaaaaaaaaaaa"}
	otherMachine = perf.MachineFingerprint{CPUModel: "Intel Xeon", CPUs: 2, MemoryBytes: 8 << 30, KernelRelease: "6.1.0", Hash: "bbbbbbbbbbbb"}
	siHTTP       = history.Scenario{Test: "service_invocation", Transport: perf.HTTP, Plan: "overhead"}
)

const nightLoad = "500 QPS x 30s, 16 connections, 1024 B"

// nights makes n nightly entries of service invocation over HTTP on this machine, one a day,
// each with 3 rounds of overhead p90 around level(i) seconds with 3 % noise, and p50 at half.
func nights(rng *rand.Rand, n int, level func(i int) float64) []history.Entry {
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	out := make([]history.Entry, n)
	for i := range out {
		var p90, p50 []float64
		for range 3 {
			v := level(i) * (1 + 0.03*rng.NormFloat64())
			p90, p50 = append(p90, v), append(p50, v/2)
		}
		id := fmt.Sprintf("nightly-%02d", i)
		out[i] = history.Entry{Schema: history.EntrySchema, Path: "runs/" + id + "/service_invocation/http/result.json", RunID: id,
			Scenario: siHTTP, StartTime: t0.AddDate(0, 0, i), DaprVersion: "1.17.5", Platform: "local", Machine: thisMachine,
			Load: nightLoad, Pass: true, Valid: true,
			Figures: []history.Figure{
				{Name: history.FigureOverheadP50, Unit: "s", Value: median3(p50), PerRound: p50},
				{Name: history.FigureOverheadP90, Unit: "s", Value: median3(p90), PerRound: p90},
			}}
	}
	return out
}

func median3(xs []float64) float64 {
	a, b, c := xs[0], xs[1], xs[2]
	return max(min(a, b), min(max(a, b), c))
}

func p90Decision(t *testing.T, idx *history.Index, night history.Entry) Decision {
	t.Helper()
	ds, err := decide(idx, []history.Entry{night})
	require.NoError(t, err)
	for _, d := range ds {
		if d.Figure == history.FigureOverheadP90 {
			return d
		}
	}
	t.Fatalf("no p90 decision in %v", ds)
	return Decision{}
}

func TestANightThatRegressedIsCalledSoAndGates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	es := nights(rng, 12, func(i int) float64 {
		if i == 11 {
			return 0.0026 // +30 % on the last night
		}
		return 0.002
	})
	idx := &history.Index{Entries: es}
	d := p90Decision(t, idx, es[11])
	assert.Equal(t, perf.VerdictRegressed, d.Difference.Verdict)
	assert.Equal(t, 11, d.Earlier, "compared with every night before it")
	assert.Equal(t, 12, d.Nights)
	assert.InDelta(t, 0.30, d.Difference.Change, 0.08)
	assert.True(t, d.Gated)
	assert.Len(t, regressed([]Decision{d}), 1, "a regressed gated figure makes the night exit 7")

	// The night before it, like the rest, is not called regressed.
	d = p90Decision(t, idx, es[10])
	assert.NotEqual(t, perf.VerdictRegressed, d.Difference.Verdict)
	assert.Equal(t, 10, d.Earlier)
}

// Nights run back to back in one sitting, as make release-history runs them: a night 30 %
// slower is still called regressed, but does not gate until the earlier runs span 3 days.
func TestNightsOfOneSittingDoNotGate(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	es := nights(rng, 6, func(i int) float64 { return map[bool]float64{true: 0.0026, false: 0.002}[i == 5] })
	t0 := es[0].StartTime
	for i := range es {
		es[i].StartTime = t0.Add(time.Duration(i) * 5 * time.Minute)
	}
	idx := &history.Index{Entries: es}
	d := p90Decision(t, idx, es[5])
	assert.Equal(t, perf.VerdictRegressed, d.Difference.Verdict)
	assert.Equal(t, 1, d.Days)
	assert.Empty(t, regressed([]Decision{d}), "earlier runs of one day do not gate")
	assert.Len(t, heldBack([]Decision{d}), 1)
	page := trendPage(idx, es[5:], []Decision{d}, "nightly-05")
	assert.False(t, page.Alarm)
	assert.True(t, strings.HasPrefix(page.Finding, "Nothing gates this night, but regressed against nights of fewer than 3 days"), page.Finding)
	assert.Contains(t, page.Finding, "against runs of 1 day(s)")

	// The same nights a day apart gate.
	for i := range es {
		es[i].StartTime = t0.AddDate(0, 0, i)
	}
	d = p90Decision(t, &history.Index{Entries: es}, es[5])
	assert.Equal(t, 5, d.Days)
	assert.Len(t, regressed([]Decision{d}), 1)
}

func TestAFlatHistoryRaisesNoAlarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		es := nights(rng, 15, func(int) float64 { return 0.002 })
		idx := &history.Index{Entries: es}
		d := p90Decision(t, idx, es[14])
		assert.NotEqual(t, perf.VerdictRegressed, d.Difference.Verdict, "trial %d", trial)
		assert.NotEqual(t, perf.VerdictImproved, d.Difference.Verdict, "trial %d", trial)
		assert.Empty(t, d.ChangePoints, "trial %d", trial)
	}
}

// A machine whose speed drifts from night to night (each night's level ±10 %, its rounds ±3 %
// about it), the build the same throughout: a night judged by its median against the earlier
// nights' medians is called changed about 1 % of the time (the rule's 99 %). Of 50 such
// histories at most 4 may raise an alarm: at a true rate of 1 %, 5 or more have a chance of
// 0.2 % (binomial). Judged by its rounds against the earlier nights' pooled rounds, as nights
// were before, many more are called changed.
func TestAMachineThatDriftsRaisesFewAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	alarms, pooledAlarms := 0, 0
	for range 50 {
		levels := make([]float64, 10)
		for i := range levels {
			levels[i] = 0.002 * (1 + 0.10*rng.NormFloat64())
		}
		es := nights(rng, 10, func(i int) float64 { return levels[i] })
		d := p90Decision(t, &history.Index{Entries: es}, es[9])
		if v := d.Difference.Verdict; v == perf.VerdictRegressed || v == perf.VerdictImproved {
			alarms++
		}
		var earlier []float64
		for _, e := range es[:9] {
			earlier = append(earlier, e.Figures[1].PerRound...)
		}
		v := report.UnpairedDifference("p90", "s", earlier, es[9].Figures[1].PerRound, false, report.DefaultChangeRule()).Verdict
		if v == perf.VerdictRegressed || v == perf.VerdictImproved {
			pooledAlarms++
		}
	}
	t.Logf("false alarms of 50 drifting histories: %d by the nights' medians, %d by their pooled rounds", alarms, pooledAlarms)
	assert.LessOrEqual(t, alarms, 4, "false alarms of 50 drifting histories")
	assert.GreaterOrEqual(t, pooledAlarms, 10, "the pooled rounds' false alarms, which this comparison avoids")
}

func TestANightIsComparedWithTheRunsAfterTheLastChangePoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Ten nights at 2 ms, then a release that made it 3 ms, eight nights since.
	es := nights(rng, 18, func(i int) float64 {
		if i >= 10 {
			return 0.003
		}
		return 0.002
	})
	idx := &history.Index{Entries: es}
	d := p90Decision(t, idx, es[17])
	require.Len(t, d.ChangePoints, 1)
	assert.Equal(t, 10, d.ChangePoints[0].Index)
	assert.Equal(t, "nightly-10", d.ChangePoints[0].RunID)
	assert.InDelta(t, 0.5, d.ChangePoints[0].RelativeChange, 0.1)
	assert.Equal(t, 7, d.Earlier, "only the nights since the change")
	assert.NotEqual(t, perf.VerdictRegressed, d.Difference.Verdict, "the 3 ms level is the baseline now")
}

func TestOtherMachinesAndLoadsAreLeftOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	es := nights(rng, 8, func(int) float64 { return 0.002 })
	// Two runs elsewhere, at 5 ms, and one here at another load: none may count.
	es[2].Machine, es[5].Machine = otherMachine, otherMachine
	for _, i := range []int{2, 5} {
		for j := range es[i].Figures {
			for k := range es[i].Figures[j].PerRound {
				es[i].Figures[j].PerRound[k] *= 2.5
			}
		}
	}
	es[3].Load = "1000 QPS x 1m0s, 16 connections, 1024 B"
	idx := &history.Index{Entries: es}
	d := p90Decision(t, idx, es[7])
	assert.Equal(t, 2, d.OtherMachines)
	assert.Equal(t, 4, d.Earlier, "8 nights less 2 elsewhere, 1 at another load, and this one")
	assert.Equal(t, nightLoad, d.Load)
	assert.Equal(t, thisMachine.Hash, d.Machine)
}

func TestSetNamedRefusesAnUnknownSet(t *testing.T) {
	s, err := setNamed("")
	require.NoError(t, err)
	assert.Equal(t, "default", s.Name)
	_, err = setNamed("weekly")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `DAPR_PERF_NIGHTLY_SET="weekly": must be one of default (`)
	assert.Contains(t, err.Error(), "; short (")
	for _, s := range nightlySets {
		for _, st := range s.Steps {
			for _, p := range st.Packages {
				_, err := os.Stat(filepath.Join("..", "..", p))
				assert.NoError(t, err, "set %s names package %s", s.Name, p)
			}
		}
	}
}

func TestTheTrendPageSaysTheRegressionFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	es := nights(rng, 10, func(i int) float64 { return map[bool]float64{true: 0.0028, false: 0.002}[i == 9] })
	idx := &history.Index{Entries: es}
	ds, err := decide(idx, es[9:])
	require.NoError(t, err)
	page := trendPage(idx, es[9:], ds, "nightly-09")
	assert.True(t, page.Alarm)
	assert.True(t, strings.HasPrefix(page.Finding, "Regressed against the nights before: service_invocation/http overhead p50 +"), page.Finding)
	assert.Contains(t, page.Finding, "; service_invocation/http overhead p90 +")
	require.Len(t, page.Sections, 1)
	assert.Equal(t, "service_invocation/http ("+nightLoad+")", page.Sections[0].Title)
	require.Len(t, page.Sections[0].Charts, 2)
	assert.Len(t, page.Sections[0].Charts[1].Points, 10)

	var out bytes.Buffer
	n := &night{stdout: &out}
	n.print(ds)
	assert.Contains(t, out.String(), "overhead.p90")
	assert.Contains(t, out.String(), "regressed")
}
