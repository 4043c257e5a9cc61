#!/bin/sh
# Prints the Debian packages of the backends the local platform starts (local/backend_*.go) that
# are not installed, one per line: redis-server, postgresql-15, rabbitmq-server, mosquitto. The
# paths are where local/ looks for each binary.
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || echo redis-server
[ -x /usr/lib/postgresql/15/bin/postgres ] && [ -x /usr/lib/postgresql/15/bin/initdb ] || echo postgresql-15
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || echo rabbitmq-server
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || echo mosquitto
exit 0
