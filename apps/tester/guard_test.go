package tester

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/apps/grpcapp"
	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// testToken is a token of the length perf.NewTesterToken makes.
const testToken = "TESTTOKENTESTTOKENTESTTOKE"

// request sends method path with body and, when token is set, the Authorization header, to h.
func request(t *testing.T, h http.Handler, method, path, body, token string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// reply decodes rec's ErrorReply, asserting its status matches the answer's.
func reply(t *testing.T, rec *httptest.ResponseRecorder) ErrorReply {
	t.Helper()
	var r ErrorReply
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), rec.Body.String())
	assert.Equal(t, rec.Code, r.Status)
	return r
}

// body is the JSON of a 1 s, 10 QPS, 1-connection load of proto to target.
func body(t *testing.T, proto perf.Protocol, target string) string {
	t.Helper()
	p := load(t, proto, target, 10, time.Second)
	p.Connections = 1
	b, err := json.Marshal(p)
	require.NoError(t, err)
	return string(b)
}

func TestTargetOutsideTheAllowListIs403(t *testing.T) {
	app := httpApp(t, httpapp.Options{}) // http://127.0.0.1:<port>/test
	grpcTarget := grpcApp(t, grpcapp.Options{})
	_, appPort, err := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(app, "http://"), "/test"))
	require.NoError(t, err)
	allow, err := NewAllowList("flag -allow", "127.0.0.1:"+appPort+","+grpcTarget, "testapp.daprperf-x.svc:3000")
	require.NoError(t, err)
	h, err := NewHandler(Config{Allow: allow})
	require.NoError(t, err)

	for _, tc := range []struct {
		name   string
		proto  perf.Protocol
		target string
		want   string // in the 403 error; "" means allowed (200)
	}{
		{"allowed http", perf.HTTP, app, ""},
		{"allowed http, other spelling", perf.HTTP, "http://[::ffff:127.0.0.1]:0" + appPort + "/test", ""},
		{"allowed grpc", perf.GRPC, grpcTarget, ""},
		{"other host", perf.HTTP, "http://192.0.2.1:" + appPort + "/test", `"http://192.0.2.1:` + appPort + `/test" (192.0.2.1:` + appPort + `) is not in the allow-list (flag -allow; 3 addresses`},
		{"other port", perf.HTTP, "http://127.0.0.1:1/test", "(127.0.0.1:1) is not in the allow-list (flag -allow"},
		{"default port 80", perf.HTTP, "http://127.0.0.1/test", "(127.0.0.1:80) is not in the allow-list"},
		{"https default port", perf.HTTP, "https://testapp.daprperf-x.svc/", "(testapp.daprperf-x.svc:443) is not in the allow-list"},
		{"userinfo that looks like a host", perf.HTTP, "http://127.0.0.1:" + appPort + "@192.0.2.1:80/", "(192.0.2.1:80) is not in the allow-list"},
		{"localhost is not 127.0.0.1", perf.HTTP, "http://localhost:" + appPort + "/test", "(localhost:" + appPort + ") is not in the allow-list"},
		{"grpc other address", perf.GRPC, "192.0.2.1:50001", "(192.0.2.1:50001) is not in the allow-list"},
		{"grpc dns scheme", perf.GRPC, "dns:192.0.2.1:80", `gRPC resolver scheme "dns": must be a plain host:port`},
		{"grpc unix scheme", perf.GRPC, "unix:80", `gRPC resolver scheme "unix"`},
		{"grpc passthrough scheme", perf.GRPC, "passthrough:" + grpcTarget, `gRPC resolver scheme "passthrough"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := request(t, h, http.MethodPost, "/test", body(t, tc.proto, tc.target), "")
			if tc.want == "" {
				assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				return
			}
			assert.Equal(t, http.StatusForbidden, rec.Code)
			assert.Contains(t, reply(t, rec).Error, tc.want)
		})
	}
	t.Run("no allow-list", func(t *testing.T) {
		none, err := NewHandler(Config{})
		require.NoError(t, err)
		rec := request(t, none, http.MethodPost, "/test", body(t, perf.HTTP, app), "")
		assert.Equal(t, http.StatusForbidden, rec.Code)
		assert.Contains(t, reply(t, rec).Error, "not in the allow-list (none given; 0 addresses")
	})
}

func TestNormalizeAddr(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"127.0.0.1:3500", "127.0.0.1:3500", ""},
		{"127.0.0.1:03500", "127.0.0.1:3500", ""},
		{"[::ffff:127.0.0.1]:80", "127.0.0.1:80", ""},
		{"[0:0::1]:80", "[::1]:80", ""},
		{"TestApp.Daprperf-ab12c.svc.:3000", "testapp.daprperf-ab12c.svc:3000", ""},
		{"127.0.0.1", "", "not host:port"},
		{"127.0.0.1:0", "", `port "0": must be from 1 to 65535`},
		{"127.0.0.1:65536", "", `port "65536"`},
		{"127.0.0.1:http", "", `port "http"`},
		{":80", "", "empty host"},
		{"a/b:80", "", "not an IP address or a host name"},
	} {
		got, err := NormalizeAddr(tc.in)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		assert.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	_, err := NewAllowList("env "+perf.EnvTesterAllow, "127.0.0.1:3500,nope")
	assert.ErrorContains(t, err, `allow-list (env DAPRPERF_TESTER_ALLOW): entry "nope": not host:port`)
	_, err = TargetAddr(perf.Params{Protocol: perf.HTTP, Target: "ftp://127.0.0.1:21/"})
	assert.ErrorContains(t, err, `scheme "ftp": must be http or https`, "an unknown scheme is refused")
}

func TestTokenOnANonLoopbackBind(t *testing.T) {
	app := httpApp(t, httpapp.Options{})
	secured, err := NewHandler(Config{Allow: allowing(t, app), Token: testToken, Host: "0.0.0.0"})
	require.NoError(t, err)
	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Bearer " + strings.ToLower(testToken), http.StatusUnauthorized},
		{"token without its scheme", testToken, http.StatusUnauthorized},
		{"token with another scheme", "Basic " + testToken, http.StatusUnauthorized},
		{"a prefix of the token", "Bearer " + testToken[:20], http.StatusUnauthorized},
		{"the token", "Bearer " + testToken, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := request(t, secured, http.MethodPost, "/test", body(t, perf.HTTP, app), tc.auth)
			require.Equal(t, tc.want, rec.Code, rec.Body.String())
			if tc.want == http.StatusUnauthorized {
				assert.Equal(t, `Bearer realm="daprperf-tester"`, rec.Header().Get("WWW-Authenticate"))
				assert.Contains(t, reply(t, rec).Error, "needs this run's token")
				assert.NotContains(t, rec.Body.String(), testToken)
			}
		})
	}
	t.Run("the token is checked before the body is read", func(t *testing.T) {
		rec := request(t, secured, http.MethodPost, "/test", strings.Repeat("x", MaxRequestBytes+1), "")
		assert.Equal(t, http.StatusUnauthorized, rec.Code)
	})
	t.Run("health needs no token and tells nothing", func(t *testing.T) {
		rec := request(t, secured, http.MethodGet, "/", "", "")
		assert.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, "ok", rec.Body.String(), "no allow-list, bounds or token in the health answer")
	})
	t.Run("a token set on loopback is required too", func(t *testing.T) {
		h, err := NewHandler(Config{Allow: allowing(t, app), Token: testToken, Host: "127.0.0.1"})
		require.NoError(t, err)
		assert.Equal(t, http.StatusUnauthorized, request(t, h, http.MethodPost, "/test", body(t, perf.HTTP, app), "").Code)
	})
	for _, host := range []string{"0.0.0.0", "::", "192.0.2.7"} {
		t.Run("no token on "+host+" is refused at start-up", func(t *testing.T) {
			_, err := NewHandler(Config{Allow: allowing(t, app), Host: host})
			assert.ErrorContains(t, err, "not loopback, needs a token (env DAPRPERF_TESTER_TOKEN)")
		})
	}
	for _, host := range []string{"", "127.0.0.1", "127.0.0.2", "::1"} {
		h, err := NewHandler(Config{Allow: allowing(t, app), Host: host})
		require.NoError(t, err, "loopback %q needs no token", host)
		assert.Equal(t, http.StatusOK, request(t, h, http.MethodPost, "/test", body(t, perf.HTTP, app), "").Code, "loopback %q", host)
	}
}

func TestLoadBeyondTheBoundsIs400(t *testing.T) {
	app := httpApp(t, httpapp.Options{})
	limits := Limits{
		TesterLimits: perf.TesterLimits{MaxQPS: 100, MaxConnections: 4, MaxDuration: 10 * time.Second, MaxIterations: 50},
		QPSSource:    "flag -max-qps", ConnectionsSource: "env " + perf.EnvTesterMaxConnections, DurationSource: "flag -max-duration",
		IterationsSource: "flag -max-iterations",
	}
	h, err := NewHandler(Config{Allow: allowing(t, app), Limits: limits})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		edit func(*perf.Params)
		want []string // each in the 400 error; none means within the bounds (200)
	}{
		{"at the bounds", func(p *perf.Params) { p.QPS, p.Connections, p.Duration = 100, 4, time.Second }, nil},
		{"qps", func(p *perf.Params) { p.QPS = 101 }, []string{"qps = 101 exceeds the bound max QPS = 100 (flag -max-qps)"}},
		{"max rate", func(p *perf.Params) { p.MaxRate = true }, []string{"maxRate = true: an unbounded rate exceeds the bound max QPS = 100 (flag -max-qps)"}},
		{"connections", func(p *perf.Params) { p.Connections = 5 }, []string{"connections = 5 exceeds the bound max connections = 4 (env DAPRPERF_TESTER_MAX_CONNECTIONS)"}},
		{"duration", func(p *perf.Params) { p.Duration = 11 * time.Second }, []string{"duration = 11s exceeds the bound max duration = 10s (flag -max-duration)"}},
		{"all three at once", func(p *perf.Params) { p.QPS, p.Connections, p.Duration = 1_000_000, 10_000, 24*time.Hour },
			[]string{"max QPS = 100", "max connections = 4", "max duration = 10s"}},
		{"executor at the bounds", func(p *perf.Params) {
			p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: 4, Iterations: 50, Duration: 2 * time.Second, GracefulStop: time.Second}
		}, nil},
		{"executor VUs", func(p *perf.Params) {
			p.Executor = driver.Executor{Kind: driver.ConstantVUs, VUs: 5, Duration: time.Second, GracefulStop: time.Second}
		}, []string{"executor (constant-vus): 5 VUs exceed the bound max connections = 4 (env DAPRPERF_TESTER_MAX_CONNECTIONS)"}},
		{"executor iterations", func(p *perf.Params) {
			p.Executor = driver.Executor{Kind: driver.SharedIterations, VUs: 1, Iterations: 51, Duration: time.Second, GracefulStop: time.Second}
		}, []string{"51 planned iterations exceed the bound max iterations = 50 (flag -max-iterations)"}},
		{"executor rate", func(p *perf.Params) {
			p.Executor = driver.Executor{Kind: driver.ConstantArrivalRate, Rate: 101, Duration: 100 * time.Millisecond, MaxVUs: 1, GracefulStop: time.Second}
		}, []string{"executor.rate = 101 exceeds the bound max QPS = 100 (flag -max-qps)"}},
		{"executor duration", func(p *perf.Params) {
			p.Executor = driver.Executor{Kind: driver.RampingVUs, Stages: []driver.Stage{{Duration: 9 * time.Second, Target: 2}}}
		}, []string{"schedule plus graceful stop = 39s exceeds the bound max duration = 10s (flag -max-duration)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := load(t, perf.HTTP, app, 10, time.Second)
			p.Connections = 1
			tc.edit(&p)
			b, err := json.Marshal(p)
			require.NoError(t, err)
			rec := request(t, h, http.MethodPost, "/test", string(b), "")
			if tc.want == nil {
				assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				return
			}
			require.Equal(t, http.StatusBadRequest, rec.Code)
			msg := reply(t, rec).Error
			assert.Contains(t, msg, "beyond this deployment's bounds")
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
		})
	}
	t.Run("no bounds given: the absolute limits, max rate allowed", func(t *testing.T) {
		l := withDefaults(Limits{})
		assert.Equal(t, perf.TesterLimits{MaxQPS: perf.MaxQPS, MaxConnections: perf.MaxConnections, MaxDuration: perf.MaxDuration, MaxIterations: driver.MaxIterations}, l.TesterLimits)
		assert.NoError(t, l.Check(perf.Params{MaxRate: true, Connections: perf.MaxConnections, Duration: perf.MaxDuration}))
	})
}

func TestOversizedBodyIs413(t *testing.T) {
	h := openHandler(t, "127.0.0.1:1")
	big := `{"target":"http://127.0.0.1:1/","payload":"` + strings.Repeat("x", MaxRequestBytes) + `"}`
	for _, tc := range []struct {
		name string
		body io.Reader
	}{
		{"with its length", strings.NewReader(big)},
		{"streamed, length unknown", io.MultiReader(strings.NewReader(big))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/test", tc.body)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
			assert.Contains(t, reply(t, rec).Error, fmt.Sprintf("request body over %d bytes", MaxRequestBytes))
		})
	}
	t.Run("a payload at the limit is not 413", func(t *testing.T) {
		p := load(t, perf.HTTP, "http://127.0.0.1:1/", 10, time.Second)
		p.Payload = strings.Repeat("x", perf.MaxPayloadBytes)
		p.QPS = perf.MaxQPS + 1 // a 400 answer, without a run
		b, err := json.Marshal(p)
		require.NoError(t, err)
		rec := request(t, h, http.MethodPost, "/test", string(b), "")
		assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	})
}

// testTimeouts are short server timeouts for the slow-client tests.
var testTimeouts = Timeouts{ReadHeader: 300 * time.Millisecond, Read: 600 * time.Millisecond, Write: 600 * time.Millisecond, Idle: time.Second}

// testServer serves h with to on loopback and returns its host:port.
func testServer(t *testing.T, h http.Handler, to Timeouts) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config = NewServer(h, to)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// closedWithin reads conn until the server closes it and returns how long that took, failing t
// when it is still open after limit. It returns what the server wrote before closing.
func closedWithin(t *testing.T, conn net.Conn, start time.Time, limit time.Duration) (time.Duration, string) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(start.Add(limit)))
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection is still open after %v; read so far: %q", limit, got)
	}
	return time.Since(start), string(got)
}

func TestSlowClientIsCutOff(t *testing.T) {
	app := httpApp(t, httpapp.Options{})
	h, err := NewHandler(Config{Allow: allowing(t, app), Token: testToken})
	require.NoError(t, err)
	addr := testServer(t, h, testTimeouts)
	dial := func(t *testing.T) net.Conn {
		t.Helper()
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close() })
		return conn
	}

	t.Run("headers that never end", func(t *testing.T) {
		conn := dial(t)
		start := time.Now()
		_, err := io.WriteString(conn, "POST /test HTTP/1.1\r\nHost: tester\r\nAuthorization: Bearer "+testToken+"\r\n")
		require.NoError(t, err)
		took, _ := closedWithin(t, conn, start, 3*time.Second)
		assert.GreaterOrEqual(t, took, testTimeouts.ReadHeader-50*time.Millisecond, "not before the header timeout")
		t.Logf("cut off after %v (header timeout %v)", took.Round(time.Millisecond), testTimeouts.ReadHeader)
	})
	t.Run("a body sent one byte at a time", func(t *testing.T) {
		conn := dial(t)
		start := time.Now()
		_, err := fmt.Fprintf(conn, "POST /test HTTP/1.1\r\nHost: tester\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n{", testToken)
		require.NoError(t, err)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { // 1000 bytes at 10 per second would take 100 s
			defer close(done)
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for range 1000 {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := io.WriteString(conn, " "); err != nil {
						return
					}
				}
			}
		}()
		took, answer := closedWithin(t, conn, start, 3*time.Second)
		close(stop)
		<-done
		assert.GreaterOrEqual(t, took, testTimeouts.Read-50*time.Millisecond, "not before the read timeout")
		if answer != "" { // the handler saw the timeout and answered before the close
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(answer)), nil)
			require.NoError(t, err, answer)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, answer)
		}
		t.Logf("cut off after %v (read timeout %v), answer %q", took.Round(time.Millisecond), testTimeouts.Read, strings.SplitN(answer, "\r\n", 2)[0])
	})
	t.Run("an idle kept-alive connection", func(t *testing.T) {
		conn := dial(t)
		_, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: tester\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		closedWithin(t, conn, time.Now(), testTimeouts.Idle+2*time.Second)
	})
	t.Run("a run longer than the timeouts is not cut off", func(t *testing.T) {
		// 2 s of load over one connection: past both the read and the write timeout.
		p := load(t, perf.HTTP, app, 20, 2*time.Second)
		p.Connections = 1
		b, err := json.Marshal(p)
		require.NoError(t, err)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/test", strings.NewReader(string(b)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+testToken)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var res perf.Result
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&res))
		assert.Greater(t, time.Since(start), testTimeouts.Read+testTimeouts.Write)
		assert.EqualValues(t, 40, res.Requests, "the whole run, answered after the server's timeouts")
	})
}

// An awaiting load's subscriber must be in the allow-list too: the tester would call it on
// every iteration.
func TestAwaitURLOutsideTheAllowListIsRefused(t *testing.T) {
	allow, err := NewAllowList("flag -allow", "127.0.0.1:3500,127.0.0.1:3001")
	require.NoError(t, err)
	p := perf.Params{Protocol: perf.HTTP, Target: "http://127.0.0.1:3500"}
	p.Await = &perf.Await{URL: "http://127.0.0.1:3001", Run: "r", Timeout: time.Second}
	assert.NoError(t, allow.Check(p))
	p.Await.URL = "http://127.0.0.2:3001"
	var te *TargetError
	require.ErrorAs(t, allow.Check(p), &te)
	assert.Equal(t, "127.0.0.2:3001", te.Addr)
}
