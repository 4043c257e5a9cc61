package local_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// failedTB is t as a deployment's teardown sees a failed test: Failed reports true, and the
// cleanups and logs are collected here, so that t itself can pass and check what they did.
type failedTB struct {
	*testing.T
	mu       sync.Mutex
	cleanups []func()
	logs     []string
}

func (f *failedTB) Failed() bool { return true }

func (f *failedTB) Cleanup(fn func()) {
	f.mu.Lock()
	f.cleanups = append(f.cleanups, fn)
	f.mu.Unlock()
}

func (f *failedTB) Logf(format string, args ...any) {
	f.mu.Lock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

// cleanup runs the registered cleanups, last first, as testing does.
func (f *failedTB) cleanup() {
	for _, fn := range slices.Backward(f.cleanups) {
		fn()
	}
}

// TestAFailedTestLeavesNoRunDir: a deployment whose test failed removes its run directory, as
// one that passed. Given a logs folder (perf.WithLogsDir, the runner's, beside the result file)
// it first copies the processes' logs, the sidecars' configurations and the components there;
// given none, it writes the end of every process's log into the test's output.
func TestAFailedTestLeavesNoRunDir(t *testing.T) {
	parent := t.TempDir()
	p := newPlatform(t, local.WithRunDirParent(parent))
	apps := []perf.App{withSidecar("caller", perf.HTTPApp, perf.HTTP), withSidecar("callee", perf.HTTPApp, perf.HTTP)}

	t.Run("a logs folder given", func(t *testing.T) {
		logs := filepath.Join(t.TempDir(), "logs", "TestX")
		f := &failedTB{T: t}
		_, err := p.StartE(perf.WithLogsDir(startCtx(t), logs), f, apps...)
		f.cleanup()
		require.NoError(t, err)
		entries, err := os.ReadDir(parent)
		require.NoError(t, err)
		assert.Empty(t, entries, "the run dir of the failed test is removed")
		for _, name := range []string{"caller.log", "caller-daprd.log", "callee-daprd.log", "sentry.log", "caller-config.yaml"} {
			assert.FileExists(t, filepath.Join(logs, name))
		}
		b, err := os.ReadFile(filepath.Join(logs, "caller-daprd.log"))
		require.NoError(t, err)
		assert.Contains(t, string(b), "dapr initialized", "the whole daprd log is kept")
		assert.Contains(t, strings.Join(f.logs, "\n"), "logs kept in "+logs)
	})
	t.Run("none given", func(t *testing.T) {
		f := &failedTB{T: t}
		_, err := p.StartE(startCtx(t), f, apps...)
		f.cleanup()
		require.NoError(t, err)
		entries, err := os.ReadDir(parent)
		require.NoError(t, err)
		assert.Empty(t, entries, "the run dir of the failed test is removed")
		out := strings.Join(f.logs, "\n")
		assert.Contains(t, out, "caller-daprd, last lines of its log:")
		assert.Contains(t, out, "callee, last lines of its log:")
	})
	assert.Zero(t, children(t), "child processes left after the deployments' cleanup")
}
