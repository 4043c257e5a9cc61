package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

func TestUsageErrorsNameTheFlag(t *testing.T) {
	for msg, args := range map[string][]string{
		"-repo (make bisect: DAPR_BISECT_REPO) is required":                                                      {"-good", "v1.17.0", "-bad", "v1.17.5"},
		"-good and -bad (make bisect: GOOD, BAD) are required":                                                   {"-repo", "/x", "-good", "v1.17.0"},
		`unexpected arguments ["extra"]`:                                                                         {"-repo", "/x", "extra"},
		`-pins (make bisect: BISECT_PINS) word "github.com/dapr/components-contrib": want a module path@version`: {"-repo", "/x", "-good", "a", "-bad", "b", "-control-plane", "v1.18.3", "-pins", "github.com/x/y@v1 github.com/dapr/components-contrib"},
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, perf.OutcomeConfig, run(args, &out, &errs))
		assert.Contains(t, errs.String(), msg)
	}
}

// TestReadsTheFigureOfTheRunsABResult reads the published HTTP reference written as an A/B run
// whose build B is 1.5 times slower in every round: the difference of the figure asked for, the
// rounds, and the refusal of a run id with no A/B result.
func TestReadsTheFigureOfTheRunsABResult(t *testing.T) {
	rep, err := report.ReadReport(filepath.Join("..", "..", "reports", "v1.17.5", "service_invocation", "http", "result.json"))
	require.NoError(t, err)
	ab := &perf.ABReport{Stop: &perf.ABStop{Ran: len(rep.Rounds)}}
	for _, rd := range rep.Rounds {
		b := rd
		b.Main.Latency.Percentiles = nil
		for _, q := range rd.Main.Latency.Percentiles {
			q.Seconds *= 1.5
			b.Main.Latency.Percentiles = append(b.Main.Latency.Percentiles, q)
		}
		ab.Rounds = append(ab.Rounds, b)
	}
	ab.Differences = report.PairedDifferences(rep.Rounds, ab.Rounds, report.DefaultChangeRule())
	rep.AB = ab
	root := t.TempDir()
	dir := filepath.Join(perf.RunDir(root, "b-01"), "service_invocation", "http")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644))

	r := &abRun{root: root, figure: "latency p90"}
	d, files, rounds, err := r.read("b-01")
	require.NoError(t, err)
	assert.Equal(t, "latency p90", d.Figure)
	assert.InDelta(t, 0.5, d.Change, 0.01, "B is 1.5 times A")
	assert.Equal(t, len(rep.Rounds), rounds)
	assert.Len(t, files, 1)

	r.figure = "latency p99.9999"
	_, _, _, err = r.read("b-01")
	assert.ErrorContains(t, err, `the A/B run has no figure "latency p99.9999"`)
	rep.AB = nil
	b, err = json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644))
	_, _, _, err = r.read("b-01")
	assert.ErrorContains(t, err, "0 result files with an A/B part, of 1: -run must select one A/B scenario")
}
