package tester

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/daprperf/daprperf/perf"
)

// The direct-to-store baseline (perf.BaselineStore): a phase whose Params.Operation.Direct
// names a backend is sent by the tester straight to the store at Params.Target (host:port),
// with the store's standard Go client, doing the work daprd's state component does for the
// same operation (components-contrib v1.17, state/redis and state/postgresql/v2), so that the
// overhead is what daprd adds over the store. The transport of the scenario (HTTP or gRPC) is
// daprd's; the direct phase always speaks the store's own protocol. Each fortio connection
// owns one store connection. Codes: perf.DirectOK, or "timeout", "closed", "error".
//
// Keys are as the store holds them: daprd prefixes a key with its app id ("<app id>||<key>",
// Dapr's default keyPrefix "appid"), and the runner gives the direct phase the prefixed key.

// checkDirect returns an *unsupportedError when p is a direct-to-store phase the tester has
// no client for, nil otherwise: state kinds on redis (go-redis v9) and postgresql (pgx v5)
// here; publish kinds on redis, rabbitmq and mqtt (direct_publish.go). perf.Params.Validate
// has checked the rest.
func checkDirect(p perf.Params) error {
	op := p.Operation
	if op.Direct == "" {
		return nil
	}
	switch op.Kind {
	case perf.OpStateGet, perf.OpStateSave, perf.OpStateDelete:
		switch op.Direct {
		case perf.BackendRedis, perf.BackendPostgreSQL:
			return nil
		}
		return unsupportedDirect("operation.direct", string(op.Direct), "the tester's direct state clients are redis (go-redis v9) and postgresql (pgx v5)")
	case perf.OpPublish, perf.OpPublishBulk:
		switch op.Direct {
		case perf.BackendRedis, perf.BackendRabbitMQ, perf.BackendMQTT:
			return nil
		}
		return unsupportedDirect("operation.direct", string(op.Direct), "the tester's direct publishers are redis (go-redis v9), rabbitmq (amqp091-go) and mqtt (paho)")
	case perf.OpConfigurationGet, perf.OpConfigurationSet:
		return checkDirectConfiguration(op) // configuration.go
	}
	return unsupportedDirect("operation.kind", string(op.Kind), "the tester's direct clients do state.get, state.save, state.delete, publish, publish.bulk, configuration.get and configuration.set")
}

// directConnectTimeout bounds the connection and first ping of one direct caller.
const directConnectTimeout = 10 * time.Second

// directCaller is one connection to a store, making one operation per call.
type directCaller struct {
	dials atomic.Int64
	do    func(ctx context.Context) error
	// read is what one state.get returns: the value as stored (nil for a missing key).
	read func(ctx context.Context) ([]byte, error)
	done func() error
}

// newDirectCaller connects to p.Operation.Direct at p.Target and returns the caller of p's
// operation. An unsupported backend or kind is an *unsupportedError (400 naming the field);
// a store that does not answer is an error naming it and its address.
func newDirectCaller(p perf.Params) (caller, error) {
	op := p.Operation
	switch op.Kind {
	case perf.OpStateGet, perf.OpStateSave, perf.OpStateDelete:
	default:
		return nil, unsupportedDirect("operation.kind", string(op.Kind), "the tester's direct clients do state.get, state.save and state.delete")
	}
	value := []byte(jsonValue(p.RequestBody())) // what daprd stores: the value's JSON bytes
	key := perRequest(op.Key)
	d := &directCaller{}
	var dialer net.Dialer
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.dials.Add(1)
		return dialer.DialContext(ctx, network, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), directConnectTimeout)
	defer cancel()
	switch op.Direct {
	case perf.BackendRedis:
		c, err := redisConn(ctx, p.Target, dial)
		if err != nil {
			return nil, err
		}
		d.read = redisGet(c, key)
		d.do, d.done = redisOperation(c, op.Kind, d.read, key, value), c.Close
	case perf.BackendPostgreSQL:
		c, err := postgresConn(ctx, p.Target, dial)
		if err != nil {
			return nil, err
		}
		d.read = postgresGet(c, key)
		d.do = postgresOperation(c, op.Kind, d.read, key, value)
		d.done = func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return c.Close(ctx)
		}
	default:
		return nil, unsupportedDirect("operation.direct", string(op.Direct), "the tester's direct clients are redis (go-redis v9) and postgresql (pgx v5)")
	}
	return d, nil
}

// unsupportedError is a direct phase the tester has no client for: a 400 naming the field.
type unsupportedError struct{ field, value, accepts string }

func (e *unsupportedError) Error() string {
	return fmt.Sprintf("tester: %s = %q: not supported for a direct-to-store phase: %s", e.field, e.value, e.accepts)
}

func unsupportedDirect(field, value, accepts string) error {
	return &unsupportedError{field: field, value: value, accepts: accepts}
}

// redisConn is one Redis connection to addr (no password: the local platform's Redis has
// none), pinged once. go-redis's defaults otherwise, as daprd's component keeps them (3
// retries).
func redisConn(ctx context.Context, addr string, dial func(context.Context, string, string) (net.Conn, error)) (*redis.Client, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, Dialer: dial, ContextTimeoutEnabled: true})
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("tester: direct redis %s: ping: %w", addr, err)
	}
	return c, nil
}

// Lua scripts with the commands daprd's state.redis runs for a save and a delete without an
// ETag (components-contrib v1.17 state/redis): the state is a hash with fields "data" (the
// value) and "version" (an integer ETag, incremented by every save). A key whose "version"
// is not a hash field is dropped first; a key written with first-write concurrency
// ("first-write" field) is not overwritten without its ETag.
const (
	redisSaveScript = `local version = redis.pcall("HGET", KEYS[1], "version")
if type(version) == "table" then redis.call("DEL", KEYS[1]) end
local firstWrite = redis.pcall("HGET", KEYS[1], "first-write")
if version and type(version) ~= "table" and version ~= "" and version ~= ARGV[1] and not (not firstWrite and ARGV[1] == "0") then
  return error("failed to set key " .. KEYS[1])
end
redis.call("HSET", KEYS[1], "data", ARGV[2])
return redis.call("HINCRBY", KEYS[1], "version", 1)`
	redisDeleteScript = `local version = redis.pcall("HGET", KEYS[1], "version")
if version and type(version) ~= "table" and version ~= "" and version ~= ARGV[1] and ARGV[1] ~= "0" then
  return error("failed to delete " .. KEYS[1])
end
return redis.call("DEL", KEYS[1])`
)

// redisOperation is one request of kind: state.get is HGETALL of the key (a missing key is
// an empty answer, not an error, as daprd answers it 204); state.save is EVAL of the save
// script with ETag "0" (none) and the value, as daprd sends it (its TTL commands only run
// with a TTL); state.delete EVAL of the delete script with ETag "0".
func redisOperation(c *redis.Client, kind perf.OperationKind, get func(context.Context) ([]byte, error), key func() string, value []byte) func(ctx context.Context) error {
	switch kind {
	case perf.OpStateGet:
		return func(ctx context.Context) error { _, err := get(ctx); return err }
	case perf.OpStateDelete:
		return func(ctx context.Context) error {
			return c.Eval(ctx, redisDeleteScript, []string{key()}, "0").Err()
		}
	}
	return func(ctx context.Context) error {
		return c.Eval(ctx, redisSaveScript, []string{key()}, "0", value, 1).Err()
	}
}

// redisGet reads the key as daprd's state.redis does: HGETALL, the value in field "data".
func redisGet(c *redis.Client, key func() string) func(ctx context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		h, err := c.HGetAll(ctx, key()).Result()
		if err != nil || len(h) == 0 {
			return nil, err
		}
		return []byte(h["data"]), nil
	}
}

// postgresConn is one PostgreSQL connection to addr as the local platform's user postgres
// (trust authentication) to database postgres, where daprd's state.postgresql v2 keeps its
// table.
func postgresConn(ctx context.Context, addr string, dial func(context.Context, string, string) (net.Conn, error)) (*pgx.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("tester: direct postgresql target %q: want host:port: %w", addr, err)
	}
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s user=postgres dbname=postgres sslmode=disable", host, port))
	if err != nil {
		return nil, fmt.Errorf("tester: direct postgresql %s: %w", addr, err)
	}
	cfg.DialFunc = dial
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("tester: direct postgresql %s: connect: %w", addr, err)
	}
	return c, nil
}

// SQL of daprd's state.postgresql v2 (components-contrib v1.17) for its default table
// "state" (key text primary key, value bytea, etag uuid, created_at, updated_at,
// expires_at), without an ETag and without a TTL.
const (
	pgGet = `SELECT value, etag, expires_at FROM state
WHERE key = $1 AND (expires_at IS NULL OR expires_at >= now())`
	pgSave = `INSERT INTO state AS t (key, value, etag, expires_at)
VALUES ($1, $2, gen_random_uuid(), NULL)
ON CONFLICT (key) DO UPDATE SET value = $2, updated_at = now(), etag = gen_random_uuid(), expires_at = NULL`
	pgDelete = `DELETE FROM state WHERE key = $1`
)

// postgresOperation is one request of kind, as pgx's default (cached prepared statements)
// sends it, like daprd's pool: state.get reads the row (no row is not an error: daprd answers
// 204), state.save upserts it and must affect one row, state.delete deletes it.
func postgresOperation(c *pgx.Conn, kind perf.OperationKind, get func(context.Context) ([]byte, error), key func() string, value []byte) func(ctx context.Context) error {
	switch kind {
	case perf.OpStateGet:
		return func(ctx context.Context) error { _, err := get(ctx); return err }
	case perf.OpStateDelete:
		return func(ctx context.Context) error { _, err := c.Exec(ctx, pgDelete, key()); return err }
	}
	return func(ctx context.Context) error {
		tag, err := c.Exec(ctx, pgSave, key(), value)
		if err == nil && tag.RowsAffected() != 1 {
			return fmt.Errorf("state.save: %d rows affected, want 1", tag.RowsAffected())
		}
		return err
	}
}

// postgresGet reads the key's row as daprd's state.postgresql v2 does (value, etag and
// expiry); no row is a nil value.
func postgresGet(c *pgx.Conn, key func() string) func(ctx context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		var (
			v    []byte
			etag *string
			exp  *time.Time
		)
		err := c.QueryRow(ctx, pgGet, key()).Scan(&v, &etag, &exp)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, nil
		}
		return v, err
	}
}

func (d *directCaller) call(ctx context.Context) (string, bool) {
	err := d.do(ctx)
	return directCode(err), err == nil
}

// directCode is the code of one direct request's outcome (perf.DirectOK).
func directCode(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return perf.DirectOK
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timeout"
	case errors.Is(err, net.ErrClosed) || errors.Is(err, redis.ErrClosed) || isConnError(err):
		return "closed"
	}
	return "error"
}

// isConnError says whether err is a failed or broken connection (refused, reset, EOF).
func isConnError(err error) bool {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// sockets counts the connections the caller dialled (reconnects included).
func (d *directCaller) sockets() int64 { return d.dials.Load() }

func (d *directCaller) close() error { return d.done() }
