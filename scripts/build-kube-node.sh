#!/usr/bin/env bash
# build-kube-node.sh [DIR]: builds the parts of a real two-node cluster that .kube-bin lacks, for
# kube/node's end-to-end tests, into DIR (default .kube-node), one folder per part and version:
#   DIR/kube-$KUBE_VERSION/kubelet, kube-proxy
#                    k8s.io/kubernetes/cmd/kubelet and cmd/kube-proxy at KUBE_VERSION, through the
#                    same throw-away wrapper module as scripts/build-kube.sh (kube-wrapper.sh)
#   DIR/metrics-server-$METRICS_SERVER_VERSION/metrics-server
#                    sigs.k8s.io/metrics-server/cmd/metrics-server (go install: no replaces). Its own
#                    module, not the kubelet's: v0.8.0 built on Kubernetes v1.37.2's libraries (to
#                    share kube-apiserver's compile) exits at start ("cannot find model
#                    definition for ...NodeMetrics")
#   DIR/dapr-$DAPR_VERSION/injector, sentry, operator
#                    github.com/dapr/dapr/cmd/<name> at DAPR_VERSION, through a wrapper module
#                    that repeats dapr's replace directives, as scripts/build-daprd.sh does
# Whatever is already there is kept; delete a binary to rebuild it. The apps, the pause binary
# and the cluster DNS are this repository's own code: kube/node builds them and writes their OCI
# image tarballs at bring-up. Cost: docs/kubernetes.md#build-and-run-times.
#
# Environment:
#   KUBE_VERSION            default v1.37.2
#   METRICS_SERVER_VERSION  default v0.8.0 (v0.9.0 is served by the module proxy here but is not
#                           an approved release)
#   DAPR_VERSION            default v1.18.3
set -euo pipefail
# shellcheck source=scripts/build-flags.sh
. "$(dirname "$0")/build-flags.sh"
# shellcheck source=scripts/kube-wrapper.sh
. "$(dirname "$0")/kube-wrapper.sh"

kube_version=${KUBE_VERSION:-v1.37.2}
ms_version=${METRICS_SERVER_VERSION:-v0.8.0}
dapr_version=${DAPR_VERSION:-v1.18.3}
dir=${1:-.kube-node}

case "$kube_version" in
v1.[0-9]*.[0-9]*) ;;
*) echo "build-kube-node: KUBE_VERSION must look like v1.37.2, got '$kube_version'" >&2; exit 2 ;;
esac
case "$ms_version" in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "build-kube-node: METRICS_SERVER_VERSION must look like v0.8.0, got '$ms_version'" >&2; exit 2 ;;
esac
case "$dapr_version" in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "build-kube-node: DAPR_VERSION must look like v1.17.5, got '$dapr_version'" >&2; exit 2 ;;
esac

mkdir -p "$dir"
dir=$(cd "$dir" && pwd) # absolute: builds run in the wrappers
start=$(date +%s)

# modinfo MODULE@VERSION FIELD: one field (Dir, GoMod) of `go mod download -json`.
modinfo() {
	local info
	info=$(cd "$2" && GOFLAGS=-mod=mod go mod download -json "$1")
	printf '%s' "$info" | sed -n "s/^[[:space:]]*\"$3\": \"\\(.*\\)\",\$/\\1/p"
}

# --- kubelet and kube-proxy -----------------------------------------------------------------
kdir="$dir/kube-$kube_version"
mkdir -p "$kdir"
missing=""
for bin in kubelet kube-proxy; do
	[ -x "$kdir/$bin" ] || missing="$missing $bin"
done
if [ -z "$missing" ]; then
	echo "kube-node: kubelet and kube-proxy $kube_version cached in $kdir"
else
	work="$kdir/wrapper"
	rm -rf "$work"
	mkdir -p "$work"
	echo "kube-node: building$missing $kube_version"
	kube_wrapper "$work" "$kube_version" daprperf.invalid/kube-node-wrapper >/dev/null || exit 1
	# Both commands in one go get: kube-proxy alone misses vishvananda/netlink/nl in go.sum.
	(cd "$work" && GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/kubelet@$kube_version" \
		"k8s.io/kubernetes/cmd/kube-proxy@$kube_version" 2>&1) | grep -v '^go: \(downloading\|upgraded\|added\)' || true
	ldflags=$(kube_ldflags "$kube_version")
	for bin in $missing; do
		echo "kube-node: compiling $bin (minutes when the build cache is cold)"
		t0=$(date +%s)
		(cd "$work" && CGO_ENABLED=0 go build -v -trimpath -gcflags "$build_gcflags" -ldflags "$ldflags" -o "$kdir/$bin.tmp" "k8s.io/kubernetes/cmd/$bin" 2>&1) |
			progress "compiled packages"
		mv "$kdir/$bin.tmp" "$kdir/$bin"
		echo "kube-node: $bin built in $(($(date +%s) - t0)) s"
	done
	rm -rf "$work"
fi

# --- metrics-server ---------------------------------------------------------------------------
mdir="$dir/metrics-server-$ms_version"
if [ -x "$mdir/metrics-server" ]; then
	echo "kube-node: metrics-server $ms_version cached in $mdir"
else
	mkdir -p "$mdir"
	echo "kube-node: compiling metrics-server $ms_version (minutes when the build cache is cold)"
	t0=$(date +%s)
	ms_ver=${ms_version#v}
	GOBIN="$mdir" CGO_ENABLED=0 go install -v -trimpath -gcflags "$build_gcflags" \
		-ldflags "-s -w -X sigs.k8s.io/metrics-server/pkg/version.gitVersion=$ms_version -X k8s.io/client-go/pkg/version.gitVersion=$ms_version" \
		"sigs.k8s.io/metrics-server/cmd/metrics-server@$ms_version" 2>&1 | progress "compiled packages"
	echo "kube-node: metrics-server $ms_ver built in $(($(date +%s) - t0)) s"
fi

# --- Dapr's control plane -----------------------------------------------------------------------
ddir="$dir/dapr-$dapr_version"
mkdir -p "$ddir"
missing=""
for bin in injector sentry operator; do
	[ -x "$ddir/$bin" ] || missing="$missing $bin"
done
if [ -z "$missing" ]; then
	echo "kube-node: Dapr $dapr_version injector, sentry and operator cached in $ddir"
else
	work="$ddir/wrapper"
	rm -rf "$work"
	mkdir -p "$work"
	echo "kube-node: building Dapr $dapr_version$missing"
	dapr_dir=$(modinfo "github.com/dapr/dapr@$dapr_version" "$work" Dir)
	dapr_mod=$(modinfo "github.com/dapr/dapr@$dapr_version" "$work" GoMod)
	[ -f "$dapr_dir/go.sum" ] || { echo "build-kube-node: the module proxy did not serve github.com/dapr/dapr@$dapr_version" >&2; exit 1; }
	{
		echo "// Generated by scripts/build-kube-node.sh: builds Dapr's control plane $dapr_version. Do not edit."
		echo "module daprperf.invalid/dapr-control-plane-wrapper"
		echo
		grep -m1 '^go ' "$dapr_mod"
		echo
		echo "require github.com/dapr/dapr $dapr_version"
	} >"$work/go.mod"
	cp "$dapr_dir/go.sum" "$work/go.sum"
	chmod u+w "$work/go.sum"
	# dapr's replace directives, then the pins and replaces scripts/build-daprd.sh applies
	# (scripts/dapr-pins.sh).
	. "$(dirname "$0")/dapr-pins.sh"
	dapr_copy_replaces "$work" "$dapr_mod"
	dapr_pins "$dapr_version"
	# shellcheck disable=SC2086 # replaces is a word list
	dapr_replace "$work" $replaces
	gets=""
	for bin in $missing; do gets="$gets github.com/dapr/dapr/cmd/$bin@$dapr_version"; done
	# shellcheck disable=SC2086 # word lists
	(cd "$work" && go get $gets $pins 2>&1) | grep -v '^go: \(downloading\|upgraded\|added\|finding\)' || true
	bare=${dapr_version#v}
	for bin in $missing; do
		echo "kube-node: compiling Dapr's $bin"
		t0=$(date +%s)
		(cd "$work" && CGO_ENABLED=0 go build -v -trimpath -gcflags "$build_gcflags" \
			-ldflags "-s -w -X github.com/dapr/dapr/pkg/buildinfo.version=$bare -X github.com/dapr/kit/logger.DaprVersion=$bare" \
			-o "$ddir/$bin.tmp" "github.com/dapr/dapr/cmd/$bin" 2>&1) | progress "compiled packages"
		mv "$ddir/$bin.tmp" "$ddir/$bin"
		echo "kube-node: Dapr's $bin built in $(($(date +%s) - t0)) s"
	done
	rm -rf "$work"
fi

echo "kube-node: ready in $dir after $(($(date +%s) - start)) s"
"$kdir/kubelet" --version
"$kdir/kube-proxy" --version
