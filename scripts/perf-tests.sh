# shellcheck shell=bash
# Sourced by scripts/perf.sh: the suite's test binaries, built once and run as go test runs them.
#
#   perf_build ARG...   ARG is the packages and flags perf.sh was given (packages as go test takes
#                       them, ./tests/... by default; the one flag is -run REGEXP). Lists the
#                       packages (go list), then compiles and links each one's test binary once
#                       (go test -tags perf -c -o DIR/), compile and link actions side by side,
#                       into a folder of its own under .bin/ that perf_cleanup removes. Sets
#                       perf_pkgs (import paths), perf_dirs and perf_bins (by import path) and
#                       perf_run. Returns non-zero, with the reason on stderr, on a bad flag or a
#                       build error.
#                       With PERF_TEST_BINARIES=DIR it builds nothing and takes each package's
#                       binary from DIR (DIR/<last path element>.test, as `go test -tags perf -c
#                       -o DIR/ PACKAGE...` names them), which perf_cleanup leaves in place; a
#                       package with no binary there is an error naming the file. Whether those
#                       binaries are current is the caller's business: .ci/run builds them from
#                       its own checkout in the background while daprd compiles.
#   perf_exec PKG ARG...
#                       runs PKG's binary in its package folder, as go test does, with
#                       -test.count=1 -test.paniconexit0 (-test.run when given) and ARG, then
#                       prints go test's last line for it ("ok  \t<pkg>\t1.234s" or
#                       "FAIL\t<pkg>\t1.234s") and returns the binary's exit status.
#   perf_cleanup        removes the binaries' folder.
#
# Why not go test over the packages: go test links each test binary again every time it runs
# (Go's build cache keeps no links), so the plan pass and the run would link each twice, the
# run's links one at a time between the packages. Uses $go.

perf_pkgs=()
perf_run=
declare -A perf_dirs=() perf_bins=()
perf_bindir=

perf_build() {
	local args=() a imp dir ntest nxtest list
	while (($#)); do
		case $1 in
		-run)
			(($# >= 2)) || { echo "perf: -run needs a regular expression (go test's -run)" >&2; return 2; }
			perf_run=$2
			shift 2
			;;
		-run=*) perf_run=${1#-run=}; shift ;;
		-*) echo "perf: flag $1: the one flag perf.sh takes is -run REGEXP (go test's -run); the rest are packages" >&2; return 2 ;;
		*) args+=("$1"); shift ;;
		esac
	done
	((${#args[@]})) || args=(./tests/...)
	local bindir=${PERF_TEST_BINARIES:-}
	if [ -n "$bindir" ]; then
		[ -d "$bindir" ] || { echo "perf: PERF_TEST_BINARIES=$bindir: not a folder (it names a folder of test binaries built by go test -tags perf -c -o DIR/)" >&2; return 2; }
		bindir=$(realpath "$bindir") || return 1
	else
		mkdir -p .bin || return 1
		perf_bindir=$(mktemp -d "$PWD/.bin/perf-tests.XXXXXX") || return 1
		bindir=$perf_bindir
	fi
	list=$("$go" list -tags perf -f '{{.ImportPath}}{{"\t"}}{{.Dir}}{{"\t"}}{{len .TestGoFiles}}{{"\t"}}{{len .XTestGoFiles}}' "${args[@]}") || return 1
	while IFS=$'\t' read -r imp dir ntest nxtest; do
		((ntest + nxtest > 0)) || continue # go test -c writes no binary for a package without tests
		perf_pkgs+=("$imp")
		perf_dirs[$imp]=$dir
		perf_bins[$imp]=$bindir/${imp##*/}.test
	done <<<"$list"
	((${#perf_pkgs[@]})) || { echo "perf: no test package in ${args[*]}" >&2; return 2; }
	if [ -n "${PERF_TEST_BINARIES:-}" ]; then
		for a in "${perf_pkgs[@]}"; do
			[ -x "${perf_bins[$a]}" ] || { echo "perf: PERF_TEST_BINARIES=$PERF_TEST_BINARIES has no test binary for $a (want ${perf_bins[$a]}; build them with go test -tags perf -c -o DIR/ PACKAGE...)" >&2; return 2; }
		done
		return 0
	fi
	"$go" test -tags perf -c -o "$perf_bindir/" "${perf_pkgs[@]}" || return 1
	for a in "${perf_pkgs[@]}"; do
		[ -x "${perf_bins[$a]}" ] || { echo "perf: go test -c wrote no test binary for $a at ${perf_bins[$a]}" >&2; return 1; }
	done
}

perf_exec() {
	local pkg=$1 start rc
	shift
	start=$EPOCHREALTIME
	(cd "${perf_dirs[$pkg]}" && exec "${perf_bins[$pkg]}" -test.count=1 -test.paniconexit0 ${perf_run:+"-test.run=$perf_run"} "$@")
	rc=$?
	local secs
	secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	if ((rc == 0)); then printf 'ok  \t%s\t%ss\n' "$pkg" "$secs"; else printf 'FAIL\t%s\t%ss\n' "$pkg" "$secs"; fi
	return "$rc"
}

perf_cleanup() {
	[ -z "$perf_bindir" ] || rm -rf "$perf_bindir"
}
