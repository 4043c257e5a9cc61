#!/bin/sh
# missing-backends.sh [-v] [BACKEND...]: prints the Debian package of each given backend (redis,
# postgresql, rabbitmq, mqtt; none: all four) that is not installed, one per line. It looks
# where local/backend_*.go looks for each binary. -v adds, after a tab, the backend and the
# files looked for.
set -eu
verbose=
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
[ $# -gt 0 ] || set -- redis postgresql rabbitmq mqtt

# PostgreSQL: as local/backend_postgres.go (findPostgres), the newest /usr/lib/postgresql/<N>/bin
# with both postgres and initdb; with none, the package Debian's postgresql metapackage depends
# on (postgresql-15 on Debian 12), or the metapackage itself.
pg_bin=$(for d in /usr/lib/postgresql/*/bin; do
	[ -x "$d/postgres" ] && [ -x "$d/initdb" ] && echo "$d"
done | sort -V | tail -n 1)
pg_pkg=$(LC_ALL=C apt-cache depends postgresql 2>/dev/null | sed -n 's/^ *Depends: \(postgresql-[0-9][0-9]*\)$/\1/p' | head -n 1)
pg_pkg=${pg_pkg:-postgresql}
pg_look=${pg_bin:-/usr/lib/postgresql/<version>/bin}

# missing PACKAGE BACKEND WHAT: prints PACKAGE (and, with -v, what was looked for).
missing() {
	if [ -n "$verbose" ]; then printf '%s\t%s: %s\n' "$1" "$2" "$3"; else echo "$1"; fi
}
for b; do
	case $b in
	redis)
		command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] ||
			missing redis-server redis "redis-server on PATH or /usr/bin/redis-server"
		;;
	postgresql)
		[ -n "$pg_bin" ] ||
			missing "$pg_pkg" postgresql "$pg_look/postgres and $pg_look/initdb"
		;;
	rabbitmq)
		[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] ||
			missing rabbitmq-server rabbitmq "/usr/lib/rabbitmq/bin/rabbitmq-server (and epmd, from erlang-base)"
		;;
	mqtt)
		command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] ||
			missing mosquitto mqtt "mosquitto on PATH or /usr/sbin/mosquitto"
		;;
	*)
		echo "missing-backends: unknown backend '$b' (want redis, postgresql, rabbitmq or mqtt)" >&2
		exit 2
		;;
	esac
done
exit 0
