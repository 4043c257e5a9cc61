// Package localtest starts parts of the local platform for other packages' tests. It is test
// support: only _test files import it.
package localtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// Sidecar starts, on the local platform, one HTTP app "app" whose daprd loads components on the
// real stores started with it, and returns daprd's HTTP base URL, its gRPC host:port and each
// backend's host:port. Everything stops in t's cleanup. It skips t when daprd or a backend's
// package is missing, unless $CI is set (then it fails t; make test-deps installs them).
func Sidecar(t *testing.T, components ...perf.Component) (daprHTTP, daprGRPC string, backends map[perf.Backend]string) {
	t.Helper()
	p, err := local.New(local.WithRunDirParent(t.TempDir()), local.WithoutDaprdB())
	if err != nil && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	app := perf.App{Name: "app", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: components}}
	d, err := p.StartE(ctx, t, app)
	if err != nil && os.Getenv("CI") == "" && strings.Contains(err.Error(), local.ErrBackendMissing.Error()) {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	daprHTTP, err = d.Endpoint("app", perf.SidecarHTTP)
	require.NoError(t, err)
	daprGRPC, err = d.Endpoint("app", perf.SidecarGRPC)
	require.NoError(t, err)
	backends = map[perf.Backend]string{}
	for _, b := range d.Backends() {
		backends[b.Backend] = b.Address
	}
	return daprHTTP, daprGRPC, backends
}

// ConfigSidecar is Sidecar with a configuration.redis component named "configstore": daprd's
// HTTP base URL and gRPC host:port, and Redis's host:port.
func ConfigSidecar(t *testing.T) (daprHTTP, daprGRPC, redisAddr string) {
	t.Helper()
	daprHTTP, daprGRPC, backends := Sidecar(t, perf.Component{Name: "configstore", Type: perf.ConfigurationRedis})
	require.Contains(t, backends, perf.BackendRedis)
	return daprHTTP, daprGRPC, backends[perf.BackendRedis]
}
