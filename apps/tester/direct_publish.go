package tester

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/daprperf/daprperf/perf"
)

// newDirectPublishCaller returns a caller that publishes straight to the broker with its own Go client, without daprd:
// the baseline of a publish scenario on a real broker (perf.BaselineStore, Operation.Direct
// set, Params.Target the broker's host:port). One caller per connection, each with its own
// single network connection to the broker, as each load connection has its own to daprd.
func newDirectPublishCaller(p perf.Params) (caller, error) {
	switch p.Operation.Direct {
	case perf.BackendRedis:
		return newRedisPublishCaller(p), nil
	case perf.BackendRabbitMQ:
		return newRabbitMQPublishCaller(p)
	case perf.BackendMQTT:
		return newMQTTPublishCaller(p)
	}
	return nil, fmt.Errorf("operation.direct = %q: the tester has no direct publish client for it (redis, rabbitmq and mqtt)", p.Operation.Direct)
}

// redisPublishCaller appends each event to the topic's stream with XADD, the command and the
// entry shape daprd's pubsub.redis writes (components-contrib v1.17 pubsub/redis Publish and
// common/component/redis XAdd): field "data" holding the event's bytes and field "metadata"
// holding the JSON of the publish request's metadata ("{}" here: the direct call has none).
// daprd adds MAXLEN ~ only when the component sets maxLenApprox, which the scenarios do not,
// so no trimming here either. What daprd adds on top (its API, the CloudEvents envelope unless
// the payload is raw) is the overhead this baseline exposes. A publish.bulk becomes one
// pipeline of BulkEntries XADDs, a publish with Repeat n that many XADDs in turn.
type redisPublishCaller struct {
	client *redis.Client
	dials  atomic.Int64
	stream string
	values []any
	bulk   int // events per pipeline; 0 for single XADDs
	repeat int // single XADDs per request
}

// redisEntryMetadata is the "metadata" field of the entries the direct client writes: the JSON
// of an empty metadata map, as daprd writes it for a publish without metadata.
const redisEntryMetadata = "{}"

func newRedisPublishCaller(p perf.Params) *redisPublishCaller {
	c := &redisPublishCaller{stream: p.Operation.Topic, values: []any{"data", p.RequestBody(), "metadata", redisEntryMetadata}}
	var dialer net.Dialer
	c.client = redis.NewClient(&redis.Options{
		Addr: p.Target, PoolSize: 1, MinIdleConns: 1, MaxRetries: -1, DisableIdentity: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c.dials.Add(1)
			return dialer.DialContext(ctx, network, addr)
		},
	})
	if p.Operation.Kind == perf.OpPublishBulk {
		c.bulk = p.Operation.BulkEntries
	} else {
		c.repeat = p.Operation.EventsPerRequest()
	}
	return c
}

func (c *redisPublishCaller) call(ctx context.Context) (string, bool) {
	args := &redis.XAddArgs{Stream: c.stream, Values: c.values}
	if c.bulk > 0 {
		pipe := c.client.Pipeline()
		for range c.bulk {
			pipe.XAdd(ctx, args)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return redisCode(err), false
		}
		return "OK", true
	}
	for range c.repeat {
		if err := c.client.XAdd(ctx, args).Err(); err != nil {
			return redisCode(err), false
		}
	}
	return "OK", true
}

// redisCode is the code a failed XADD counts under: the Redis error's first word ("ERR",
// "WRONGTYPE"), or "-1" for a network error, as fortio counts socket errors.
func redisCode(err error) string {
	if re, ok := err.(redis.Error); ok {
		msg := re.Error()
		for i, ch := range msg {
			if ch == ' ' {
				return msg[:i]
			}
		}
		return msg
	}
	return "-1"
}

func (c *redisPublishCaller) sockets() int64 { return c.dials.Load() }

func (c *redisPublishCaller) close() error { return c.client.Close() }
