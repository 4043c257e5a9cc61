package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/bisect"
)

// A comparison's A/B run gates only the figure the bisection reads (DAPR_PERF_AB_GATE), unless
// the user set the variable.
func TestTheComparisonGatesTheBisectedFigure(t *testing.T) {
	for _, c := range []struct{ figure, env, want string }{
		{"latency p90", "", "p90"},
		{"latency p99", "", "p99"},
		{"latency p90", "p50+p90", "p50+p90"},
		{"cpu caller-sidecar", "", ""},
	} {
		t.Run(c.figure+"/"+c.env, func(t *testing.T) {
			t.Setenv(perf.EnvABGate, c.env)
			repo := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(repo, "scripts"), 0o755))
			// The stand-in run records the gate it was given and writes no result.
			script := "#!/bin/sh\nprintf '%s' \"$DAPR_PERF_AB_GATE\" > gate\nexit 3\n"
			require.NoError(t, os.WriteFile(filepath.Join(repo, "scripts", "perf.sh"), []byte(script), 0o755))
			r := &abRun{repo: repo, root: t.TempDir(), id: "b", pkg: "./tests/x", run: "^TestX$", figure: c.figure, logDir: t.TempDir()}
			_, err := r.Compare(context.Background(), bisect.Binary{}, bisect.Binary{})
			require.Error(t, err, "no result file")
			b, err := os.ReadFile(filepath.Join(repo, "gate"))
			require.NoError(t, err)
			assert.Equal(t, c.want, string(b))
		})
	}
}
