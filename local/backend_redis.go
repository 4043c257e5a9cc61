package local

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// redisKind runs Debian's redis-server on 127.0.0.1 with no persistence: no RDB snapshots,
// no append-only file, its working directory the private data dir.
var redisKind = &backendKind{
	proc:  "redis",
	pkg:   "redis-server",
	bins:  []binary{{name: "redis-server", candidates: []string{"redis-server", "/usr/bin/redis-server"}}},
	ports: 1,
	launch: func(ctx context.Context, d *Deployment, b *backendServer) error {
		args := []string{
			"--bind", "127.0.0.1",
			"--port", strconv.Itoa(b.ports[0]),
			"--protected-mode", "yes",
			"--save", "",
			"--appendonly", "no",
			"--dir", b.dir,
			"--daemonize", "no",
			"--logfile", "", // stdout: the process log
		}
		p, err := d.startBackendProc(ctx, b, b.kind.proc, b.bins["redis-server"], args, backendEnv(nil), procSpec{})
		b.main = p
		return err
	},
	ping: func(ctx context.Context, b *backendServer) (string, error) {
		c := redis.NewClient(&redis.Options{Addr: b.addr(), MaxRetries: -1, DisableIdentity: true})
		defer func() { _ = c.Close() }()
		if err := c.Ping(ctx).Err(); err != nil {
			return "", fmt.Errorf("redis PING %s: %w", b.addr(), err)
		}
		info, err := c.Info(ctx, "server").Result()
		if err != nil {
			return "", fmt.Errorf("redis INFO server %s: %w", b.addr(), err)
		}
		return infoField(info, "redis_version")
	},
	metadata: func(b *backendServer) map[string]string {
		return map[string]string{"redisHost": b.addr()}
	},
}

// infoField returns the value of field in the text of Redis's INFO ("field:value" lines).
func infoField(info, field string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), field+":"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("redis INFO: no %s", field)
}
