package local_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

// startTimeout bounds a deployment's start in these tests, app builds included.
const startTimeout = 2 * time.Minute

// newPlatform returns the local platform, or skips t when no daprd can be found and $CI is
// unset; under CI a missing daprd fails t.
func newPlatform(t testing.TB, opts ...local.Option) *local.Platform {
	t.Helper()
	p, err := local.New(append([]local.Option{local.WithEnv(runner.EnvFor(t))}, opts...)...)
	if errors.Is(err, local.ErrDaprdNotFound) && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	return p
}

// isolated runs body in a subtest, with a platform whose run directories go in a folder of
// their own, then checks what the deployment's cleanup must leave, whether the subtest passed
// or failed: no child process of the test binary and no run directory (a failed test's logs
// are in its output: the platform is given no logs folder here).
func isolated(t *testing.T, body func(t *testing.T, p *local.Platform), opts ...local.Option) {
	t.Helper()
	parent, err := os.MkdirTemp("", "daprperf-local-test-*")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, os.RemoveAll(parent)) }) // also after a skip
	p := newPlatform(t, append(opts, local.WithRunDirParent(parent))...)

	t.Run("deployment", func(t *testing.T) { body(t, p) })

	assert.Zero(t, children(t), "child processes left after the deployment's cleanup")
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries, "run dir left in %s", parent)
}

// children counts the processes whose parent is the test binary, from /proc/<pid>/stat.
func children(t testing.TB) int {
	t.Helper()
	procs, err := procfs.AllProcs()
	require.NoError(t, err)
	n := 0
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // ended since the listing
		}
		if st.PPID == os.Getpid() {
			t.Logf("child process: pid %d (%s) state %s", st.PID, st.Comm, st.State)
			n++
		}
	}
	return n
}

// startCtx is the context bounding a deployment's start.
func startCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	t.Cleanup(cancel)
	return ctx
}

// endpoint returns app's endpoint e, failing t when it has none.
func endpoint(t testing.TB, d perf.Deployment, app string, e perf.Endpoint) string {
	t.Helper()
	addr, err := d.Endpoint(app, e)
	require.NoError(t, err)
	return addr
}

// get does GET url and returns the status code and body.
func get(t testing.TB, url string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// withSidecar returns an app of kind with a daprd talking proto to it.
func withSidecar(name string, kind perf.AppKind, proto perf.Protocol) perf.App {
	return perf.App{Name: name, Kind: kind, Sidecar: &perf.Sidecar{AppProtocol: proto}}
}
