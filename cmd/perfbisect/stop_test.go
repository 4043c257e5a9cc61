package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/bisect"
)

// A comparison stopped with the bisection gets SIGINT in its own process group, as Ctrl-C gives
// it, so that the run (here a stand-in scripts/perf.sh and the child it started) cleans up,
// and the comparison says it was interrupted.
func TestAStoppedComparisonIsInterruptedNotKilled(t *testing.T) {
	repo, logs := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "scripts"), 0o755))
	script := `#!/bin/sh
# The stand-in run: a child in the same group, and a trap that records the interrupt.
sleep 30 &
trap 'echo stopped > cleaned; kill $! 2>/dev/null; exit 130' INT
echo started > started
wait
`
	require.NoError(t, os.WriteFile(filepath.Join(repo, "scripts", "perf.sh"), []byte(script), 0o755))
	r := &abRun{repo: repo, root: t.TempDir(), id: "b", pkg: "./tests/x", run: "^TestX$", figure: "latency p90", logDir: logs}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Bounded: the stand-in starts within 10 s, or the comparison is stopped regardless.
		for i := 0; i < 100; i++ {
			if _, err := os.Stat(filepath.Join(repo, "started")); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	_, err := r.Compare(ctx, bisect.Binary{}, bisect.Binary{})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "run b-01 interrupted")
	b, rerr := os.ReadFile(filepath.Join(repo, "cleaned"))
	require.NoError(t, rerr, "the run got SIGINT and cleaned up")
	assert.Equal(t, "stopped\n", string(b))
	assert.Less(t, time.Since(start), 20*time.Second, "it ended on the interrupt, not the child's 30 s")
}
