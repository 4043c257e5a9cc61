#!/usr/bin/env bash
# perf.sh [-run REGEXP] [PACKAGE...]: the job behind make perf and its targets, cmd/perfsuite
# (its doc comment has the steps, the exit codes and the environment), built and run from the
# repository root. Built, not go run: go run turns every non-zero exit into 1.
set -u
cd "$(dirname "$0")/.."
export DAPR_PERF_COMMAND=${DAPR_PERF_COMMAND:-scripts/perf.sh${*:+ $*}}
"${GO:-go}" build -o .bin/perfsuite ./cmd/perfsuite || { echo "perf: cannot build ./cmd/perfsuite: infrastructure error (exit 5)" >&2; exit 5; }
exec .bin/perfsuite "$@"
