# shellcheck shell=bash
# Sourced by scripts/perf.sh: the suite's plan before make perf, and its progress during it.
#
#   perf_plan          runs the plan-only pass over the test binaries perf_build built
#                      (scripts/perf-tests.sh; each under DAPR_PERF_PLAN_ONLY=1 with -test.v: it
#                      prints each scenario's plan line and starts no process), prints the
#                      suite's plan table and expected total (cmd/perfplan), and keeps the
#                      expected time of each package for perf_progress. Returns 2, with the
#                      binaries' output, when the pass fails as a test fails (exit 1: a
#                      configuration error, the one thing the pass checks), 1 on any other
#                      failure (a binary that panicked or died, perfplan).
#   perf_progress [LOG]
#                      a filter for the real run's go test output: passes every line through and
#                      adds "perf: package k of N ..." at each package's start (elapsed time, the
#                      suite's ETA from the plan) and end (its wall time against its plan); with
#                      LOG, also appends every line it prints to that file.
#
# Uses $go. The ETA is the plan's expected time of the packages not finished yet: an estimate
# from the phases' lengths, not a measurement; closed-loop runs (the workflows' iterations,
# planned at their maxDuration) are not in it.

# fmt_secs S: S seconds as 1h02m03s, 4m05s or 6s.
fmt_secs() {
	local s=$1
	if ((s >= 3600)); then printf '%dh%02dm%02ds' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
	elif ((s >= 60)); then printf '%dm%02ds' $((s / 60)) $((s % 60))
	else printf '%ds' "$s"; fi
}

plan_order=()
declare -A plan_secs=()
plan_total=0
plan_upto=0

perf_plan() {
	local out start rc row name secs pkg
	out=$(mktemp) || return 1
	if ! "$go" build -o .bin/perfplan ./cmd/perfplan; then
		echo "perf: cannot build ./cmd/perfplan to read the plan" >&2
		rm -f "$out"
		return 1
	fi
	echo "perf: plan: listing every scenario's plan (DAPR_PERF_PLAN_ONLY=1: nothing starts)"
	start=$SECONDS
	rc=0
	local other=0 one
	for pkg in "${perf_pkgs[@]}"; do
		DAPR_PERF_PLAN_ONLY=1 perf_exec "$pkg" -test.v=true -test.timeout=20m >>"$out" 2>&1 || { one=$?; rc=$one; ((one == 1)) || other=$one; }
	done
	if ((rc != 0)); then
		echo "perf: the plan-only pass failed (a test binary exited $rc), before any process started:" >&2
		grep -v "^daprperf-plan " "$out" | grep -Ev '^(=== |[[:space:]]*--- PASS)' | tail -40 >&2
		rm -f "$out"
		((other == 0)) && return 2
		return 1
	fi
	if ! .bin/perfplan table "$out"; then
		rm -f "$out"
		return 1
	fi
	while read -r name secs upto _; do
		plan_order+=("$name")
		plan_secs[$name]=$secs
		plan_total=$((plan_total + secs))
		plan_upto=$((plan_upto + upto))
	done < <(.bin/perfplan packages "$out")
	rm -f "$out"
	echo "perf: plan listed in $((SECONDS - start)) s; expected about $(fmt_secs "$plan_total") for ${#plan_order[@]} packages$( ((plan_upto > 0)) && echo ", plus closed-loop runs of up to $(fmt_secs "$plan_upto")"), an estimate from the plans; the ETA lines below count the former only"
}

perf_progress() {
	trap '' INT # SIGINT is go test's to handle: keep reading so the runs can stop cleanly
	local log
	exec {log}>>"${1:-/dev/null}" || { echo "perf: cannot append to the log $1: the run goes on without it" >&2; exec {log}>/dev/null; }
	# say LINE: LINE to stdout and to the log.
	say() { printf '%s\n' "$1"; printf '%s\n' "$1" >&"$log"; }
	local n=${#plan_order[@]} k=0 begun=$SECONDS pkg_start=$SECONDS done_secs=0 line pkg wall
	local re='^(ok|FAIL|\?)[[:space:]]+[^[:space:]]*/(tests/[^[:space:]]+)'
	announce() {
		local name=${plan_order[k]} left=$((plan_total - done_secs))
		say "perf: package $((k + 1)) of $n: $name (plan $(fmt_secs "${plan_secs[$name]}")); elapsed $(fmt_secs $((SECONDS - begun))), suite ETA about $(fmt_secs "$left") left ($(date -u -d "+$left seconds" +%H:%M) UTC)"
	}
	((n > 0)) && announce
	while IFS= read -r line; do
		say "$line"
		[[ $line =~ $re ]] || continue
		pkg=${BASH_REMATCH[2]}
		[[ -n ${plan_secs[$pkg]+set} ]] || continue
		wall=$((SECONDS - pkg_start))
		say "perf: package $((k + 1)) of $n done: $pkg in $(fmt_secs "$wall") of wall time (plan $(fmt_secs "${plan_secs[$pkg]}"))"
		done_secs=$((done_secs + plan_secs[$pkg]))
		k=$((k + 1))
		pkg_start=$SECONDS
		((k < n)) && announce
	done
	exec {log}>&-
	return 0
}
