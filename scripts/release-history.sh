#!/usr/bin/env bash
# release-history.sh: daprd's release history on this machine (make release-history;
# docs/results.md#the-release-history). For each release in RELEASES, in order, it builds daprd
# and sentry when missing, then runs make nightly with the si set (service invocation
# HTTP and gRPC, 500 QPS, 6 rounds of 10 s) under run id release-<version>, into the report root
# RELEASE_ROOT. Each release is one night of that root's history, so its trend page is the
# releases' series with their change points, and each night is decided against the releases
# before it. A release whose run folder is there already is skipped, so the history can be made
# over several sittings; the history orders nights by start time, so to redo one release, remove
# its folder and those of the releases after it.
#
# Environment: RELEASES (default: the releases from v1.16.0 the module proxy serves and that
# build here; docs/results.md names those refused), RELEASE_ROOT (default reports/releases).
# Exit codes: 0 every release ran (some may have regressed: make nightly's 7 is recorded, not
# an error); 1 a build or a night failed otherwise (named; the releases after it still run).
set -euo pipefail
cd "$(dirname "$0")/.."
releases=${RELEASES:-v1.16.0 v1.16.2 v1.16.5 v1.17.0 v1.17.5}
root=${RELEASE_ROOT:-reports/releases}
failed=()
for v in $releases; do
	[[ "$v" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release-history: RELEASES: $v: want versions such as v1.17.5" >&2; exit 2; }
	id=release-$v
	if [ -e "$root/runs/$id" ]; then
		echo "release-history: $id is there already: skipped"
		continue
	fi
	echo "release-history: $v"
	# Service invocation starts daprd and, with mTLS, sentry; not placement or the scheduler,
	# whose builds some releases cannot make here (modules the proxy refuses). make -o daprd
	# keeps make nightly from building them.
	if ! make ".daprd/$v/daprd" ".daprd/$v/sentry" DAPR_VERSION="$v"; then
		failed+=("$v (build)")
		continue
	fi
	rc=0
	env DAPR_VERSION="$v" DAPR_PERF_NIGHTLY_SET=si DAPR_PERF_REPORT_DIR="$root" DAPR_PERF_RUN_ID="$id" \
		DAPR_PERF_INVALID_RETRIES="${DAPR_PERF_INVALID_RETRIES:-1}" make -o daprd nightly || rc=$?
	case $rc in
	0) ;;
	7) echo "release-history: $v regressed against the releases before it (make nightly's exit 7)" ;;
	*) failed+=("$v (make nightly exited $rc)") ;;
	esac
done
# Each release's runs are published references under reports/: write their golden figures and
# summaries (perf/report's golden test), as make publish does for a version's reference.
case $root in
reports/*) go test -count=1 -run '^TestFiguresAndSummariesOfEveryFixture$' ./perf/report/ -update-missing ;;
esac
((${#failed[@]} == 0)) || { echo "release-history: failed: ${failed[*]}" >&2; exit 1; }
echo "release-history: the trend page: $root/history/index.html"
