package actorapp

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// RedisLock is a Lock in Redis shared by every host: Acquire is SET key host NX (no expiry: an
// actor stays active until its deactivation), Release deletes the key only when host holds it
// (one Lua script, so it never deletes another host's lock).
type RedisLock struct {
	addr string
	c    *redis.Client
}

// NewRedisLock returns a RedisLock on the Redis at addr (host:port).
func NewRedisLock(addr string) *RedisLock {
	return &RedisLock{addr: addr, c: redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})}
}

// String is "redis <addr>".
func (l *RedisLock) String() string { return "redis " + l.addr }

// Ping checks that Redis answers.
func (l *RedisLock) Ping(ctx context.Context) error {
	if err := l.c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis PING %s: %w", l.addr, err)
	}
	return nil
}

// Close closes the client.
func (l *RedisLock) Close() error { return l.c.Close() }

// Acquire takes key for host, or reports the host that holds it.
func (l *RedisLock) Acquire(ctx context.Context, key, host string) (bool, string, error) {
	ok, err := l.c.SetNX(ctx, key, host, 0).Result()
	if err != nil {
		return false, "", err
	}
	if ok {
		return true, host, nil
	}
	holder, err := l.c.Get(ctx, key).Result()
	if err == redis.Nil { // released meanwhile: try once more
		if ok, err = l.c.SetNX(ctx, key, host, 0).Result(); err == nil && ok {
			return true, host, nil
		}
	}
	if err != nil {
		return false, "", err
	}
	if holder == host { // this host's own lock: a re-activation after a lost deactivation
		return true, host, nil
	}
	return false, holder, nil
}

// releaseScript deletes KEYS[1] when its value is ARGV[1].
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// Release deletes key when host holds it.
func (l *RedisLock) Release(ctx context.Context, key, host string) error {
	return releaseScript.Run(ctx, l.c, []string{key}, host).Err()
}
