package subscriber

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The store subscription: the configuration scenarios' baseline, the app told of each update
// by the store itself, with no daprd. It subscribes as daprd's configuration.redis component
// does for a subscription to every key (components-contrib configuration/redis, Subscribe, and
// common/component/redis, ConfigurationSubscribe, v1.18.4): CONFIG SET notify-keyspace-events
// Kg$xe, PSUBSCRIBE __keyspace@0__:*, and for each notification, one at a time, a GET of its
// key, the value split at "||" from its version. Dapr's configuration perf app subscribes the
// same way in its baseline run (dapr/dapr tests/apps/perf/configuration/app.go, v1.18.3,
// RedisUpdater.Subscribe, on one key). What daprd adds over it is its delivery to the app.

// protocolStore is RouteConfigurationSubscribe's protocol of the store subscription.
const protocolStore = "store"

// keyspaceEvents is the notify-keyspace-events setting daprd's component writes: keyspace
// notifications (K) of generic (g) and string ($) commands, expiries (x) and evictions (e).
const keyspaceEvents = "Kg$xe"

// keyspacePrefix is the channel prefix of database 0's keyspace notifications.
const keyspacePrefix = "__keyspace@0__:"

// subscribeStore subscribes to every key's notifications on c and hands each updated key's
// value to take, stamped when its GET answered, until stop is called. The id is the Redis
// pattern subscribed to. Once it returns, the subscription is in place: an update written
// after it is told.
func subscribeStore(ctx context.Context, c *redis.Client, take func(map[string]string, time.Time)) (id string, stop func(), err error) {
	if err := c.ConfigSet(ctx, "notify-keyspace-events", keyspaceEvents).Err(); err != nil {
		return "", nil, fmt.Errorf("redis CONFIG SET notify-keyspace-events %s: %w", keyspaceEvents, err)
	}
	pattern := keyspacePrefix + "*"
	subCtx, cancel := context.WithCancel(context.Background()) // outlives this call
	ps := c.PSubscribe(subCtx, pattern)
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		cancel()
		_ = ps.Close()
		return "", nil, fmt.Errorf("redis PSUBSCRIBE %s: %w", pattern, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for msg := range ps.Channel() {
			key := strings.TrimPrefix(msg.Channel, keyspacePrefix)
			if msg.Payload != "set" || key == msg.Channel {
				continue // daprd's handler reads every event; the tester's updates are SETs
			}
			getCtx, getCancel := context.WithTimeout(subCtx, configGetTimeout)
			v, err := c.Get(getCtx, key).Result()
			getCancel()
			if err != nil {
				v = "" // counted as malformed: an update whose value could not be read
			}
			value, _, _ := strings.Cut(v, redisVersionSeparator)
			take(map[string]string{key: value}, time.Now())
		}
	}()
	stop = func() {
		cancel()
		_ = ps.Close() // closes ps.Channel, ending the loop
		<-done
	}
	return pattern, stop, nil
}
