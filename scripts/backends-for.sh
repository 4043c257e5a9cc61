#!/usr/bin/env bash
# backends-for.sh [PACKAGE...]: the stores and brokers the local platform starts for the given
# perf packages (./tests/<name>, tests/<name> or <name>; ./tests/... or none: every one), one
# line per backend: "<backend><TAB><the packages that use it>", backends as local/ names them
# (redis, postgresql, rabbitmq, mqtt). A package that uses none prints nothing.
#
# The table below is the one place this is written down. It follows the components and
# perf.App.Backends of tests/scenarios/: redis for state.redis, pubsub.redis,
# configuration.redis and the actor hosts' lock (actorApps); postgresql for state.postgresql,
# the actor state store of every actor package and the workflows' default store;
# rabbitmq for pubsub.rabbitmq; mqtt for pubsub.mqtt3. A package missing from it gets every
# backend, with a note on stderr, so that a new package never runs short.
set -euo pipefail
cd "$(dirname "$0")/.."

all="redis postgresql rabbitmq mqtt"
# workflows runs on the one backend DAPR_PERF_WORKFLOW_BACKEND names, or Dapr's
# DAPR_PERF_WORKFLOW_BACKEND_NAME when that is unset (tests/scenarios/workflows.go).
case ${DAPR_PERF_WORKFLOW_BACKEND:-${DAPR_PERF_WORKFLOW_BACKEND_NAME:-postgresql}} in
redis) workflows=redis ;;
postgres | postgresql) workflows=postgresql ;;
*) workflows="" ;;
esac
declare -A table=(
	[actor_activation]="redis postgresql"
	[actor_double_activation]="redis postgresql"
	[actor_id_scale]="redis postgresql"
	[actor_reminder]="redis postgresql"
	[actor_timer]="redis postgresql"
	[actor_type_scale]="redis postgresql"
	[configuration_get_grpc]=redis
	[configuration_get_http]=redis
	[configuration_subscribe_grpc]=redis
	[configuration_subscribe_http]=redis
	[jobs]=""
	[memory_growth]=""
	[pubsub_bulk_publish_grpc]=redis
	[pubsub_bulk_publish_http]=redis
	[pubsub_publish_grpc]="redis rabbitmq mqtt"
	[pubsub_publish_http]=redis
	[pubsub_subscribe_grpc]="redis rabbitmq mqtt"
	[pubsub_subscribe_http]="redis rabbitmq mqtt"
	[service_invocation_grpc]=""
	[service_invocation_http]=""
	[service_invocation_ramp]=""
	[state_get_grpc]="redis postgresql"
	[state_get_http]="redis postgresql"
	[state_save_grpc]="redis postgresql"
	[state_save_http]="redis postgresql"
	[workflows]=$workflows
)

# The perf packages on disk, as make perf finds them (a test file with the perf build tag).
every() {
	grep -l '^//go:build perf' tests/*/*_test.go | xargs -n1 dirname | xargs -n1 basename | sort -u
}

names=()
(($#)) || set -- ./tests/...
for arg; do
	name=${arg%/}
	name=${name##*tests/}
	name=${name#./}
	if [ "$name" = ... ]; then
		mapfile -t -O "${#names[@]}" names < <(every)
	else
		names+=("$name")
	fi
done

declare -A users=()
for name in "${names[@]}"; do
	if [[ -v table[$name] ]]; then
		used=${table[$name]}
	else
		echo "backends-for: $name is not in scripts/backends-for.sh's table: counting every backend for it" >&2
		used=$all
	fi
	for b in $used; do
		case " ${users[$b]:-} " in *" $name "*) ;; *) users[$b]="${users[$b]:+${users[$b]} }$name" ;; esac
	done
done
for b in $all; do
	[ -z "${users[$b]:-}" ] || printf '%s\t%s\n' "$b" "${users[$b]}"
done
