package tester

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// inMemoryComponents are Dapr's in-memory state store and pub/sub (components-contrib
// state.in-memory, pubsub.in-memory), named as the operations below use them.
const inMemoryComponents = `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: statestore
spec:
  type: state.in-memory
  version: v1
---
apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: pubsub
spec:
  type: pubsub.in-memory
  version: v1
`

// daprdWithComponents starts a real daprd (local.Daprd: the pinned build) with no app and the
// in-memory components, every socket on loopback, and returns its HTTP API's base URL and its
// gRPC API's host:port once /v1.0/healthz answers 204. The local platform cannot be given components yet, so the test
// starts daprd itself. The process is stopped (SIGTERM, then SIGKILL after 5 s) at the end of
// the test; its output is logged when the test fails.
func daprdWithComponents(t *testing.T) (httpBase, grpcAddr string) {
	t.Helper()
	bin, err := local.Daprd(perf.Env{})
	if errors.Is(err, local.ErrDaprdNotFound) {
		t.Skipf("no daprd binary (run make daprd): %v", err)
	}
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "components.yaml"), []byte(inMemoryComponents), 0o600))
	ports := freePorts(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin,
		"--app-id", "tester-ops", "--mode", "standalone",
		"--dapr-http-port", ports[0], "--dapr-grpc-port", ports[1], "--dapr-internal-grpc-port", ports[2],
		"--dapr-listen-addresses", "127.0.0.1", "--dapr-internal-grpc-listen-address", "127.0.0.1",
		"--enable-metrics=false", "--resources-path", dir, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "DAPR_HOST_IP=127.0.0.1")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("daprd output:\n%s", out.String())
		}
	})
	base := "http://127.0.0.1:" + ports[0]
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/v1.0/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusNoContent {
				return base, "127.0.0.1:" + ports[1]
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("daprd not healthy within 30 s (last: %s)\n%s", last, out.String())
	return "", ""
}

// freePorts returns n free loopback ports (listened on, then closed).
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		out = append(out, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
		defer ln.Close() // held until all are picked, so none repeats
	}
	return out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// get returns the status and body of GET url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestOperationsAgainstRealDaprd loads a real daprd v1.17 with each state and pub/sub
// operation, over HTTP and over gRPC (2 s at 100 QPS over 4 connections), and checks that
// every request succeeded and that the store holds what the loads did: the saved value, then
// nothing after the deletes.
func TestOperationsAgainstRealDaprd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daprd and runs 2 s loads")
	}
	httpBase, grpcAddr := daprdWithComponents(t)
	for _, proto := range []perf.Protocol{perf.HTTP, perf.GRPC} {
		target := map[perf.Protocol]string{perf.HTTP: httpBase, perf.GRPC: grpcAddr}[proto]
		t.Run(string(proto), func(t *testing.T) { testOperationsOn(t, proto, target, httpBase) })
	}
}

func testOperationsOn(t *testing.T, proto perf.Protocol, target, httpBase string) {
	run := func(t *testing.T, op perf.Operation, payload string) perf.Result {
		t.Helper()
		p := load(t, proto, target, 100, 2*time.Second)
		p.Connections, p.Payload, p.Operation = 4, payload, op
		res, err := Run(t.Context(), p)
		require.NoError(t, err)
		t.Logf("%s: %d requests, %.1f QPS, codes %v, baseline %s", op.Kind, res.Requests, res.ActualQPS, res.RetCodes, res.Baseline)
		assert.Zero(t, res.Errors(), "%s: codes %v", op.Kind, res.RetCodes)
		assert.InDelta(t, 200, res.Requests, 10, "%s: 100 QPS x 2 s", op.Kind)
		assert.Equal(t, perf.BaselineNoOp, res.Baseline, "Dapr's state and pub/sub baseline")
		return res
	}
	const value = `{"order":42}`
	key := "k-" + string(proto)
	store := perf.Operation{Store: "statestore", Key: key}
	t.Run("state.save", func(t *testing.T) {
		op := store
		op.Kind = perf.OpStateSave
		res := run(t, op, value)
		assert.Equal(t, len(value), res.Params.PayloadBytes)
		code, body := get(t, httpBase+"/v1.0/state/statestore/"+key)
		assert.Equal(t, http.StatusOK, code)
		assert.JSONEq(t, value, body, "the saved value, embedded as JSON")
	})
	t.Run("state.save unique keys", func(t *testing.T) {
		res := run(t, perf.Operation{Kind: perf.OpStateSave, Store: "statestore", Key: "order-{uuid}"}, "") // distinct keys: TestHTTPOperationShapes
		assert.Equal(t, int64(4), res.Sockets, "one connection each across daprd's 204 answers")
	})
	t.Run("state.get of keys never written", func(t *testing.T) {
		res := run(t, perf.Operation{Kind: perf.OpStateGet, Store: "statestore", Key: "missing-{uuid}"}, "")
		if proto == perf.HTTP {
			assert.Equal(t, res.Requests, res.RetCodes["204"], "daprd answers a missing key 204: %v", res.RetCodes)
		}
		assert.Equal(t, int64(4), res.Sockets, "one connection each across daprd's 204 answers")
	})
	t.Run("state.get", func(t *testing.T) {
		op := store
		op.Kind = perf.OpStateGet
		res := run(t, op, "")
		if proto == perf.HTTP {
			assert.Equal(t, res.Requests, res.RetCodes["200"], "every get found the key")
		}
	})
	t.Run("state.delete", func(t *testing.T) {
		op := store
		op.Kind = perf.OpStateDelete
		run(t, op, "")
		code, _ := get(t, httpBase+"/v1.0/state/statestore/"+key)
		assert.Equal(t, http.StatusNoContent, code, "deleted")
	})
	t.Run("publish", func(t *testing.T) {
		run(t, perf.Operation{Kind: perf.OpPublish, PubSub: "pubsub", Topic: "orders"}, value)
	})
	t.Run("publish.bulk", func(t *testing.T) {
		run(t, perf.Operation{Kind: perf.OpPublishBulk, PubSub: "pubsub", Topic: "orders", BulkEntries: 10}, value)
	})
	t.Run("missing store fails every request", func(t *testing.T) {
		p := load(t, proto, target, 50, time.Second)
		p.Connections, p.Operation = 2, perf.Operation{Kind: perf.OpStateGet, Store: "nostore", Key: "k"}
		res, err := Run(t.Context(), p)
		require.NoError(t, err)
		t.Logf("codes %v", res.RetCodes)
		assert.Equal(t, res.Requests, res.Errors(), "codes %v", res.RetCodes)
	})
}
