package local

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// backendCases are one component per backend, and the version prefix each server must report.
var backendCases = []struct {
	backend perf.Backend
	typ     perf.ComponentType
	version string
}{
	{perf.BackendRedis, perf.StateRedis, "7."},
	{perf.BackendPostgreSQL, perf.StatePostgreSQL, "15."},
	{perf.BackendRabbitMQ, perf.PubSubRabbitMQ, "3."},
	{perf.BackendMQTT, perf.PubSubMQTT3, "mosquitto version 2."},
}

// appWith is an httpapp whose sidecar names components of types.
func appWith(types ...perf.ComponentType) perf.App {
	var cs []perf.Component
	for i, typ := range types {
		cs = append(cs, perf.Component{Name: "c" + strconv.Itoa(i), Type: typ})
	}
	return perf.App{Name: "app", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: cs}}
}

// startBackendsOnly plans and starts the backends apps need, without apps or daprd, in a run
// directory made as StartE makes it; its cleanup is the deployment's.
func startBackendsOnly(t *testing.T, alloc PortAllocator, apps ...perf.App) (*Deployment, error) {
	t.Helper()
	dir, err := os.MkdirTemp("", "daprperf-local-*")
	require.NoError(t, err)
	d := newDeployment(dir, build{}, nil, maxBackendProcs)
	t.Cleanup(func() { d.close(t) })
	require.NoError(t, validateComponents(apps))
	if err := d.plan(alloc, apps); err != nil {
		return d, err
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	return d, d.startBackends(t.Context(), ctx)
}

// skipWithoutBackend skips t when be's binaries are missing and $CI is unset.
func skipWithoutBackend(t *testing.T, be perf.Backend) {
	t.Helper()
	if _, err := findBinaries(be, backendKinds[be]); err != nil && os.Getenv("CI") == "" {
		t.Skipf("skipping: %v", err)
	}
}

// TestBackendStartsAnswersAndStops starts each backend alone, checks that it answered its
// protocol ping with a version, listens on loopback only, and that after stopAll none of its
// processes (children included) is left.
func TestBackendStartsAnswersAndStops(t *testing.T) {
	for _, tc := range backendCases {
		t.Run(string(tc.backend), func(t *testing.T) {
			skipWithoutBackend(t, tc.backend)
			epmds := named(t, "epmd")
			start := time.Now()
			d, err := startBackendsOnly(t, FreePort, appWith(tc.typ))
			require.NoError(t, err)
			ready := time.Since(start)

			infos := d.Backends()
			require.Len(t, infos, 1)
			info := infos[0]
			assert.Equal(t, tc.backend, info.Backend)
			assert.True(t, strings.HasPrefix(info.Version, tc.version), "version %q, want %s...", info.Version, tc.version)
			assert.Positive(t, info.ReadySeconds)
			t.Logf("%s %s at %s: ready in %.3f s (start call %v)", info.Process, info.Version, info.Address, info.ReadySeconds, ready.Round(time.Millisecond))

			tree := descendants(t, d.backends[0].procs)
			require.NotEmpty(t, tree)
			for _, addr := range listening(t, tree) {
				assert.True(t, addr.IsLoopback(), "a %s process listens on %v", tc.backend, addr)
				if addr.To4() == nil {
					t.Logf("also listens on %v (IPv6 loopback)", addr)
				}
			}

			stop := time.Now()
			require.NoError(t, d.stopAll())
			t.Logf("stopped in %v", time.Since(stop).Round(time.Millisecond))
			assertGone(t, tree)
			for _, pid := range named(t, "epmd") {
				assert.Contains(t, epmds, pid, "an epmd (pid %d) outside the backend's tree: a daemon nobody stops", pid)
			}
			exits, err := d.Exits(t.Context())
			require.NoError(t, err)
			assert.Empty(t, exits, "a stop asked for is no unexpected exit")
		})
	}
}

// TestBackendKilledIsAnExit kills Redis, then PostgreSQL, mid-run: Exits names each, with the
// signal, and no process of theirs is left.
func TestBackendKilledIsAnExit(t *testing.T) {
	skipWithoutBackend(t, perf.BackendRedis)
	skipWithoutBackend(t, perf.BackendPostgreSQL)
	shmBefore, _ := filepath.Glob("/dev/shm/PostgreSQL.*") // before the postmaster exists
	d, err := startBackendsOnly(t, FreePort, appWith(perf.StateRedis, perf.StatePostgreSQL))
	require.NoError(t, err)
	var tree []int
	for _, b := range d.backends {
		tree = append(tree, descendants(t, b.procs)...)
	}
	for _, name := range []string{"redis", "postgresql"} {
		require.NoError(t, d.Kill(name))
	}
	exits, err := d.Exits(t.Context())
	require.NoError(t, err)
	var names []string
	for _, e := range exits {
		names = append(names, e.Process)
		assert.Equal(t, "signal SIGKILL", e.Reason, e.Process)
	}
	assert.ElementsMatch(t, []string{"redis", "postgresql"}, names)
	assertGone(t, tree) // PostgreSQL's own children end when they see the postmaster gone
	shmAfter, _ := filepath.Glob("/dev/shm/PostgreSQL.*")
	for _, f := range shmAfter {
		assert.Contains(t, shmBefore, f, "a shared-memory segment in /dev/shm outlives the killed postmaster (dynamic_shared_memory_type=mmap keeps them in its data folder)")
	}
}

// TestBackendPortInUse holds the port the backend is given: the start fails naming the
// backend and the port, and nothing runs.
func TestBackendPortInUse(t *testing.T) {
	skipWithoutBackend(t, perf.BackendRedis)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = ln.Close() }()
	taken := ln.Addr().(*net.TCPAddr).Port
	n := 0
	alloc := func() (int, error) { // app 1, sidecar 5, then the backend's
		n++
		if n == 7 {
			return taken, nil
		}
		return FreePort()
	}
	d, err := startBackendsOnly(t, alloc, appWith(perf.StateRedis))
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("redis: port 127.0.0.1:%d is in use", taken))
	assert.Empty(t, d.processes())
}

// TestBackendMissingBinary names the Debian package when a binary cannot be found.
func TestBackendMissingBinary(t *testing.T) {
	saved := lookPath
	lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	t.Cleanup(func() { lookPath = saved })
	for be, pkg := range map[perf.Backend]string{
		perf.BackendRedis: "redis-server", perf.BackendPostgreSQL: "postgresql",
		perf.BackendRabbitMQ: "rabbitmq-server", perf.BackendMQTT: "mosquitto",
	} {
		_, err := findBinaries(be, backendKinds[be])
		require.ErrorIs(t, err, ErrBackendMissing, be)
		assert.Contains(t, err.Error(), "install the Debian package "+pkg, be)
	}
	d := newDeployment(t.TempDir(), build{}, nil, 1)
	err := d.plan(FreePort, []perf.App{appWith(perf.PubSubMQTT3)})
	require.ErrorIs(t, err, ErrBackendMissing)
	assert.Contains(t, err.Error(), "mqtt needs mosquitto")
}

// TestPostgresNewestInstalled: the platform runs the newest version under postgresRoot whose
// bin folder has both initdb and postgres, reports its package, and names the metapackage to
// install when there is none.
func TestPostgresNewestInstalled(t *testing.T) {
	root := t.TempDir()
	saved := postgresRoot
	postgresRoot = root
	t.Cleanup(func() { postgresRoot = saved })
	install := func(version string, bins ...string) {
		dir := root + "/" + version + "/bin"
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for _, b := range bins {
			require.NoError(t, os.WriteFile(dir+"/"+b, []byte("#!/bin/sh\n"), 0o755))
		}
	}
	_, err := findBinaries(perf.BackendPostgreSQL, postgresKind)
	require.ErrorIs(t, err, ErrBackendMissing)
	assert.Contains(t, err.Error(), "install the Debian package postgresql (apt-get install postgresql")

	install("9.6", "initdb", "postgres")
	install("13", "initdb", "postgres")
	install("15", "initdb", "postgres")
	install("17", "postgres") // a partial install: no initdb
	install("common")         // not a version
	bins, pkg, err := findBackend(perf.BackendPostgreSQL, postgresKind)
	require.NoError(t, err)
	assert.Equal(t, "postgresql-15", pkg)
	assert.Equal(t, map[string]string{"initdb": root + "/15/bin/initdb", "postgres": root + "/15/bin/postgres"}, bins)

	install("17", "initdb")
	_, pkg, err = findBackend(perf.BackendPostgreSQL, postgresKind)
	require.NoError(t, err)
	assert.Equal(t, "postgresql-17", pkg)
}

// TestComponentResources checks the files written into the resources folder: one per name,
// scoped to the apps that name it, pointed at the planned backend.
func TestComponentResources(t *testing.T) {
	d := newDeployment(t.TempDir(), build{}, nil, 1)
	d.backends = []*backendServer{{backend: perf.BackendRedis, kind: redisKind, ports: []int{6390}}}
	require.NoError(t, os.Mkdir(d.resourcesDir(), 0o755))
	comp := perf.Component{Name: "statestore", Type: perf.StateRedis, Metadata: map[string]string{"keyPrefix": "none"}}
	apps := []perf.App{
		{Name: "b", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: []perf.Component{comp}}},
		{Name: "a", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: []perf.Component{comp, {Name: "mem", Type: perf.PubSubInMemory}}}},
	}
	require.NoError(t, validateComponents(apps))
	require.NoError(t, d.writeComponents(apps))
	b, err := os.ReadFile(d.resourcesDir() + "/statestore.yaml")
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion": "dapr.io/v1alpha1", "kind": "Component", "metadata": {"name": "statestore"},
		"spec": {"type": "state.redis", "version": "v1", "metadata": [{"name": "redisHost", "value": "127.0.0.1:6390"},
		{"name": "keyPrefix", "value": "none"}]}, "scopes": ["a", "b"]}`, string(b))
	b, err = os.ReadFile(d.resourcesDir() + "/mem.yaml")
	require.NoError(t, err)
	assert.Contains(t, string(b), `"type": "pubsub.in-memory"`)

	other := comp
	other.Type = perf.StatePostgreSQL
	err = validateComponents([]perf.App{apps[0], {Name: "c", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Components: []perf.Component{other}}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "component statestore (state.postgresql) is defined differently by app b (state.redis)")

	err = validateComponents([]perf.App{{Name: "redis", Kind: perf.HTTPApp}, appWith(perf.PubSubRedis)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "app name redis: it is also the process name of the redis backend")
}

// descendants returns the PIDs of procs and of every process below them, from /proc.
func descendants(t *testing.T, procs []*process) []int {
	t.Helper()
	all, err := procfs.AllProcs()
	require.NoError(t, err)
	children := map[int][]int{}
	for _, p := range all {
		if st, err := p.Stat(); err == nil {
			children[st.PPID] = append(children[st.PPID], st.PID)
		}
	}
	var out []int
	var walk func(pid int)
	walk = func(pid int) {
		out = append(out, pid)
		for _, c := range children[pid] {
			walk(c)
		}
	}
	for _, p := range procs {
		walk(p.pid)
	}
	return out
}

// named returns the PIDs of the live processes whose command is comm.
func named(t *testing.T, comm string) []int {
	t.Helper()
	all, err := procfs.AllProcs()
	require.NoError(t, err)
	var pids []int
	for _, p := range all {
		if st, err := p.Stat(); err == nil && st.Comm == comm && st.State != "Z" {
			pids = append(pids, st.PID)
		}
	}
	return pids
}

// listening returns the local addresses of the TCP sockets in LISTEN state that pids hold.
func listening(t *testing.T, pids []int) []net.IP {
	t.Helper()
	fs, err := procfs.NewDefaultFS()
	require.NoError(t, err)
	inodes := map[uint64]bool{}
	for _, pid := range pids {
		p, err := fs.Proc(pid)
		if err != nil {
			continue // a short-lived helper (a PostgreSQL worker) that ended since the tree was read
		}
		targets, err := p.FileDescriptorTargets()
		if err != nil {
			continue // a short-lived helper that ended meanwhile
		}
		for _, tg := range targets {
			if s, ok := strings.CutPrefix(tg, "socket:["); ok {
				n, _ := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
				inodes[n] = true
			}
		}
	}
	var out []net.IP
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		require.NoError(t, err)
		for _, line := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // TCP_LISTEN
				continue
			}
			if inode, _ := strconv.ParseUint(f[9], 10, 64); inodes[inode] {
				out = append(out, procNetIP(t, f[1]))
			}
		}
	}
	require.NotEmpty(t, out, "no listening socket found")
	return out
}

// procNetIP decodes the address of "hexaddr:hexport" from /proc/net/tcp*: 32-bit words in
// host (little-endian) byte order.
func procNetIP(t *testing.T, field string) net.IP {
	t.Helper()
	h, _, _ := strings.Cut(field, ":")
	raw, err := hex.DecodeString(h)
	require.NoError(t, err)
	ip := make(net.IP, len(raw))
	for i := 0; i+4 <= len(raw); i += 4 {
		ip[i], ip[i+1], ip[i+2], ip[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	return ip
}

// assertGone waits, at most 10 s, until none of pids runs (a zombie left to an init that does
// not reap counts as gone).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var alive []string
		for _, pid := range pids {
			p, err := procfs.NewProc(pid)
			if err != nil {
				continue
			}
			st, err := p.Stat()
			if err != nil || st.State == "Z" {
				continue
			}
			alive = append(alive, fmt.Sprintf("%d (%s)", pid, st.Comm))
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left: %s", strings.Join(slices.Compact(alive), ", "))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
