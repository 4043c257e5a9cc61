package local

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// TestEachDaprdStartsAfterEveryAppIsReady: StartE starts no daprd before every app has passed
// its health check. A daprd started before its gRPC app refuses calls for about 1 s after it
// reports ready (launchSidecars says why): without this order TestInvokeGRPC fails that way.
func TestEachDaprdStartsAfterEveryAppIsReady(t *testing.T) {
	p, err := New(WithRunDirParent(t.TempDir()), WithoutDaprdB())
	if errors.Is(err, ErrDaprdNotFound) && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	d, err := p.StartE(ctx, t,
		perf.App{Name: "caller", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP}},
		perf.App{Name: "callee", Kind: perf.GRPCApp, Sidecar: &perf.Sidecar{AppProtocol: perf.GRPC}})
	require.NoError(t, err)

	var lastAppReady time.Time
	for _, da := range d.apps {
		require.False(t, da.proc.ready.IsZero(), "%s: no health check passed", da.app.Name)
		if da.proc.ready.After(lastAppReady) {
			lastAppReady = da.proc.ready
		}
	}
	for _, da := range d.apps {
		require.NotNil(t, da.daprd, "%s: no daprd", da.app.Name)
		assert.True(t, da.daprd.started.After(lastAppReady), "%s started %v, before the last app was ready (%v)",
			da.daprd.name, da.daprd.started.Format(time.StampMicro), lastAppReady.Format(time.StampMicro))
		assert.False(t, da.daprd.ready.IsZero(), "%s: /v1.0/healthz never answered", da.daprd.name)
	}
}
