#!/usr/bin/env bash
# perf-deps.sh WHAT [PACKAGE...]: installs the stores and brokers the local platform starts for
# the given perf packages (scripts/backends-for.sh; none: every package) that are not installed
# yet (scripts/missing-backends.sh), with scripts/apt-install.sh. Each missing package is named
# first, with the backend and the packages that need it; WHAT (e.g. "make perf") heads those
# lines. Without apt-get it names what to install and exits 0: the scenarios on a missing
# backend then fail, naming its package.
set -euo pipefail
what=${1:?usage: perf-deps.sh WHAT [PACKAGE...]}
shift
cd "$(dirname "$0")/.."

used=$(scripts/backends-for.sh "$@")
[ -n "$used" ] || exit 0
declare -A users=()
backends=()
while IFS=$'\t' read -r b pkgs; do
	backends+=("$b")
	users[$b]=$pkgs
done <<<"$used"

missing=$(scripts/missing-backends.sh -v "${backends[@]}")
[ -n "$missing" ] || exit 0
pkgs=()
while IFS=$'\t' read -r pkg why; do
	pkgs+=("$pkg")
	b=${why%%:*}
	read -ra by <<<"${users[$b]}"
	((${#by[@]} <= 3)) || by=("${by[@]:0:2}" "and $((${#by[@]} - 2)) more")
	echo "$what: needs $pkg, for $b (${by[*]}); not found: ${why#*: }"
done <<<"$missing"
scripts/apt-install.sh --for "$what" --or-warn "${pkgs[@]}"
