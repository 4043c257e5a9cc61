package main_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	commonv1 "github.com/dapr/dapr/pkg/proto/common/v1"
	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/apps/internal/apptest"
)

const pkg = "github.com/daprperf/daprperf/apps/grpcapp/cmd/grpcapp"

func TestCommand(t *testing.T) {
	bin := apptest.Build(t, pkg)
	t.Run("ServesAndStopsOnSIGTERM", func(t *testing.T) { testServesAndStops(t, bin) })
	t.Run("RejectsBadFlags", func(t *testing.T) { testRejectsBadFlags(t, bin) })
}

func testServesAndStops(t *testing.T, bin string) {
	p := apptest.Start(t, bin, "-delay", "1ms")

	conn, err := grpc.NewClient(p.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, conn.Close()) })
	resp, err := runtimev1.NewAppCallbackClient(conn).OnInvoke(t.Context(), &commonv1.InvokeRequest{Method: "test"})
	require.NoError(t, err)
	assert.Equal(t, []byte(grpcapp.Data), resp.GetData().GetValue())
	health, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	assert.Equal(t, healthpb.HealthCheckResponse_SERVING, health.GetStatus())

	assert.Equal(t, 0, p.Stop(t, 5*time.Second), "stderr: %s", p.Stderr())
}

func testRejectsBadFlags(t *testing.T, bin string) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fail-fraction", "2"}, "-fail-fraction"},
		{[]string{"-port", "-1"}, "-port"},
		{[]string{"-port", "65536"}, "-port"},
		{[]string{"-delay", "-1ms"}, "-delay"},
	} {
		code, stdout, stderr := apptest.Run(t, 5*time.Second, bin, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.Empty(t, stdout, "%v", tc.args)
	}
}
