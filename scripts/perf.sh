#!/usr/bin/env bash
# perf.sh [-run REGEXP] [PACKAGE...]: the main job behind `make perf`. Runs the perf scenarios
# (default ./tests/...) one package at a time under one run id, after printing the suite's plan
# (scripts/perf-plan.sh; with DAPR_PERF_PLAN_ONLY=1 nothing more), then a line per package with
# the suite's ETA. It exits with the worst outcome of the run's result files (charts exitcode;
# the codes are perf/outcome.go's, the worst is the largest), prints it, and after a run writes
# it to <run dir>/exit-code:
#
#   0    every scenario passed
#   3    a bound was missed (errors, restarts, QPS ratio, an enforced overhead bound)
#   4    an invalid run (the load did not keep its schedule or reach its QPS)
#   5    an infrastructure error (platform, tester or push failed, a store or broker exited, a
#        run ended early, a scenario wrote no result file, a test binary did not build)
#   6    a configuration or usage error, before any process started: a bad DAPR_PERF_* value
#        (the plan-only pass fails), a bad flag or no test package in the arguments
#   130  interrupted (Ctrl-C): the running scenario kept what it measured, marked interrupted;
#        the packages after it did not run
#
# The run's go test output, as printed, is appended to <run dir>/test.log. When the code is not 0
# the script ends with why: the result files that did not pass and the lines around each failed
# test in that log, so that the last lines of a CI log name the cause.
#
# After a run it draws the run's report (charts report): each scenario's charts, README.md and
# report.html, and <run dir>/index.html, the run's verdicts linking every scenario's page; it
# prints the index's path. A drawing failure is printed and leaves the exit code as it is.
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
# The codes this script decides itself (perf/outcome.go has all of them).
code_infra=5 code_config=6 code_interrupted=130
# Ctrl-C reaches the running test binary too (same process group); the script notes it, lets the
# binary keep its result, and ends with code_interrupted.
interrupted=
trap 'interrupted=1' INT

pkgs=("$@") # packages (./tests/... when none) and -run REGEXP: scripts/perf-tests.sh

plan_only=${DAPR_PERF_PLAN_ONLY:-}
case $plan_only in
'' | 0 | false | 1 | true) ;;
*) echo "perf: DAPR_PERF_PLAN_ONLY=\"$plan_only\": must be 1 or true (print the plan, start nothing), 0 or false: configuration error" >&2; exit $code_config ;;
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
# stopped EXIT_CODE: exits with code_interrupted instead when Ctrl-C came meanwhile.
stopped() {
	[ -z "$interrupted" ] || { echo "perf: interrupted before the run started: exit $code_interrupted" >&2; exit $code_interrupted; }
	exit "$1"
}
perf_build "${pkgs[@]}"
case $? in
0) ;;
2) echo "perf: no test binaries to run: usage error (the arguments above)" >&2; stopped $code_config ;;
*) echo "perf: no test binaries to run: infrastructure error" >&2; stopped $code_infra ;;
esac
[ -n "${PERF_TEST_BINARIES:-}" ] || echo "perf: built ${#perf_pkgs[@]} test binaries in $((SECONDS - start)) s"
PATH="$("$go" env GOROOT)/bin:$PATH"
export PATH
# The plan next (scripts/perf-plan.sh): each binary under DAPR_PERF_PLAN_ONLY=1 prints its
# scenarios' plans, starting nothing; a configuration error stops here, before any load. Under
# DAPR_PERF_PLAN_ONLY=1 (make perf-plan) that is all.
# shellcheck source=scripts/perf-plan.sh
. scripts/perf-plan.sh
perf_plan
case $? in
0) ;;
2) echo "perf: configuration error (exit $code_config): nothing started" >&2; stopped $code_config ;;
*) stopped $code_infra ;;
esac
case $plan_only in 1 | true) stopped 0 ;; esac

# why: after a run that did not pass, what did not: the verdicts of the result files that did not
# pass (charts exitcode's lines), then up to 12 lines before each failed test's "--- FAIL" line in
# the log (go test -v prints a test's errors as they happen, so they come just before it), at
# most 40 lines in all.
why() {
	echo "perf: why exit $code:"
	grep -v ' (exit 0): ' <<<"$verdicts" | grep -v '^exit ' | head -12 | sed 's/^/  /'
	[ -f "$log" ] || return 0
	grep -q -E '^[[:space:]]*--- FAIL' "$log" || return 0
	echo "perf: the failed tests in $log, with the lines before each:"
	grep -B12 -E '^[[:space:]]*--- FAIL' "$log" | tail -40 | sed 's/^/  /'
}

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
mkdir -p "$dir" || echo "perf: cannot create $dir (the test binaries will say why)" >&2
log=$dir/test.log
run_all | perf_progress "$log"
rc=${PIPESTATUS[0]}
echo "perf: the test binaries exited $rc (1: one failed or was interrupted); the result files say:"
# Built, not `go run`: go run turns every non-zero exit into 1.
charts= verdicts=
if "$go" build -o .bin/charts ./charts; then
	charts=.bin/charts
	verdicts=$($charts exitcode -go-test-exit "$rc" "$dir")
	code=$?
	printf '%s\n' "$verdicts"
else
	echo "perf: cannot build ./charts to read the results: infrastructure error" >&2
	code=$code_infra
fi
if [ -n "$interrupted" ] && ((code != code_interrupted)); then
	echo "perf: interrupted (Ctrl-C): exit $code_interrupted, whatever the result files say ($code); they keep what was measured"
	code=$code_interrupted
fi
# The run's code beside its results, for callers that only see make's 2.
mkdir -p "$dir" && echo "$code" >"$dir/exit-code" || echo "perf: cannot write $dir/exit-code" >&2
# The run's report, from the result files (already written, and only read here). A failure to
# draw it is printed; the exit code stays the results'.
report=
if [ -n "$charts" ]; then
	echo "perf: drawing the run's report: each scenario's charts, README.md and report.html, and the run's index.html"
	if $charts report "$dir"; then
		report=$dir/index.html
	else
		echo "perf: the run's report is incomplete (above); the results and the exit code ($code) are unchanged" >&2
		[ ! -f "$dir/index.html" ] || report=$dir/index.html
	fi
fi
echo "perf: the results of run $run_id are in $dir (exit code $code, also in $dir/exit-code)"
[ -z "$report" ] || echo "perf: the run's report: $report (its verdicts first, a link to every scenario's report.html)"
echo "perf: compare with a reference: go run ./charts compare v<version> $run_id; publish it: make publish RUN=$run_id"
((code == 0)) || why
exit "$code"
