#!/usr/bin/env bash
# calibrate.sh: the comparison verdict's calibration on this machine (make calibrate;
# docs/method.md). It runs CALIBRATE_RUNS pairs of A/B runs of service invocation over HTTP with
# the same daprd as both builds: in each pair one plain (A/A: any change called is a false alarm)
# and one with build B slowed by CALIBRATE_DELAY (DAPR_PERF_AB_DELAY: a known change to catch),
# alternating so that both see the machine alike. Each run is its own run id,
# calibrate-aa-<n> or calibrate-slowed-<delay>-<n>, under <report root>/runs/ (the slowed runs of
# each delay numbered apart; calibrate-slowed-<n>, without a delay, are 370us runs held by
# time.Sleep before the proxy held by nanosleep, kept in CALIBRATE_SAVE); a run id already there is
# skipped, as is one whose rounds CALIBRATE_SAVE holds, so a calibration can be split over
# several sittings. Then cmd/perfcalibrate adds every calibrate-* run's rounds to CALIBRATE_SAVE
# (default reports/calibration/service_invocation_http.json, committed: perf/calibrate's test
# reads it) and prints the table of all of them.
#
# Environment: CALIBRATE_RUNS (default 20), CALIBRATE_KINDS (default "aa slowed"; "aa" runs only
# the same-build runs, to reach the false-alarm count without the slowed ones), CALIBRATE_DELAY
# (default 700us: held about 0.75 ms, it moves the HTTP latency p90 at 500 QPS by about 10 % of
# the overhead p90; what it moves is measured, docs/method.md), DAPR_VERSION (the daprd, default
# v1.18.3), and the load, which defaults to DAPR_PERF_QPS=500, DAPR_TEST_DURATION=10s, DAPR_PERF_REPEATS=6 with
# no added rounds (DAPR_PERF_AB_MAX_ROUNDS = DAPR_PERF_REPEATS).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${CALIBRATE_RUNS:-20}
delay=${CALIBRATE_DELAY:-700us}
kinds=${CALIBRATE_KINDS:-aa slowed}
for k in $kinds; do
	[ "$k" = aa ] || [ "$k" = slowed ] || { echo "calibrate: CALIBRATE_KINDS=$kinds: each word must be aa or slowed" >&2; exit 2; }
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "calibrate: CALIBRATE_RUNS=$runs: must be a whole number >= 1" >&2; exit 2; }
daprd=$PWD/.daprd/${DAPR_VERSION:-v1.18.3}/daprd
[ -x "$daprd" ] || { echo "calibrate: no daprd at $daprd: run make daprd" >&2; exit 2; }
root=${DAPR_PERF_REPORT_DIR:-reports}
save=${CALIBRATE_SAVE:-reports/calibration/service_invocation_http.json}
export DAPR_PERF_QPS=${DAPR_PERF_QPS:-500} DAPR_TEST_DURATION=${DAPR_TEST_DURATION:-10s}
export DAPR_PERF_REPEATS=${DAPR_PERF_REPEATS:-6}
export DAPR_PERF_AB_MAX_ROUNDS=${DAPR_PERF_AB_MAX_ROUNDS:-$DAPR_PERF_REPEATS}
export DAPR_PERF_DAPRD_B=$daprd DAPR_PERF_OVERHEAD_GATE=warn DAPR_PERF_COMMAND="make calibrate"
for i in $(seq 1 "$runs"); do
	for kind in $kinds; do
		id=calibrate-aa-$i
		[ "$kind" = aa ] || id=calibrate-slowed-$delay-$i
		if [ -e "$root/runs/$id" ] || { [ -e "$save" ] && grep -q "\"id\": \"$id\"" "$save"; }; then
			echo "calibrate: $id is there already: skipped"
			continue
		fi
		slow=()
		[ "$kind" = aa ] || slow=(DAPR_PERF_AB_DELAY="$delay")
		echo "calibrate: $id (round $i of $runs)"
		env "${slow[@]}" DAPR_PERF_RUN_ID="$id" DAPR_PERF_REPORT_DIR="$root" ./scripts/perf.sh ./tests/service_invocation_http ||
			echo "calibrate: $id exited $?: its result file, if any, goes to perfcalibrate, which leaves out an invalid run"
	done
done
shopt -s nullglob
files=("$root"/runs/calibrate-*/service_invocation/http/result.json)
if ((${#files[@]} > 0)); then
	go run ./cmd/perfcalibrate -save "$save" "${files[@]}"
elif [ -e "$save" ]; then
	go run ./cmd/perfcalibrate -stored "$save"
else
	echo "calibrate: no calibrate-* result file under $root/runs and no $save" >&2
	exit 1
fi
