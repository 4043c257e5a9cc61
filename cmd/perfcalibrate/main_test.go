package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/calibrate"
	"github.com/daprperf/daprperf/perf/report"
)

// writeAB writes the published HTTP reference as an A/B run whose build B's main latencies are
// A's × factor in every round, with delay recorded as B's injected slowdown; its run id is the
// folder's name.
func writeAB(t *testing.T, dir string, factor, delay float64) {
	t.Helper()
	rep, err := report.ReadReport(filepath.Join("..", "..", "reports", "v1.17.5", "service_invocation", "http", "result.json"))
	require.NoError(t, err)
	rep.RunID = filepath.Base(dir)
	ab := &perf.ABReport{B: perf.Build{Version: "1.17.5", InjectedDelaySeconds: delay}}
	for _, rd := range rep.Rounds {
		b := rd
		b.Main.Latency.Percentiles = nil
		for _, q := range rd.Main.Latency.Percentiles {
			q.Seconds *= factor
			b.Main.Latency.Percentiles = append(b.Main.Latency.Percentiles, q)
		}
		ab.Rounds = append(ab.Rounds, b)
	}
	rep.AB = ab
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644))
}

func TestTableOfAnAAAndASlowedRun(t *testing.T) {
	root := t.TempDir()
	writeAB(t, filepath.Join(root, "aa"), 1, 0)
	writeAB(t, filepath.Join(root, "slowed"), 1.5, 0.002)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"-rounds", "8", "-n", "200", root}, &out, &errs), errs.String())
	s := out.String()
	assert.Contains(t, s, "| figure | runs | rounds | as run | paired, 8 rounds | paired, 8 to 16 rounds | unpaired, 8 against 8 |")
	aa := s[strings.Index(s, "### Same build"):strings.Index(s, "### Smallest change")]
	mde := s[strings.Index(s, "### Smallest change"):strings.Index(s, "### Build B slowed by 2.000 ms")]
	slowed := s[strings.Index(s, "### Build B slowed"):]
	// B equal to A in every round: no alarm; 1.5 times A in every round: always regressed, but
	// not as run: 6 real rounds cannot reach 99 %, 8 resampled ones can.
	none := "0 of 200: 0.00 % (0.00 to 1.88 %)"
	assert.Contains(t, aa, "| latency p90 | 1 | 6 | 0 of 1 | "+none+" | "+none+" | "+none+" |")
	all := "200 of 200: 100.00 % (98.12 to 100.00 %)"
	assert.Contains(t, slowed, "| latency p90 | 1 | 6 | +2.017 ms (+50.0 %) | 0 of 1 | "+all+" | "+all+" | "+all+" |", "the slowed table gives the change detected: B − A, and that of A")
	// B = A in every round: any shift beyond the 5 % floor moves every round, caught at once.
	assert.Regexp(t, `\| latency p90 \| 1 \| 6 \| 4\.[0-9]+ ms \| \+[5-9] % \| \+[5-9] % \| \+[5-9] % \|`, mde)
}

func TestSixPairedRoundsAreNoneInTheMDETable(t *testing.T) {
	root := t.TempDir()
	writeAB(t, filepath.Join(root, "aa"), 1, 0)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"-n", "100", root}, &out, &errs), errs.String())
	s := out.String()
	assert.Regexp(t, `\| latency p90 \| 1 \| 6 \| 4\.[0-9]+ ms \| none \| \+[5-9] % \| \+[0-9]+ % \|`, s[strings.Index(s, "### Smallest"):],
		"the sign test's 99 %% interval needs 8 pairs")
}

func TestBadInputIsNamed(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run(nil, &out, &errs))
	assert.Equal(t, 2, run([]string{"-rounds", "0", "x"}, &out, &errs))
	assert.Equal(t, 2, run([]string{"-budget", "4", "x"}, &out, &errs), "a budget below the rounds")
	assert.Equal(t, 2, run([]string{"-power", "1", "x"}, &out, &errs))
	errs.Reset()
	assert.Equal(t, 1, run([]string{filepath.Join("..", "..", "reports", "v1.17.5", "service_invocation", "http")}, &out, &errs))
	assert.Contains(t, errs.String(), "is no A/B run")
}

func TestSavedRoundsGiveTheSameTable(t *testing.T) {
	root := t.TempDir()
	writeAB(t, filepath.Join(root, "aa"), 1, 0)
	writeAB(t, filepath.Join(root, "slowed"), 1.1, 0.0004)
	saved := filepath.Join(root, "calibration", "stored.json")
	var fromFiles, fromStored, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"-n", "300", "-save", saved, root}, &fromFiles, &errs), errs.String())
	require.Equal(t, 0, run([]string{"-n", "300", "-stored", saved}, &fromStored, &errs), errs.String())
	assert.Equal(t, fromFiles.String(), fromStored.String())
	assert.Contains(t, fromStored.String(), "### Build B slowed by 0.400 ms")

	errs.Reset()
	assert.Equal(t, 2, run([]string{"-stored", saved, root}, &fromStored, &errs), "rounds from both a file and paths")
	assert.Contains(t, errs.String(), "usage")

	// A second sitting: the saved runs stay, a run already saved is not added twice.
	writeAB(t, filepath.Join(root, "aa-2"), 1, 0)
	require.NoError(t, os.RemoveAll(filepath.Join(root, "slowed")))
	require.Equal(t, 0, run([]string{"-n", "300", "-save", saved, root}, &fromFiles, &errs), errs.String())
	data, err := calibrate.ReadStored(saved)
	require.NoError(t, err)
	assert.Len(t, data.AA("latency p90"), 2)
	assert.Len(t, data.Figures["latency p90"], 3)
}

func TestRunsOfAnotherMachineAreRefused(t *testing.T) {
	root := t.TempDir()
	writeAB(t, filepath.Join(root, "a"), 1, 0)
	writeAB(t, filepath.Join(root, "b"), 1, 0)
	f := filepath.Join(root, "b", "result.json")
	rep, err := report.ReadReport(f)
	require.NoError(t, err)
	rep.Environment.CPUs++
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, b, 0o644))
	var out, errs bytes.Buffer
	assert.Equal(t, 1, run([]string{root}, &out, &errs))
	assert.Contains(t, errs.String(), "a calibration holds one machine's runs")
}
