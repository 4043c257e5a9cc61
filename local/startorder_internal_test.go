package local

import (
	"context"
	"errors"
	"fmt"
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

// TestOneDaprdMigratesPostgreSQLBeforeTheOthersStart: with several daprd on one PostgreSQL
// component, the first answers its health check before any other starts (migratesFirst: the
// component's CREATE TABLE IF NOT EXISTS fails when run at once), and all of them come up.
func TestOneDaprdMigratesPostgreSQLBeforeTheOthersStart(t *testing.T) {
	p, err := New(WithRunDirParent(t.TempDir()), WithoutDaprdB())
	if errors.Is(err, ErrDaprdNotFound) && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	skipWithoutBackend(t, perf.BackendPostgreSQL)
	store := perf.Component{Name: "statestore", Type: perf.StatePostgreSQL}
	var apps []perf.App
	for _, name := range []string{"app-0", "app-1", "app-2", "app-3"} {
		apps = append(apps, perf.App{Name: name, Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: []perf.Component{store}}})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	d, err := p.StartE(ctx, t, apps...)
	require.NoError(t, err)
	slots := d.sidecarSlots()
	require.Equal(t, "app-0-daprd", slots[migratesFirst(slots)].name)
	first := d.apps[0].daprd
	require.False(t, first.ready.IsZero(), "app-0-daprd: /v1.0/healthz never answered")
	for _, da := range d.apps[1:] {
		require.NotNil(t, da.daprd, "%s: no daprd", da.app.Name)
		assert.True(t, da.daprd.started.After(first.ready), "%s started %v, before app-0-daprd was ready (%v)",
			da.daprd.name, da.daprd.started.Format(time.StampMicro), first.ready.Format(time.StampMicro))
		assert.False(t, da.daprd.ready.IsZero(), "%s: /v1.0/healthz never answered", da.daprd.name)
	}
}

// TestMigratesFirstOnlyWithTwoOrMoreOnPostgreSQL: one daprd on PostgreSQL, or none, starts with
// the others.
func TestMigratesFirstOnlyWithTwoOrMoreOnPostgreSQL(t *testing.T) {
	pg := perf.Component{Name: "statestore", Type: perf.StatePostgreSQL}
	redis := perf.Component{Name: "statestore", Type: perf.StateRedis}
	first := func(comps ...[]perf.Component) string {
		d := &Deployment{}
		for i, c := range comps {
			a := perf.App{Name: fmt.Sprintf("app-%d", i), Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: c}}
			d.apps = append(d.apps, &deployedApp{app: a, sidecar: &sidecarPorts{}})
		}
		slots := d.sidecarSlots()
		if i := migratesFirst(slots); i >= 0 {
			return slots[i].name
		}
		return ""
	}
	assert.Equal(t, "", first([]perf.Component{redis}, []perf.Component{pg}), "one on PostgreSQL")
	assert.Equal(t, "", first([]perf.Component{redis}, []perf.Component{redis}), "none")
	assert.Equal(t, "app-1-daprd", first(nil, []perf.Component{pg}, []perf.Component{pg}))
}
