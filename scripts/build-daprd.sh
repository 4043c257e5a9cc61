#!/usr/bin/env bash
# build-daprd.sh VERSION OUT [CMD]: builds Dapr's sidecar, daprd, at VERSION (a tag served by the Go
# module proxy, e.g. v1.17.5) into the file OUT, unless OUT already exists. CMD names another of
# dapr's commands to build the same way instead: placement or scheduler (Dapr's control plane for
# actors, reminders, jobs and workflows), or sentry (the sidecars' mTLS certificates); default daprd. Each command has its own wrapper folder
# next to OUT (wrapper for daprd, wrapper-CMD otherwise), so building one never touches another.
#
# dapr's go.mod carries replace directives, which `go install pkg@version` refuses. So this script
# writes a throw-away wrapper module next to OUT: it requires github.com/dapr/dapr at VERSION,
# repeats dapr's replace directives (read from dapr's own go.mod), copies dapr's go.sum, applies
# the pins this module proxy needs (see PINS below), and runs `go build` on cmd/daprd.
#
# Environment:
#   DAPRD_TAGS  components build tag; default "stablecomponents" (has the kubernetes name resolver
#               the local platform uses, and builds faster than allcomponents).
set -euo pipefail
# shellcheck source=scripts/build-flags.sh
. "$(dirname "$0")/build-flags.sh"

version=${1:?usage: build-daprd.sh VERSION OUT}
out=${2:?usage: build-daprd.sh VERSION OUT}
tags=${DAPRD_TAGS:-stablecomponents}
cmd=${3:-daprd}

case "$version" in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "build-daprd: VERSION must look like v1.17.5, got '$version'" >&2; exit 2 ;;
esac
case "$tags" in
stablecomponents | allcomponents) ;;
*) echo "build-daprd: DAPRD_TAGS must be stablecomponents or allcomponents, got '$tags'" >&2; exit 2 ;;
esac

case "$cmd" in
daprd | placement | scheduler | sentry) ;;
*) echo "build-daprd: CMD must be daprd, placement, scheduler or sentry, got '$cmd'" >&2; exit 2 ;;
esac

mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")" # absolute: the build runs in the wrapper

if [ -x "$out" ]; then
	echo "$cmd $version: cached at $out (delete it to rebuild)"
	exit 0
fi

# Versions of dapr's dependencies that the module proxy refuses, raised to ones it serves (pins,
# given to go get), or lowered (replaces, each path@version a replace directive).
replaces=""
case "$version" in
# v1.18.3 needs three modules the proxy refuses, each replaced (replaces below; go get would meet
# a lower version by downgrading dapr itself):
# - durabletask-go v0.12.4 (and v0.12.2, v0.12.3): v0.12.1, v1.18.0's, stands in. It is an
#   ancestor of v0.12.4 on durabletask-go's release-0.12 branch, four commits behind (fixes to
#   terminating child workflows and to trace contexts on ContinueAsNew), with the same exported
#   API as far as dapr v1.18.3 uses it;
# - dapr replaces pulsar-client-go by a fork, github.com/twmb/pulsar-client-go, which the proxy
#   serves no version of: the upstream module's v0.19.0 stands in, and builds;
# - github.com/iskorotkov/avro/v2 v2.33.1, which the fork uses: v2.34.0 stands in.
# Only the Pulsar pub/sub component, which no scenario here uses, is built from other code.
v1.18.3) pins="" replaces="github.com/dapr/durabletask-go@v0.12.1 github.com/apache/pulsar-client-go@v0.19.0 github.com/iskorotkov/avro/v2@v2.34.0" ;;
# v1.17.0's components-contrib v1.17.0 (and v1.17.1, v1.17.2) is refused too: v1.17.3, v1.17.5's,
# stands in, so that build is v1.17.0's runtime with v1.17.5's components (result files record the
# modules daprd was built with).
v1.17.0) pins="github.com/dapr/durabletask-go@v0.11.3 github.com/dapr/components-contrib@v1.17.3" ;;
v1.17.*) pins="github.com/dapr/durabletask-go@v0.11.3" ;;
# v1.16.2's components-contrib v1.16.3 is refused: v1.16.5's stands in, as for v1.17.0.
v1.16.2) pins="github.com/choleraehyq/pid@v0.0.24 github.com/dapr/components-contrib@v1.16.5" ;;
v1.16.*) pins="github.com/choleraehyq/pid@v0.0.24" ;;
*) pins="" ;;
esac
# The scheduler of v1.17 needs github.com/diagridio/go-etcd-cron v0.12.4, and of v1.18.0 and
# v1.18.1 v0.12.5, which the proxy refuses (403): v0.12.6 builds, and leaves the set of modules
# daprd resolves unchanged. So this scheduler is not
# byte-for-byte the released one: result files record it.
if [ "$cmd" = scheduler ]; then
	case "$version" in
	v1.17.* | v1.18.0 | v1.18.1) pins="$pins github.com/diagridio/go-etcd-cron@v0.12.6" ;;
	esac
fi

# progress LABEL PREFIX: counts the lines of a go command's output that start with PREFIX (all
# lines when empty) and prints the count now and then; any other line, such as an error, is printed.
progress() {
	awk -v label="$1" -v prefix="$2" '
		index($0, prefix) == 1 && (prefix != "" || $0 !~ /[ :]/) {
			n++; if (n % 200 == 0) { printf "  %s: %d\n", label, n; fflush() }; next }
		{ print; fflush() }
		END { printf "  %s: %d\n", label, n }'
}

start=$(date +%s)
work="$(dirname "$out")/wrapper"
[ "$cmd" = daprd ] || work="$work-$cmd"
rm -rf "$work"
mkdir -p "$work"

echo "$cmd $version: [1/4] fetching github.com/dapr/dapr@$version from the module proxy"
info=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/dapr/dapr@$version")
dapr_dir=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
dapr_mod=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
if [ -z "$dapr_dir" ] || [ ! -f "$dapr_dir/go.sum" ]; then
	echo "build-daprd: the module proxy did not serve github.com/dapr/dapr@$version:" >&2
	printf '%s\n' "$info" >&2
	exit 1
fi
go_line=$(grep -m1 '^go ' "$dapr_mod")

{
	echo "// Generated by scripts/build-daprd.sh: a wrapper that builds $cmd $version. Do not edit."
	echo "module daprperf.invalid/daprd-wrapper"
	echo
	echo "$go_line"
	echo
	echo "require github.com/dapr/dapr $version"
} >"$work/go.mod"
cp "$dapr_dir/go.sum" "$work/go.sum"
chmod u+w "$work/go.sum"

# Repeat dapr's replace directives: go mod edit -json lists them, one -replace flag each.
go mod edit -json "$dapr_mod" |
	jq -r '.Replace // [] | .[] |
		"-replace=" + .Old.Path + (if .Old.Version then "@" + .Old.Version else "" end) +
		"=" + .New.Path + (if .New.Version then "@" + .New.Version else "" end)' |
	while read -r flag; do
		(cd "$work" && go mod edit "$flag")
	done
for r in $replaces; do
	path=${r%@*}
	# dapr's own replace of that module, for one version of it or all, gives way to ours.
	go mod edit -json "$work/go.mod" |
		jq -r --arg p "$path" '.Replace // [] | .[] | select(.Old.Path == $p) | "-dropreplace=" + .Old.Path + (if .Old.Version then "@" + .Old.Version else "" end)' |
		while read -r flag; do
			(cd "$work" && go mod edit "$flag")
		done
	(cd "$work" && go mod edit "-replace=$path=$path@${r#*@}")
done
echo "$cmd $version: copied $(grep -c '=>' "$work/go.mod" || true) replace directives; pins: ${pins:-none}; replaced: ${replaces:-none}"

echo "$cmd $version: [2/4] resolving and downloading modules (several GB when cold)"
# shellcheck disable=SC2086 # pins is a word list
(cd "$work" && go get "github.com/dapr/dapr/cmd/$cmd@$version" $pins 2>&1) | progress "downloaded modules" "go: downloading"

echo "$cmd $version: [3/4] compiling with -tags $tags (minutes when the build cache is cold)"
bare=${version#v}
(cd "$work" && CGO_ENABLED=0 go build -v -tags "$tags" -trimpath -gcflags "$build_gcflags" \
	-ldflags "-s -w -X github.com/dapr/dapr/pkg/buildinfo.version=$bare -X github.com/dapr/kit/logger.DaprVersion=$bare" \
	-o "$out.tmp" "github.com/dapr/dapr/cmd/$cmd" 2>&1) | progress "compiled packages" ""
mv "$out.tmp" "$out"

if [ "$cmd" = daprd ]; then
	echo "daprd $version: [4/4] built $out in $(($(date +%s) - start)) s: $("$out" --version)"
else # placement, scheduler and sentry have no --version flag
	echo "$cmd $version: [4/4] built $out in $(($(date +%s) - start)) s ($(du -m "$out" | cut -f1) MiB)"
fi
