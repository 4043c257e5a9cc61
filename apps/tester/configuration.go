package tester

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	runtimev1 "github.com/dapr/dapr/pkg/proto/runtime/v1"

	"github.com/daprperf/daprperf/perf"
)

// Configuration kinds: configuration.get over gRPC through daprd (Dapr.GetConfiguration), and
// both configuration kinds straight to the store (perf.BaselineStore), with go-redis doing
// what daprd's configuration.redis does (components-contrib v1.17 configuration/redis):
//
//   - configuration.get: one GET per key, in turn, the value split at "||" into value and
//     version; a missing key is an error, as the component answers it (daprd: 500);
//   - configuration.set: SET <key> <payload>, the payload stamped afresh for every request
//     when it holds perf.SeqToken or perf.SendTimeToken (one sequence for the whole load, as
//     the HTTP stamp caller does), Key's perf.UUIDToken replaced per request. Dapr has no API
//     that writes configuration: this is the store update a configuration subscription is
//     told of, and the seed of a configuration.get.

func init() { grpcOperations[perf.OpConfigurationGet] = grpcConfigurationGet }

// configurationKinds are the kinds of this file.
var configurationKinds = []perf.OperationKind{perf.OpConfigurationGet, perf.OpConfigurationSet}

// grpcConfigurationGet is configuration.get through Dapr.GetConfiguration with the load's
// store and keys.
func grpcConfigurationGet(conn *grpc.ClientConn, p perf.Params, _ *grpcCaller) func(ctx context.Context) error {
	client := runtimev1.NewDaprClient(conn)
	req := &runtimev1.GetConfigurationRequest{StoreName: p.Operation.Store, Keys: slices.Clone(p.Operation.Keys)}
	return func(ctx context.Context) error { _, err := client.GetConfiguration(ctx, req); return err }
}

// checkDirectConfiguration is checkDirect for the configuration kinds: Redis only.
func checkDirectConfiguration(op perf.Operation) error {
	if op.Direct == perf.BackendRedis {
		return nil
	}
	return unsupportedDirect("operation.direct", string(op.Direct), "the tester's direct configuration client is redis (go-redis v9)")
}

// configurationCaller is one Redis connection making one configuration request per call.
type configurationCaller struct {
	client *redis.Client
	dials  atomic.Int64
	do     func(ctx context.Context) error
	last   stampedBlock // the last update's sequence number (configuration.set, stamped)
}

// newConfigurationCaller connects to the Redis at p.Target for p's configuration kind; seq
// numbers the stamped updates of the whole load (nil: a fresh one).
func newConfigurationCaller(p perf.Params, seq *sequence) (caller, error) {
	op := p.Operation
	if err := checkDirectConfiguration(op); err != nil {
		return nil, err
	}
	if seq == nil {
		seq = &sequence{}
	}
	c := &configurationCaller{}
	var dialer net.Dialer
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c.dials.Add(1)
		return dialer.DialContext(ctx, network, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), directConnectTimeout)
	defer cancel()
	rc, err := redisConn(ctx, p.Target, dial)
	if err != nil {
		return nil, err
	}
	c.client = rc
	switch op.Kind {
	case perf.OpConfigurationGet:
		keys := slices.Clone(op.Keys)
		c.do = func(ctx context.Context) error {
			for _, k := range keys {
				if _, _, err := configurationGet(ctx, rc, k); err != nil {
					return err
				}
			}
			return nil
		}
	case perf.OpConfigurationSet:
		key := perRequest(op.Key)
		template := p.RequestBody()
		stamped := perf.HasStamps(template)
		c.do = func(ctx context.Context) error {
			v := template
			if stamped {
				var base, n int64
				v, base, n = seq.stampBlock(template, time.Now())
				c.last = stampedBlock{base, n}
			}
			return rc.Set(ctx, key(), v, 0).Err()
		}
	default:
		_ = rc.Close()
		return nil, unsupportedDirect("operation.kind", string(op.Kind), "the tester's direct configuration client does configuration.get and configuration.set")
	}
	return c, nil
}

// configurationGet reads one item as configuration.redis does: GET, then "<value>||<version>"
// split at the first "||" (no "||": the whole string is the value, the version empty). A
// missing key is an error naming it.
func configurationGet(ctx context.Context, c *redis.Client, key string) (value, version string, err error) {
	s, err := c.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return "", "", fmt.Errorf("configuration key %q: not in the store", key)
	}
	if err != nil {
		return "", "", err
	}
	value, version, _ = strings.Cut(s, "||")
	return value, version, nil
}

func (c *configurationCaller) call(ctx context.Context) (string, bool) {
	err := c.do(ctx)
	return directCode(err), err == nil
}

func (c *configurationCaller) lastStamped() stampedBlock { return c.last }

func (c *configurationCaller) sockets() int64 { return c.dials.Load() }

func (c *configurationCaller) close() error { return c.client.Close() }

// directCallers makes the callers of a direct-to-store load p (Operation.Direct set), one per
// connection or VU: the configuration, publish or state client of its kind; the stamped
// configuration updates of all of them share one sequence.
func directCallers(p perf.Params) func() (caller, error) {
	switch {
	case slices.Contains(configurationKinds, p.Operation.Kind):
		seq := &sequence{}
		return func() (caller, error) { return newConfigurationCaller(p, seq) }
	case p.Operation.Kind == perf.OpPublish || p.Operation.Kind == perf.OpPublishBulk:
		return func() (caller, error) { return newDirectPublishCaller(p) }
	}
	return func() (caller, error) { return newDirectCaller(p) }
}
