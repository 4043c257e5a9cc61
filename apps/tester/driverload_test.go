package tester

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// TestDriverThroughTheTester runs each executor through Run, over HTTP and gRPC, with the
// same callers as fortio's path, and checks the result has fortio's shape plus the driver's
// figures.
func TestDriverThroughTheTester(t *testing.T) {
	for _, tc := range []struct {
		proto  perf.Protocol
		target func(testing.TB) string
	}{
		{perf.HTTP, func(t testing.TB) string { return httpApp(t, httpapp.Options{}) }},
		{perf.GRPC, func(t testing.TB) string { return grpcApp(t, grpcapp.Options{}) }},
	} {
		target := tc.target(t)
		for _, ex := range []driver.Executor{
			{Kind: driver.SharedIterations, VUs: 5, Iterations: 200, Duration: 10 * time.Second},
			{Kind: driver.ConstantArrivalRate, Rate: 100, Duration: time.Second, MaxVUs: 10},
			{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: 500 * time.Millisecond, Target: 4}, {Duration: 500 * time.Millisecond, Target: 4}}},
			{Kind: driver.ConstantVUs, VUs: 3, Duration: 500 * time.Millisecond},
		} {
			t.Run(string(tc.proto)+"/"+string(ex.Kind), func(t *testing.T) {
				p := load(t, tc.proto, target, 1, time.Minute)
				p.PayloadBytes = 100
				p.Executor = ex
				res, err := Run(t.Context(), p)
				require.NoError(t, err)
				assert.Zero(t, res.Errors(), "codes: %v", res.RetCodes)
				require.NotNil(t, res.Executor)
				assert.Equal(t, ex.Kind, res.Executor.Kind)
				assert.Equal(t, res.Requests, res.Executor.Iterations)
				assert.Equal(t, 3, res.Latency.SignificantDigits)
				assert.NotEmpty(t, res.Latency.HDR)
				assert.EqualValues(t, ex.PeakVUs(), res.Params.Connections, "a VU is a connection")
				assert.LessOrEqual(t, res.Sockets, int64(ex.PeakVUs()), "one connection per VU at most, no churn")
				assert.Equal(t, 100, res.Params.PayloadBytes)
				switch ex.Kind {
				case driver.SharedIterations:
					assert.EqualValues(t, 200, res.Requests, "exactly the shared iterations")
					assert.Nil(t, res.ResponseTime, "a closed loop has no schedule")
				case driver.ConstantArrivalRate:
					assert.EqualValues(t, 100, res.Requests+res.Executor.Dropped)
					assert.EqualValues(t, 100, res.Schedule.Scheduled)
					require.NotNil(t, res.ResponseTime, "an arrival rate is timed from each slot")
					assert.EqualValues(t, 100, res.RequestedQPS)
				default:
					assert.Positive(t, res.Requests)
					assert.Zero(t, res.RequestedQPS, "a closed loop has no target rate")
					assert.Equal(t, ex.PeakVUs(), res.Executor.MaxActiveVUs)
				}
			})
		}
	}
}

// TestPostTestWithAnExecutor: the handler runs the driver for a body with an executor, and
// a bad executor is a 400 naming the field.
func TestPostTestWithAnExecutor(t *testing.T) {
	app := httpApp(t, httpapp.Options{})
	h := openHandler(t, app)
	p := load(t, perf.HTTP, app, 1, time.Minute)
	p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: 2, Iterations: 20, Duration: 5 * time.Second}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	rec := request(t, h, http.MethodPost, "/test", string(b), "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var res perf.Result
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &res))
	assert.EqualValues(t, 20, res.Requests)
	require.NotNil(t, res.Executor)
	assert.EqualValues(t, 20, res.Executor.Scheduled)

	p.Executor = driver.Executor{Kind: driver.RampingVUs, VUs: 3}
	b, err = json.Marshal(p)
	require.NoError(t, err)
	rec = request(t, h, http.MethodPost, "/test", string(b), "")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	msg := reply(t, rec).Error
	assert.Contains(t, msg, "executor.stages = (0 stages)")
	assert.Contains(t, msg, `executor.vus: not a field of kind "ramping-vus"`)
}
