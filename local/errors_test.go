package local_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/runner"
)

func TestDaprdEnvMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-daprd")
	t.Setenv(local.EnvDaprd, path)
	_, err := local.New(local.WithEnv(runner.EnvFor(t)))
	require.Error(t, err)
	assert.ErrorContains(t, err, local.EnvDaprd)
	assert.ErrorContains(t, err, path)
	assert.NotErrorIs(t, err, local.ErrDaprdNotFound, "a daprd named but missing is no reason to skip")
}

func TestDaprdEnvNotExecutable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daprd")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho 1.0.0\n"), 0o644))
	t.Setenv(local.EnvDaprd, path)
	_, err := local.New(local.WithEnv(runner.EnvFor(t)))
	require.Error(t, err)
	assert.ErrorContains(t, err, local.EnvDaprd)
	assert.ErrorContains(t, err, path)
	assert.ErrorContains(t, err, "not executable")
}

func TestWithDaprdMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-daprd")
	_, err := local.New(local.WithEnv(runner.EnvFor(t)), local.WithDaprd(path))
	require.Error(t, err)
	assert.ErrorContains(t, err, "WithDaprd")
	assert.ErrorContains(t, err, path)
}

// TestPortInUse: a port the platform cannot bind makes StartE fail at once, naming the
// process that could not start and the port (from its log).
func TestPortInUse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		call    int    // which call of the allocator returns the busy port
		process string // the process that must fail
	}{
		{"app port", 1, "callee"},
		{"daprd metrics port", 5, "callee-daprd"}, // app, http, grpc, internal grpc, metrics
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(func() { _ = ln.Close() })
			busy := ln.Addr().(*net.TCPAddr).Port
			calls := 0
			alloc := func() (int, error) {
				calls++
				if calls == tc.call {
					return busy, nil
				}
				return local.FreePort()
			}
			isolated(t, func(t *testing.T, p *local.Platform) {
				_, err := p.StartE(startCtx(t), t, withSidecar("callee", perf.HTTPApp, perf.HTTP))
				require.Error(t, err)
				t.Log(err)
				assert.ErrorContains(t, err, tc.process+" (pid ")
				assert.ErrorContains(t, err, strconv.Itoa(busy))
				assert.ErrorContains(t, err, tc.process+".log")
			}, local.WithPortAllocator(alloc))
		})
	}
}

// TestInvalidApps: bad app lists fail before anything starts.
func TestInvalidApps(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		for _, apps := range [][]perf.App{
			nil,
			{{Name: "a", Kind: "nosuchkind"}},
			{{Name: "a", Kind: perf.HTTPApp}, {Name: "a", Kind: perf.HTTPApp}},
			{{Name: "a", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{}}, {Name: "a-daprd", Kind: perf.HTTPApp}},
			{{Name: "a/b", Kind: perf.HTTPApp}},
			{{Name: "a", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: "smtp"}}},
		} {
			_, err := p.StartE(startCtx(t), t, apps...)
			assert.Error(t, err, "%+v", apps)
		}
	})
}

// TestStartTimeout: a sidecar that never becomes healthy fails StartE when ctx ends, and
// the error names the sidecar, its last health error and its log.
func TestStartTimeout(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		nobody, err := local.FreePort() // nothing listens here: daprd waits for its app forever
		require.NoError(t, err)
		app := withSidecar("callee", perf.HTTPApp, perf.HTTP)
		app.Sidecar.ExtraArgs = []string{"--app-port", strconv.Itoa(nobody)} // the last flag wins

		// Build outside the short deadline: only the health wait is under test.
		_, err = p.StartE(startCtx(t), t, perf.App{Name: "warm", Kind: perf.HTTPApp})
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err = p.StartE(ctx, t, app)
		require.Error(t, err)
		t.Log(err)
		assert.Less(t, time.Since(start), 10*time.Second, "StartE returns soon after ctx ends")
		assert.ErrorContains(t, err, "callee-daprd (pid ")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		// The last probe's failure: an answer that was not ready ("GET <url>: ..."), or, on a busy
		// machine, the probe's own timeout from the HTTP client ("Get \"<url>\": ...").
		assert.Regexp(t, `last error: (GET |Get ")http://127\.0\.0\.1:[0-9]+/v1\.0/healthz`, err.Error())
		assert.ErrorContains(t, err, "callee-daprd.log")
	})
}
