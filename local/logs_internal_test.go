package local

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunLogsKeptOnce: the signal handler and the deployment's close, both keeping one run's
// logs at once, copy them once: one of them reports, with no error, and the other finds them
// kept. After a passed test's close has left them, the handler keeps nothing.
func TestRunLogsKeptOnce(t *testing.T) {
	runDir := t.TempDir()
	for _, name := range []string{"callee.log", "callee-daprd.log", "callee-config.yaml"} {
		require.NoError(t, os.WriteFile(filepath.Join(runDir, name), []byte(name+"\n"), 0o644))
	}

	t.Run("kept by both at once", func(t *testing.T) {
		logs := &runLogs{runDir: runDir, dir: filepath.Join(t.TempDir(), "logs")}
		var mu sync.Mutex
		var reports []error
		var wg sync.WaitGroup
		for range 2 { // the handler and close
			wg.Go(func() {
				logs.keep(func(err error) {
					mu.Lock()
					reports = append(reports, err)
					mu.Unlock()
				})
			})
		}
		wg.Wait()
		require.Len(t, reports, 1, "one of them keeps the logs and says so")
		require.NoError(t, reports[0])
		logs.keep(func(err error) { t.Errorf("kept again: %v", err) })
		b, err := os.ReadFile(filepath.Join(logs.dir, "callee-daprd.log"))
		require.NoError(t, err)
		assert.Equal(t, "callee-daprd.log\n", string(b))
	})
	t.Run("left by a passed test", func(t *testing.T) {
		logs := &runLogs{runDir: runDir, dir: filepath.Join(t.TempDir(), "logs")}
		logs.leave()
		logs.keep(func(err error) { t.Errorf("kept after the test passed: %v", err) })
		assert.NoDirExists(t, logs.dir)
	})
}
