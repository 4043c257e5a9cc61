package local

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"

	"github.com/daprperf/daprperf/internal/pgdirs"
	"github.com/daprperf/daprperf/perf"
)

// postgresRoot is where Debian's postgresql-<N> packages install their server programs, one
// folder per major version, <root>/<N>/bin (initdb is not on PATH there: pg_wrapper fronts the
// clients only). The platform runs the newest installed version (findPostgres);
// scripts/missing-backends.sh looks by the same rule. Tests replace it.
var postgresRoot = pgdirs.Root

// postgresPackage is what to install when no version is: Debian's metapackage, which depends on
// the release's current postgresql-<N>.
const postgresPackage = "postgresql"

// postgresUser is the user PostgreSQL runs as when the test binary runs as root, which
// postgres refuses; Debian's package creates it. It is also the database superuser the
// components connect as (trust authentication, loopback only).
const postgresUser = "postgres"

// postgresKind runs the newest installed PostgreSQL: initdb into the private data dir, then
// postgres on 127.0.0.1 with no Unix socket.
var postgresKind = &backendKind{
	proc:   "postgresql",
	pkg:    postgresPackage,
	find:   findPostgres,
	ports:  1,
	launch: launchPostgres,
	ping: func(ctx context.Context, b *backendServer) (string, error) {
		conn, err := pgx.Connect(ctx, postgresURL(b))
		if err != nil {
			return "", fmt.Errorf("postgresql connect %s: %w", b.addr(), err)
		}
		defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
		var v string
		if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
			return "", fmt.Errorf("postgresql SHOW server_version %s: %w", b.addr(), err)
		}
		return v, nil
	},
	metadata: func(b *backendServer) map[string]string {
		return map[string]string{"connectionString": fmt.Sprintf(
			"host=127.0.0.1 port=%d user=%s dbname=postgres sslmode=disable", b.ports[0], postgresUser)}
	},
}

// findPostgres finds the newest <postgresRoot>/<N>/bin holding both postgres and initdb and
// returns their paths and the Debian package that installed them (postgresql-<N>). With none,
// the error wraps ErrBackendMissing and names the package to install.
func findPostgres(be perf.Backend) (map[string]string, string, error) {
	var looked []string
	for _, version := range pgdirs.Versions(postgresRoot) {
		dir := filepath.Join(postgresRoot, version, "bin")
		bins := map[string]string{}
		for _, name := range []string{"initdb", "postgres"} {
			if p, err := lookPath(filepath.Join(dir, name)); err == nil {
				bins[name] = p
			}
		}
		if len(bins) == 2 {
			return bins, "postgresql-" + version, nil
		}
		looked = append(looked, dir)
	}
	where := postgresRoot + "/<version>/bin"
	if len(looked) > 0 {
		where += " (incomplete: " + strings.Join(looked, ", ") + ")"
	}
	return nil, "", fmt.Errorf("%w: %s needs initdb and postgres of some PostgreSQL version (looked in %s): install the Debian package %s "+
		"(apt-get install %s, which pulls in the release's postgresql-<version>, or make test-deps)",
		ErrBackendMissing, be, where, postgresPackage, postgresPackage)
}

// postgresURL is the pgx connection URL of b's database.
func postgresURL(b *backendServer) string {
	return fmt.Sprintf("postgres://%s@%s/postgres?sslmode=disable&connect_timeout=1", postgresUser, b.addr())
}

// launchPostgres initialises b's data directory and starts postgres. As root, both run as
// the postgres user, which must be able to reach the data directory: the run directory is made
// traversable (mode 0711: no listing) for it, and when a parent of the run directory is not, the
// data directory goes in a private folder of os.TempDir instead, removed with the run.
func launchPostgres(ctx context.Context, d *Deployment, b *backendServer) error {
	var spec procSpec
	spec.stopSig = syscall.SIGINT // "fast" shutdown: ends client sessions, checkpoints, exits
	if os.Geteuid() == 0 {
		u, err := user.Lookup(postgresUser)
		if err != nil {
			return fmt.Errorf("postgres refuses to run as root and there is no user %s to run it as (Debian's postgresql-<version> package creates it): %w",
				postgresUser, err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		spec.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
		if err := postgresDir(d, b, spec.cred); err != nil {
			return err
		}
	}
	data := filepath.Join(b.dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if spec.cred != nil {
		if err := os.Chown(data, int(spec.cred.Uid), int(spec.cred.Gid)); err != nil {
			return fmt.Errorf("data dir: %w", err)
		}
	}
	if err := initdb(ctx, d, b, data, spec.cred); err != nil {
		return err
	}
	args := []string{
		"-D", data,
		"-p", strconv.Itoa(b.ports[0]),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=", // TCP on loopback only
		"-c", "logging_collector=off", // log to stderr: the process log
		// Dynamic shared memory as files in the data folder (pg_dynshmem), not /dev/shm: a
		// postmaster that is killed (a test's fault, a signal) leaves its segments behind, and
		// the data folder goes with the run. Only parallel queries use more than the control
		// segment, and a component's key-value statements run none.
		"-c", "dynamic_shared_memory_type=mmap",
	}
	p, err := d.startBackendProc(ctx, b, b.kind.proc, b.bins["postgres"], args, backendEnv([]string{"PG"}), spec)
	b.main = p
	return err
}

// initdb creates the cluster in data: superuser postgres, trust authentication (the server
// listens on loopback only), UTF-8 without locale, no fsync of the new files (it is thrown
// away after the run; the server itself keeps PostgreSQL's default fsync).
func initdb(ctx context.Context, d *Deployment, b *backendServer, data string, cred *syscall.Credential) error {
	logPath := runFile(d.dir, b.kind.proc+".log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("initdb: log: %w", err)
	}
	defer func() { _ = logf.Close() }()
	cmd := exec.CommandContext(ctx, b.bins["initdb"], "-D", data, "-U", postgresUser, "-A", "trust",
		"-E", "UTF8", "--no-locale", "--no-sync")
	cmd.Env = backendEnv([]string{"PG", "LC_", "LANG"})
	cmd.Dir = b.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true, Credential: cred}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("initdb %s: %s; log %s ends:\n%s", data, describeExit(err), logPath, tail(logPath, logTailBytes))
	}
	return nil
}

// postgresDir makes b.dir reachable for cred's user: the run and backends folders traversable,
// b.dir its own. When a parent of the run directory stops that user, b.dir moves to a new
// private folder in os.TempDir, removed when the deployment closes, fails or is interrupted.
func postgresDir(d *Deployment, b *backendServer, cred *syscall.Credential) error {
	for _, dir := range []string{d.dir, d.backendsDir()} {
		if err := os.Chmod(dir, 0o711); err != nil {
			return fmt.Errorf("data dir: %w", err)
		}
	}
	if err := reachable(filepath.Dir(d.dir), cred); err != nil {
		alt, terr := os.MkdirTemp("", "daprperf-postgresql-*")
		if terr != nil {
			return fmt.Errorf("data dir: %w (and %w)", err, terr)
		}
		d.extraDirs = append(d.extraDirs, alt)
		trackDataDir(alt)
		b.dir = alt
	}
	if err := os.Chown(b.dir, int(cred.Uid), int(cred.Gid)); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if err := reachable(b.dir, cred); err != nil {
		return fmt.Errorf("data dir: user %s cannot reach it: %w: give it search permission", postgresUser, err)
	}
	return nil
}

// reachable checks that cred's user may search (enter) dir and every folder above it, from
// their owner, group and mode bits.
func reachable(dir string, cred *syscall.Credential) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		var bit fs.FileMode = 0o001
		switch {
		case st.Uid == cred.Uid:
			bit = 0o100
		case st.Gid == cred.Gid:
			bit = 0o010
		}
		if fi.Mode().Perm()&bit == 0 {
			return fmt.Errorf("%s (mode %v, owner %d) is not searchable by uid %d", d, fi.Mode().Perm(), st.Uid, cred.Uid)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
