package tester

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/local"
	"github.com/daprperf/daprperf/perf"
)

// redisPubSubDeployment starts, on the local platform, one httpapp with a daprd loading
// pubsub.redis as "pubsub" and the Redis server it needs; it returns the deployment and the
// Redis address. Without daprd or redis-server it skips, unless $CI is set.
func redisPubSubDeployment(t *testing.T) (perf.Deployment, string) {
	t.Helper()
	p, err := local.New(local.WithoutDaprdB())
	if errors.Is(err, local.ErrDaprdNotFound) && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dep, err := p.StartE(ctx, t, perf.App{Name: "pub", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP,
		Components: []perf.Component{{Name: "pubsub", Type: perf.PubSubRedis}}}})
	if err != nil && os.Getenv("CI") == "" && strings.Contains(err.Error(), local.ErrBackendMissing.Error()) {
		t.Skipf("skipping: %v", err)
	}
	require.NoError(t, err)
	for _, b := range dep.Backends() {
		if b.Backend == perf.BackendRedis {
			return dep, b.Address
		}
	}
	t.Fatal("the deployment reports no redis backend")
	return nil, ""
}

// TestPublishToRealRedis drives each publish caller of the tester for one second against a
// real daprd with pubsub.redis, and the direct XADD publisher against the same Redis, then reads
// the streams back: every successful request's events are there, no more, and a raw event's
// "data" is the payload byte for byte; with CloudEvents, daprd's envelope carries the payload
// as its "data". The direct publisher's entries have the same fields as daprd's.
func TestPublishToRealRedis(t *testing.T) {
	dep, redisAddr := redisPubSubDeployment(t)
	httpBase, err := dep.Endpoint("pub", perf.SidecarHTTP)
	require.NoError(t, err)
	grpcAddr, err := dep.Endpoint("pub", perf.SidecarGRPC)
	require.NoError(t, err)
	rc := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { _ = rc.Close() })
	// Not JSON (published as text/plain), with characters JSON escapes; valid UTF-8, since the
	// bulk body and the CloudEvent are JSON, which cannot carry other bytes as they are.
	const payload = "event-payload 0123456789 \"quoted\" \\ <tag> & \u00fc\u20ac\x01 end"

	cases := []struct {
		name   string
		proto  perf.Protocol
		target string
		op     perf.Operation
	}{
		{"http publish raw", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublish, RawPayload: true}},
		{"http publish cloudevents", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublish}},
		{"http publish raw x3", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublish, RawPayload: true, Repeat: 3}},
		{"http bulk of 4 raw", perf.HTTP, httpBase, perf.Operation{Kind: perf.OpPublishBulk, RawPayload: true, BulkEntries: 4}},
		{"grpc publish raw", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublish, RawPayload: true}},
		{"grpc publish raw x3", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublish, RawPayload: true, Repeat: 3}},
		{"grpc bulk of 4 cloudevents", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublishBulk, BulkEntries: 4}},
		{"grpc bulk of 4 raw", perf.GRPC, grpcAddr, perf.Operation{Kind: perf.OpPublishBulk, RawPayload: true, BulkEntries: 4}},
		{"direct xadd", perf.GRPC, redisAddr, perf.Operation{Kind: perf.OpPublish, Direct: perf.BackendRedis, Baseline: perf.BaselineStore}},
		{"direct xadd x3", perf.GRPC, redisAddr, perf.Operation{Kind: perf.OpPublish, Direct: perf.BackendRedis, Baseline: perf.BaselineStore, Repeat: 3}},
		{"direct xadd bulk of 4", perf.GRPC, redisAddr, perf.Operation{Kind: perf.OpPublishBulk, Direct: perf.BackendRedis, Baseline: perf.BaselineStore, BulkEntries: 4}},
	}
	daprdFields := map[perf.OperationKind][]string{} // the field names of daprd's entries
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topic := fmt.Sprintf("topic-%d", i)
			c.op.PubSub, c.op.Topic = "pubsub", topic
			p := perf.DefaultParams()
			p.Protocol, p.Target, p.Operation = c.proto, c.target, c.op
			p.QPS, p.Connections, p.Duration, p.Payload = 20, 2, time.Second, payload
			res, err := Run(t.Context(), p)
			require.NoError(t, err)
			require.Positive(t, res.Requests)
			assert.Zero(t, res.Errors(), "codes %v", res.RetCodes)
			assert.Equal(t, c.op.BaselineKind(), res.Baseline)

			entries, err := rc.XRange(t.Context(), topic, "-", "+").Result()
			require.NoError(t, err)
			// fortio's own HTTP runner (every HTTP kind but a publish with Repeat) sends one
			// untimed request per connection before the run (fhttp.RunHTTPTest): its events are
			// in the stream too.
			sent := int(res.Requests)
			if c.proto == perf.HTTP && c.op.Repeat <= 1 {
				sent += p.Connections
			}
			want := sent * c.op.EventsPerRequest()
			require.Len(t, entries, want, "%d requests (%d timed) of %d events in stream %s", sent, res.Requests, c.op.EventsPerRequest(), topic)
			raw := c.op.RawPayload || c.op.Direct != ""
			for _, e := range entries {
				data, ok := e.Values["data"].(string)
				require.True(t, ok, "entry %s has a data field: %v", e.ID, e.Values)
				if raw {
					require.Equal(t, payload, data, "entry %s: the raw payload byte for byte", e.ID)
				} else {
					var ce struct {
						SpecVersion string `json:"specversion"`
						Topic       string `json:"topic"`
						Data        string `json:"data"`
					}
					require.NoError(t, json.Unmarshal([]byte(data), &ce), "entry %s: a CloudEvent: %q", e.ID, data)
					assert.Equal(t, "1.0", ce.SpecVersion)
					assert.Equal(t, topic, ce.Topic)
					require.Equal(t, payload, ce.Data, "entry %s: the CloudEvent's data is the payload", e.ID)
				}
			}
			// daprd's single publishes write "data" and "metadata" (the JSON of the request's
			// metadata: {} or {"rawPayload":"true"}); its bulk publishes with CloudEvents the
			// same, raw ones "data" only. The direct publisher writes daprd's single-publish
			// fields, with metadata {}.
			fields := sortedKeys(entries[0].Values)
			switch {
			case c.op.Direct != "":
				assert.Equal(t, []string{"data", "metadata"}, fields)
				assert.Equal(t, redisEntryMetadata, entries[0].Values["metadata"])
				if f, ok := daprdFields[perf.OpPublish]; ok {
					assert.Equal(t, f, fields, "the direct publisher writes the fields of daprd's publish")
				}
			case c.op.Kind == perf.OpPublish:
				daprdFields[perf.OpPublish] = fields
				assert.Equal(t, []string{"data", "metadata"}, fields)
			}
		})
	}
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
