package local_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	commonv1 "github.com/dapr/dapr/pkg/proto/common/v1"
	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/testers"
)

// TestInvokeHTTP: the caller's daprd reaches the callee's daprd by app id, through the
// template name resolver, and the callee app answers.
func TestInvokeHTTP(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		started := time.Now()
		d := p.Start(startCtx(t), t,
			withSidecar("caller", perf.HTTPApp, perf.HTTP),
			withSidecar("callee", perf.HTTPApp, perf.HTTP))

		sidecar := endpoint(t, d, "caller", perf.SidecarHTTP)
		code, body := get(t, sidecar+"/v1.0/invoke/callee/method/test")
		assert.Equal(t, http.StatusOK, code, body)
		assert.Equal(t, "ok", body)

		code, body = get(t, endpoint(t, d, "callee", perf.AppHTTP)+"/direct")
		assert.Equal(t, http.StatusOK, code, "the app directly: %s", body)

		assert.Equal(t, []string{"caller", "caller-daprd", "callee", "callee-daprd", "sentry"}, d.Processes(), "mTLS is on by default: sentry runs")
		assert.True(t, d.(perf.Secured).MTLS())
		log, err := os.ReadFile(filepath.Join(d.(*local.Deployment).RunDir(), "caller-daprd.log"))
		require.NoError(t, err)
		assert.Contains(t, string(log), "Security is initialized successfully", "daprd took its identity from sentry")
		// The credentials were written by a first sentry, so this one never reloads (sentry.go);
		// one that writes its own reloads 2.5 s after its start, and every 2 s after that.
		time.Sleep(time.Until(started.Add(4 * time.Second)))
		slog, err := os.ReadFile(filepath.Join(d.(*local.Deployment).RunDir(), "sentry.log"))
		require.NoError(t, err)
		assert.Contains(t, string(slog), "Root and issuer certs found")
		assert.NotContains(t, string(slog), "Issuer credentials changed")
		// The first sentry was stopped once it answered its health check, from a steady state.
		ilog, err := os.ReadFile(filepath.Join(d.(*local.Deployment).RunDir(), "sentry-init.log"))
		require.NoError(t, err)
		assert.Contains(t, string(ilog), "Sentry shut down gracefully")
		assert.Regexp(t, regexp.MustCompile(`^\d+\.\d+\.\d+`), d.DaprVersion())
		assert.Equal(t, p.DaprVersion(), d.DaprVersion())
		exits, err := d.Exits(t.Context())
		require.NoError(t, err)
		assert.Empty(t, exits)
	})
}

// TestInvokeHTTPWithoutMTLS: with mTLS off (DAPR_PERF_MTLS=off) no sentry runs and the
// sidecars still reach each other, in plain text.
func TestInvokeHTTPWithoutMTLS(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		d := p.Start(startCtx(t), t,
			withSidecar("caller", perf.HTTPApp, perf.HTTP),
			withSidecar("callee", perf.HTTPApp, perf.HTTP))
		code, body := get(t, endpoint(t, d, "caller", perf.SidecarHTTP)+"/v1.0/invoke/callee/method/test")
		assert.Equal(t, http.StatusOK, code, body)
		assert.Equal(t, []string{"caller", "caller-daprd", "callee", "callee-daprd"}, d.Processes())
		assert.False(t, d.(perf.Secured).MTLS())
	}, local.WithMTLS(false))
}

// TestTester: the tester, the caller of every scenario, starts with its sidecar and
// invokes the callee through it. It loads its own daprd and the callee's app port with the
// deployment's token, within its TesterLimits, and nothing else: not the callee's daprd, not
// without the token, not beyond the limits. The allow-list and the bounds are on its command
// line, the token only in its environment.
func TestTester(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		tester := withSidecar("tester", perf.Tester, perf.HTTP)
		tester.TesterLimits = &perf.TesterLimits{MaxQPS: 50, MaxConnections: 4, MaxDuration: 5 * time.Second}
		d := p.Start(startCtx(t), t, tester, withSidecar("callee", perf.HTTPApp, perf.HTTP))

		code, body := get(t, endpoint(t, d, "tester", perf.AppHTTP)+"/")
		assert.Equal(t, http.StatusOK, code, "the tester's health: %s", body)
		code, body = get(t, endpoint(t, d, "tester", perf.SidecarHTTP)+"/v1.0/invoke/callee/method/test")
		assert.Equal(t, http.StatusOK, code, body)

		client, err := testers.NewClient(d, "tester")
		require.NoError(t, err)
		require.Len(t, client.Token, 26)
		_, err = d.TesterToken("callee")
		assert.ErrorContains(t, err, "callee", "only a tester has a token")
		load := func(target string, qps int) perf.Params {
			p := perf.DefaultParams()
			p.Target, p.QPS, p.Connections, p.Duration = target, qps, 2, time.Second
			return p
		}
		through := endpoint(t, d, "tester", perf.SidecarHTTP) + "/v1.0/invoke/callee/method/test"
		direct := endpoint(t, d, "callee", perf.AppHTTP) + "/test"
		for _, target := range []string{through, direct} {
			res, err := testers.RunLoad(t.Context(), client, load(target, 20))
			require.NoError(t, err, target)
			assert.EqualValues(t, 20, res.Requests, target)
			assert.Zero(t, res.Errors(), target)
		}
		_, err = testers.RunLoad(t.Context(), testers.Client{URL: client.URL}, load(direct, 20))
		assert.ErrorContains(t, err, "401 Unauthorized", "no token")
		calleeSidecar := endpoint(t, d, "callee", perf.SidecarHTTP) + "/v1.0/invoke/callee/method/test"
		_, err = testers.RunLoad(t.Context(), client, load(calleeSidecar, 20))
		assert.ErrorContains(t, err, "403 Forbidden", "the callee's daprd is not the tester's to load")
		assert.ErrorContains(t, err, "not in the allow-list (flag -allow")
		_, err = testers.RunLoad(t.Context(), client, load(direct, 51))
		assert.ErrorContains(t, err, "400 Bad Request: tester: load beyond this deployment's bounds: qps = 51 exceeds the bound max QPS = 50 (flag -max-qps)")

		pid := d.(*local.Deployment).PID("tester")
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		require.NoError(t, err)
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		allow := "-allow=" + strings.Join([]string{
			strings.TrimPrefix(endpoint(t, d, "tester", perf.SidecarHTTP), "http://"),
			endpoint(t, d, "tester", perf.SidecarGRPC),
			strings.TrimPrefix(endpoint(t, d, "callee", perf.AppHTTP), "http://"),
		}, ",")
		assert.Equal(t, []string{allow, "-max-qps=50", "-max-connections=4", "-max-duration=5s"}, args[3:], "after the binary and -port N")
		assert.NotContains(t, string(cmdline), client.Token)
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		require.NoError(t, err)
		assert.Contains(t, strings.Split(string(environ), "\x00"), perf.EnvTesterToken+"="+client.Token)
	})
}

// TestInvokeGRPC: Dapr.InvokeService on the caller's daprd reaches the grpcapp's
// AppCallback.OnInvoke through the callee's daprd.
func TestInvokeGRPC(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		d := p.Start(startCtx(t), t,
			withSidecar("caller", perf.HTTPApp, perf.HTTP),
			withSidecar("callee", perf.GRPCApp, perf.GRPC))

		conn, err := grpc.NewClient(endpoint(t, d, "caller", perf.SidecarGRPC),
			grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close() })

		data, err := anypb.New(wrapperspb.Bytes([]byte("ping")))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_, err = runtimev1.NewDaprClient(conn).InvokeService(ctx, &runtimev1.InvokeServiceRequest{
			Id: "callee",
			Message: &commonv1.InvokeRequest{
				Method:        "test",
				Data:          data,
				HttpExtension: &commonv1.HTTPExtension{Verb: commonv1.HTTPExtension_POST},
			},
		})
		require.NoError(t, err)

		_, err = d.Endpoint("callee", perf.AppHTTP)
		assert.ErrorContains(t, err, "callee", "a grpcapp has no HTTP endpoint")
		assert.Regexp(t, `^127\.0\.0\.1:\d+$`, endpoint(t, d, "callee", perf.AppGRPC))
	})
}

// TestUsage: both sidecars and the callee app report RSS, and their CPU time rises across
// a short load through the sidecars.
func TestUsage(t *testing.T) {
	const (
		requests = 2000
		workers  = 8
	)
	isolated(t, func(t *testing.T, p *local.Platform) {
		d := p.Start(startCtx(t), t,
			withSidecar("caller", perf.HTTPApp, perf.HTTP),
			withSidecar("callee", perf.HTTPApp, perf.HTTP))
		watched := []string{"caller-daprd", "callee-daprd", "callee"}

		before, err := d.Usage(t.Context())
		require.NoError(t, err)
		for _, name := range watched {
			assert.Positive(t, before[name].RSSBytes, "RSS of %s", name)
		}

		url := endpoint(t, d, "caller", perf.SidecarHTTP) + "/v1.0/invoke/callee/method/load"
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		var sent, failed atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range workers {
			wg.Go(func() {
				for sent.Add(1) <= requests && ctx.Err() == nil {
					if !invoke(ctx, url) {
						failed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		require.NoError(t, ctx.Err(), "%d requests did not finish in time", requests)
		assert.Zero(t, failed.Load(), "failed requests")
		t.Logf("%d requests on %d goroutines in %v", requests, workers, elapsed.Round(time.Millisecond))

		after, err := d.Usage(t.Context())
		require.NoError(t, err)
		for _, name := range watched {
			assert.Greater(t, after[name].CPUSeconds, before[name].CPUSeconds, "CPU seconds of %s", name)
			assert.Positive(t, after[name].RSSBytes, "RSS of %s", name)
			t.Logf("%s: CPU %.2f s -> %.2f s, RSS %d MiB -> %d MiB", name,
				before[name].CPUSeconds, after[name].CPUSeconds, before[name].RSSBytes>>20, after[name].RSSBytes>>20)
		}
	})
}

// loadClient keeps connections alive across the load's requests.
var loadClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

// invoke does one GET and reports whether it got a 200.
func invoke(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := loadClient.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// TestKillShowsInExits: a sidecar killed mid-test is reported by Exits, by name.
func TestKillShowsInExits(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		d := p.Start(startCtx(t), t,
			withSidecar("caller", perf.HTTPApp, perf.HTTP),
			withSidecar("callee", perf.HTTPApp, perf.HTTP))
		dep := d.(*local.Deployment)
		pid := dep.PID("callee-daprd")
		require.Positive(t, pid)

		require.NoError(t, dep.Kill("callee-daprd"))

		var exits []perf.Exit
		require.Eventually(t, func() bool {
			var err error
			exits, err = d.Exits(t.Context())
			return err == nil && len(exits) > 0
		}, 5*time.Second, 50*time.Millisecond)
		require.Len(t, exits, 1)
		assert.Equal(t, "callee-daprd", exits[0].Process)
		assert.Equal(t, "signal SIGKILL", exits[0].Reason)
		assert.WithinDuration(t, time.Now(), exits[0].At, 10*time.Second)

		_, err := d.Usage(t.Context())
		assert.ErrorContains(t, err, "callee-daprd", "usage of a dead process is an error naming it")
		assert.Error(t, dep.Kill("callee-daprd"), "killing it twice")
		assert.ErrorContains(t, dep.Kill("nobody"), "nobody")
	})
}

// TestEndpoints: what each app serves, and errors naming what is missing.
func TestEndpoints(t *testing.T) {
	isolated(t, func(t *testing.T, p *local.Platform) {
		callee := perf.App{Name: "callee", Kind: perf.HTTPApp,
			Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, DisableMetrics: true, Profiling: true,
				Config: map[string]any{"metric": map[string]any{"http": map[string]any{"increasedCardinality": false}}}}}
		plain := perf.App{Name: "plain", Kind: perf.HTTPApp}
		d := p.Start(startCtx(t), t, callee, plain)

		_, err := d.Endpoint("callee", perf.SidecarMetrics)
		assert.ErrorContains(t, err, "metrics are disabled")
		prof := endpoint(t, d, "callee", perf.SidecarProfile)
		code, _ := get(t, prof+"/debug/pprof/")
		assert.Equal(t, http.StatusOK, code, "pprof index")
		_, err = d.Endpoint("plain", perf.SidecarHTTP)
		assert.ErrorContains(t, err, "plain")
		assert.ErrorContains(t, err, "no sidecar")
		_, err = d.Endpoint("ghost", perf.AppHTTP)
		assert.ErrorContains(t, err, "ghost")
		assert.Equal(t, []string{"callee", "callee-daprd", "plain", "sentry"}, d.Processes())

		cfg, err := os.ReadFile(filepath.Join(d.(*local.Deployment).RunDir(), "callee-config.yaml"))
		require.NoError(t, err)
		assert.Contains(t, string(cfg), `"increasedCardinality": false`)
		assert.Contains(t, string(cfg), `"component": "kubernetes"`)
	})
}
