package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"github.com/daprperf/daprperf/internal/pgdirs"
)

// The in-cluster PostgreSQL that BackendsUp starts: Debian's newest installed postgresql-<N>,
// superuser PostgreSQLUser with trust authentication (no password), database "postgres".
const (
	PostgreSQLService = "postgresql"
	PostgreSQLPort    = 5432
	PostgreSQLUser    = "postgres"
)

// postgresRoot is where Debian's postgresql-<N> packages put their programs, <root>/<N>/bin, and
// modules, <root>/<N>/lib; their data files are under /usr/share/postgresql/<N>.
const postgresRoot = pgdirs.Root

// postgresData is the pod's emptyDir; the cluster's files are in its pgdata folder (initdb
// wants a folder it creates, or an empty one it owns).
const (
	postgresData   = "/var/lib/postgresql/data"
	postgresPGDATA = postgresData + "/pgdata"
)

// postgresHBA is the image's client authentication file: trust for every client, as the local
// platform's initdb --auth trust, for any address. initdb's own file admits loopback only,
// and daprd and the tester reach the pod from the pod network (through a Service, from the
// bridge's address). Nothing outside the cluster reaches the pod network.
const postgresHBA = "/etc/postgresql/pg_hba.conf"

// postgresImageName is the image of the newest installed PostgreSQL.
var postgresImageName = ImageRegistry + "/postgresql:" + ImageTag

// postgresBackend runs the newest installed PostgreSQL: an init container makes the cluster
// with initdb in an emptyDir, then postgres serves it over TCP only.
var postgresBackend = &backend{
	name:      PostgreSQLService,
	port:      PostgreSQLPort,
	pkg:       "postgresql",
	installed: func() bool { return newestPostgres() != "" },
	image:     postgresImage,
	pod:       postgresPod,
}

// newestPostgres is the newest <postgresRoot>/<N> with initdb, postgres and pg_isready in its
// bin folder; "" for none.
func newestPostgres() string {
	for _, version := range pgdirs.Versions(postgresRoot) {
		dir := filepath.Join(postgresRoot, version)
		ok := true
		for _, p := range []string{"initdb", "postgres", "pg_isready"} {
			if _, err := os.Stat(filepath.Join(dir, "bin", p)); err != nil {
				ok = false
			}
		}
		if ok {
			return dir
		}
	}
	return ""
}

// postgresImage is an image of the newest installed PostgreSQL (hostImage): postgres, initdb
// and pg_isready (the readiness probe), the version's modules and data files, the time zones,
// and /bin/sh, through which initdb runs postgres. It runs as an unprivileged user, named
// postgres in /etc/passwd (initdb looks its user up), with TZ=UTC (initdb writes the cluster's
// time zone from it). JIT is off (postgresPod): its module, which loads LLVM (130 MB of
// libraries), and its bitcode are left out. initdb warns that it finds no system locales (the
// image has no locale program): the cluster's locale is C (--no-locale), which needs none.
func postgresImage(ctx context.Context) (Image, error) {
	dir := newestPostgres()
	if dir == "" {
		return Image{}, fmt.Errorf("postgresql image: no %s/<version>/bin with initdb, postgres and pg_isready (install Debian's postgresql)", postgresRoot)
	}
	version := filepath.Base(dir)
	return hostImage(ctx, hostImageSpec{
		name: postgresImageName,
		pkg:  "postgresql-" + version,
		programs: []string{filepath.Join(dir, "bin", "postgres"), filepath.Join(dir, "bin", "initdb"),
			filepath.Join(dir, "bin", "pg_isready"), "/bin/sh"},
		trees: []string{filepath.Join(dir, "lib"), filepath.Join("/usr/share/postgresql", version), "/usr/share/zoneinfo"},
		skip: []string{filepath.Join(dir, "lib", "llvmjit.so"), filepath.Join(dir, "lib", "llvmjit_types.bc"),
			filepath.Join(dir, "lib", "bitcode"), "/usr/share/zoneinfo/right"},
		files: []ImageFile{passwdFile(PostgreSQLUser, postgresData),
			{Path: postgresHBA, Mode: 0o644, Data: []byte("host all all 0.0.0.0/0 trust\nhost all all ::/0 trust\n")}},
		env:  []string{"TZ=UTC"},
		user: backendUser,
	})
}

// postgresPod initialises the cluster (superuser PostgreSQLUser, trust authentication, UTF-8
// without locale, no fsync of initdb's files: the data goes with the pod) and serves it on
// l's address to any client (postgresHBA): no Unix socket, the log on stderr, dynamic shared memory in files of the data
// folder (a container's /dev/shm is small), no JIT. Ready once pg_isready answers.
func postgresPod(im Image, l listenOn) corev1.PodSpec {
	bin := filepath.Dir(im.Entrypoint[3])
	port := l.port(PostgreSQLPort)
	data := corev1.VolumeMount{Name: "data", MountPath: postgresData}
	initdb := corev1.Container{
		Name:            "initdb",
		Image:           im.Name,
		ImagePullPolicy: corev1.PullNever,
		Command: command(im, filepath.Join(bin, "initdb"), "--pgdata", postgresPGDATA, "--username", PostgreSQLUser,
			"--auth", "trust", "--encoding", "UTF8", "--no-locale", "--no-sync"),
		VolumeMounts: []corev1.VolumeMount{data},
	}
	ready := corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: command(im, filepath.Join(bin, "pg_isready"),
		"--host", "127.0.0.1", "--port", fmt.Sprint(port), "--username", PostgreSQLUser, "--dbname", "postgres", "--quiet")}}
	args := []string{"-D", postgresPGDATA, "-p", fmt.Sprint(port),
		"-c", "listen_addresses=" + l.addr,
		"-c", "unix_socket_directories=",
		"-c", "hba_file=" + postgresHBA,
		"-c", "logging_collector=off",
		"-c", "dynamic_shared_memory_type=mmap",
		"-c", "jit=off",
	}
	return corev1.PodSpec{
		Volumes:        []corev1.Volume{emptyDir("data")},
		InitContainers: []corev1.Container{initdb},
		Containers:     []corev1.Container{backendContainer(PostgreSQLService, im, port, ready, args, nil, data)},
	}
}

// PostgreSQLAddr is the in-cluster address of BackendsUp's PostgreSQL, the value of
// DAPR_PERF_POSTGRESQL_ADDR for a run on this cluster (user and database "postgres" are the
// platform's defaults).
func PostgreSQLAddr() string { return backendAddr(PostgreSQLService, PostgreSQLPort) }
