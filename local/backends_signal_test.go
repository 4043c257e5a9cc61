package local_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// envBackendChild makes TestBackendsChild run, as the child of TestBackendsEndWithTheTest; its
// value is "<mode>:<run dir parent>", mode "sigint" or "panic".
const envBackendChild = "DAPRPERF_LOCAL_BACKEND_CHILD"

// backendsReady is what the child prints once its deployment is up.
const backendsReady = "BACKENDS READY"

// controlPlanePIDs starts the child's line with the PIDs of its placement and scheduler.
const controlPlanePIDs = "CONTROL PLANE PIDS"

// TestBackendsEndWithTheTest runs a deployment with backends in a child test binary, which is
// then interrupted (SIGINT, all four backends) or panics (Redis and PostgreSQL): no process of
// the run may be left either way.
func TestBackendsEndWithTheTest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd and the backends")
	}
	newPlatform(t) // skips without daprd, as the child would
	for _, mode := range []string{"sigint", "panic"} {
		t.Run(mode, func(t *testing.T) {
			// The run dirs go here; searchable by others, so PostgreSQL's data dir stays inside.
			root, err := os.MkdirTemp("", "daprperf-backend-child-*")
			require.NoError(t, err)
			require.NoError(t, os.Chmod(root, 0o711))
			t.Cleanup(func() { assert.NoError(t, os.RemoveAll(root)) })

			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBackendsChild$", "-test.v")
			cmd.Env = append(os.Environ(), envBackendChild+"="+mode+":"+root)
			var out lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // a no-op once it has exited
			t.Cleanup(func() { killMentioning(t, root) })                // should find nothing

			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			if mode == "sigint" {
				deadline := time.Now().Add(2 * time.Minute)
				for !strings.Contains(out.String(), backendsReady) {
					require.True(t, time.Now().Before(deadline), "the child's deployment not up within 2 min:\n%s", out.String())
					time.Sleep(50 * time.Millisecond)
				}
				require.NotEmpty(t, mentioning(t, root), "the child's processes run")
				require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			}
			select {
			case err = <-waited:
			case <-time.After(2 * time.Minute):
				t.Fatalf("the child did not exit:\n%s", out.String())
			}
			require.Error(t, err, "the child fails:\n%s", out.String())
			if mode == "panic" {
				assert.Contains(t, out.String(), "panic: on purpose, with backends running")
			}
			assert.Empty(t, mentioning(t, root), "processes of the child's run still running:\n%s", out.String())
			if mode == "sigint" {
				var placement, scheduler int
				_, err := fmt.Sscanf(out.String()[strings.Index(out.String(), controlPlanePIDs):], controlPlanePIDs+" %d %d", &placement, &scheduler)
				require.NoError(t, err, out.String())
				require.NotZero(t, placement*scheduler, out.String())
				assert.False(t, alive(placement), "placement (pid %d) outlived the interrupted test", placement)
				assert.False(t, alive(scheduler), "scheduler (pid %d) outlived the interrupted test", scheduler)
			}
		})
	}
}

// TestBackendsChild starts a deployment with backends and then waits for SIGINT or panics. It
// runs only as TestBackendsEndWithTheTest's child.
func TestBackendsChild(t *testing.T) {
	mode, root, ok := strings.Cut(os.Getenv(envBackendChild), ":")
	if !ok {
		return // only a child process started by its parent test runs it; not a skipped test
	}
	p, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithRunDirParent(root), local.WithoutDaprdB())
	require.NoError(t, err)
	cs := []perf.Component{{Name: "s", Type: perf.StateRedis}, {Name: "pg", Type: perf.StatePostgreSQL}}
	if mode == "sigint" {
		cs = append(cs, perf.Component{Name: "r", Type: perf.PubSubRabbitMQ}, perf.Component{Name: "m", Type: perf.PubSubMQTT3})
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	apps := []perf.App{{Name: "app", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: cs}}}
	if mode == "sigint" { // and the actor control plane, whose placement names no run-dir path
		apps = append(apps, actorHost("actorapp", "", true))
	}
	d := p.Start(ctx, t, apps...).(*local.Deployment)
	if mode == "sigint" {
		fmt.Printf("%s %d %d\n", controlPlanePIDs, d.PID("placement"), d.PID("scheduler"))
	}
	fmt.Println(backendsReady)
	if mode == "panic" {
		panic("on purpose, with backends running")
	}
	time.Sleep(time.Minute) // the parent interrupts long before
	t.Error("not interrupted")
}

// lockedBuffer is a bytes.Buffer safe for the child's writes and the test's reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
