package node

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
)

// The in-cluster Redis that BackendsUp starts: Debian's redis-server (package redis-server).
const (
	RedisService = "redis"
	RedisPort    = 6379
)

// redisServer is Debian's redis-server, which the image carries.
const redisServer = "/usr/bin/redis-server"

// redisImageName is the image of redis-server with the shared libraries it loads.
var redisImageName = ImageRegistry + "/redis:" + ImageTag

// redisBackend runs redis-server with no persistence (--save "", --appendonly no), so it needs
// no writable folder, and without protected mode: the pod's network is the cluster's.
var redisBackend = &backend{
	name:      RedisService,
	port:      RedisPort,
	pkg:       "redis-server",
	installed: func() bool { _, err := os.Stat(redisServer); return err == nil },
	image:     redisImage,
	pod: func(im Image, l listenOn) corev1.PodSpec {
		port := l.port(RedisPort)
		return corev1.PodSpec{Containers: []corev1.Container{
			backendContainer(RedisService, im, port, tcpProbe(port), []string{"--bind", l.addr, "--port", fmt.Sprint(port)}, nil),
		}}
	},
}

// redisImage is an image of the host's redis-server (hostImage); the pod gives the address
// and port. The error names the package when redis-server is missing.
func redisImage(ctx context.Context) (Image, error) {
	return hostImage(ctx, hostImageSpec{
		name:     redisImageName,
		pkg:      "redis-server",
		programs: []string{redisServer},
		args:     []string{"--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", "/"},
		user:     backendUser,
	})
}

// RedisAddr is the in-cluster address of BackendsUp's Redis (its Service's DNS name and port),
// the value of DAPR_PERF_REDIS_ADDR for a run on this cluster.
func RedisAddr() string { return backendAddr(RedisService, RedisPort) }
