#!/usr/bin/env bash
# perf.sh [-run REGEXP] [PACKAGE...]: the main job behind `make perf`. Runs the perf scenarios
# (default ./tests/...) one package at a time under one run id, after printing the suite's plan
# (scripts/perf-plan.sh; with DAPR_PERF_PLAN_ONLY=1 nothing more), then a line per package with
# the suite's ETA. It exits with the worst outcome of the run's result files (charts exitcode;
# the codes are perf/outcome.go's), prints it, and after a run writes it to <run dir>/exit-code:
#
#   0  every scenario passed
#   3  a bound was missed (errors, restarts, QPS ratio, an enforced overhead bound)
#   4  an invalid run (the load did not keep its schedule or reach its QPS)
#   5  an infrastructure or configuration error (platform, tester or push failed, a run ended
#      early, a scenario wrote no result file, a bad setting stopped the plan)
#
# Under make, any failed recipe makes make exit 2; its last line keeps this script's code
# ("make: *** [Makefile:NN: test-perf-all] Error 4"), and so does the exit-code file.
#
# Environment: DAPR_PERF_RUN_ID (default: UTC time and 4 random hex digits),
# DAPR_PERF_REPORT_DIR (default: reports; results go to <dir>/runs/<run id>/),
# DAPR_PERF_OVERHEAD_GATE (default here: warn), PERF_TIMEOUT (each test binary's -test.timeout,
# default 90m), PERF_TEST_BINARIES (prebuilt test binaries: scripts/perf-tests.sh), GO (default
# go); the rest in docs/configuration.md.
set -uo pipefail
cd "$(dirname "$0")/.."

go=${GO:-go}
run_id=${DAPR_PERF_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')}
root=$(realpath -m "${DAPR_PERF_REPORT_DIR:-reports}") # absolute: go test runs in each package's dir
export DAPR_PERF_RUN_ID=$run_id DAPR_PERF_REPORT_DIR=$root
export DAPR_PERF_COMMAND=${DAPR_PERF_COMMAND:-scripts/perf.sh${*:+ $*}}
export DAPR_PERF_OVERHEAD_GATE=${DAPR_PERF_OVERHEAD_GATE:-warn}
dir=$root/runs/$run_id

pkgs=("$@") # packages (./tests/... when none) and -run REGEXP: scripts/perf-tests.sh

plan_only=${DAPR_PERF_PLAN_ONLY:-}
case $plan_only in
'' | 0 | false | 1 | true) ;;
*) echo "perf: DAPR_PERF_PLAN_ONLY=\"$plan_only\": must be 1 or true (print the plan, start nothing), 0 or false" >&2; exit 5 ;;
esac
# The test binaries, built once (scripts/perf-tests.sh), and run as go test runs them: in the
# package's folder, with Go's own bin folder first in PATH (go test's children get the toolchain
# that built them, go.mod's, not an older go on PATH).
# shellcheck source=scripts/perf-tests.sh
. scripts/perf-tests.sh
trap perf_cleanup EXIT
if [ -n "${PERF_TEST_BINARIES:-}" ]; then
	echo "perf: the test binaries come from PERF_TEST_BINARIES=$PERF_TEST_BINARIES (built by the caller; nothing is built here)"
else
	echo "perf: building the test binaries"
fi
start=$SECONDS
perf_build "${pkgs[@]}" || { echo "perf: no test binaries to run: infrastructure error" >&2; exit 5; }
[ -n "${PERF_TEST_BINARIES:-}" ] || echo "perf: built ${#perf_pkgs[@]} test binaries in $((SECONDS - start)) s"
PATH="$("$go" env GOROOT)/bin:$PATH"
export PATH
# The plan next (scripts/perf-plan.sh): each binary under DAPR_PERF_PLAN_ONLY=1 prints its
# scenarios' plans, starting nothing; a configuration error stops here, before any load. Under
# DAPR_PERF_PLAN_ONLY=1 (make perf-plan) that is all.
# shellcheck source=scripts/perf-plan.sh
. scripts/perf-plan.sh
perf_plan || exit 5
case $plan_only in 1 | true) exit 0 ;; esac

echo "perf: run $run_id; results go to $dir"
# One package at a time. SIGINT (Ctrl-C reaches the running binary too, which stops its run
# cleanly and writes its result) ends the loop once that binary has exited.
run_all() {
	local pkg rc=0 stop=
	trap 'stop=1' INT
	for pkg in "${perf_pkgs[@]}"; do
		perf_exec "$pkg" -test.v=true -test.timeout="${PERF_TIMEOUT:-90m}" 2>&1 || rc=1
		[ -z "$stop" ] || { echo "perf: interrupted: the packages after ${pkg#*/tests/} do not run"; rc=1; break; }
	done
	return "$rc"
}
run_all | perf_progress
rc=${PIPESTATUS[0]}
echo "perf: the test binaries exited $rc (1: one failed or was interrupted); the result files say:"
# Built, not `go run`: go run turns every non-zero exit into 1.
if "$go" build -o .bin/charts ./charts; then
	.bin/charts exitcode -go-test-exit "$rc" "$dir"
	code=$?
else
	echo "perf: cannot build ./charts to read the results: infrastructure error" >&2
	code=5
fi
# The run's code beside its results, for callers that only see make's 2.
mkdir -p "$dir" && echo "$code" >"$dir/exit-code" || echo "perf: cannot write $dir/exit-code" >&2
echo "perf: the results of run $run_id are in $dir (exit code $code, also in $dir/exit-code)"
echo "perf: compare with a reference: go run ./charts compare v<version> $run_id; publish it: make publish RUN=$run_id"
exit "$code"
