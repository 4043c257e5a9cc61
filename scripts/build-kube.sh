#!/usr/bin/env bash
# build-kube.sh [DIR]: builds a Kubernetes control plane for the kube/ tests into DIR (default
# .kube-bin/v1.37.2): kube-apiserver, kube-controller-manager, kube-scheduler and etcd, from the
# Go module proxy, plus kwok (fake nodes and pods) and kwok's stage files. Whatever is already in
# DIR is kept; nothing is rebuilt.
#
# Layout of DIR, which envtest reads through KUBEBUILDER_ASSETS (kube/ tests find it by itself):
#   kube-apiserver   k8s.io/kubernetes/cmd/kube-apiserver at KUBE_VERSION
#   kube-controller-manager, kube-scheduler
#                    the same; Deployments get Pods, Pods get nodes, namespaces get deleted
#   etcd             go.etcd.io/etcd/server/v3 at the version k8s.io/kubernetes requires
#   kwok             sigs.k8s.io/kwok/cmd/kwok at KWOK_VERSION
#   kwok-stages/     the stage YAMLs shipped in kwok's module (node initialize and heartbeat,
#                    pod ready, complete and delete): kwok exits "no stages found" without them
#
# The commands build in a throw-away wrapper module in DIR/wrapper (scripts/kube-wrapper.sh says
# why). Cost: docs/kubernetes.md#build-and-run-times.
#
# Environment:
#   KUBE_VERSION  default v1.37.2 (the staging modules are v0.37.2)
#   KWOK_VERSION  default v0.8.0
set -euo pipefail
# shellcheck source=scripts/build-flags.sh
. "$(dirname "$0")/build-flags.sh"
# shellcheck source=scripts/kube-wrapper.sh
. "$(dirname "$0")/kube-wrapper.sh"

kube_version=${KUBE_VERSION:-v1.37.2}
kwok_version=${KWOK_VERSION:-v0.8.0}
dir=${1:-.kube-bin/$kube_version}

case "$kube_version" in
v1.[0-9]*.[0-9]*) ;;
*) echo "build-kube: KUBE_VERSION must look like v1.37.2, got '$kube_version'" >&2; exit 2 ;;
esac
case "$kwok_version" in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "build-kube: KWOK_VERSION must look like v0.8.0, got '$kwok_version'" >&2; exit 2 ;;
esac

mkdir -p "$dir"
dir=$(cd "$dir" && pwd) # absolute: builds run in the wrapper
start=$(date +%s)

missing=""
for bin in kube-apiserver kube-controller-manager kube-scheduler etcd; do
	[ -x "$dir/$bin" ] || missing="$missing $bin"
done
if [ -z "$missing" ]; then
	echo "kube $kube_version: control plane cached in $dir (delete a binary to rebuild it)"
else
	work="$dir/wrapper"
	rm -rf "$work"
	mkdir -p "$work"
	echo "kube $kube_version: building$missing"
	echo "kube $kube_version: fetching k8s.io/kubernetes@$kube_version from the module proxy"
	kube_mod=$(kube_wrapper "$work" "$kube_version" daprperf.invalid/kube-wrapper) || exit 1
	echo "kube $kube_version: $(grep -c '=>' "$work/go.mod" || true) staging modules replaced by their releases"

	# etcd at exactly the version k8s.io/kubernetes requires: a bare module path would mean
	# @upgrade and drag newer grpc, otel and x/ modules into the apiserver build.
	etcd_version=$(go mod edit -json "$kube_mod" | jq -r '.Require[] | select(.Path == "go.etcd.io/etcd/server/v3") | .Version')
	echo "kube $kube_version: resolving and downloading modules (etcd $etcd_version)"
	# Every command's packages, so that go.sum covers all of them.
	(cd "$work" && GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/kube-apiserver@$kube_version" \
		"k8s.io/kubernetes/cmd/kube-controller-manager@$kube_version" "k8s.io/kubernetes/cmd/kube-scheduler@$kube_version" \
		"go.etcd.io/etcd/server/v3@$etcd_version" 2>&1) | grep -v '^go: \(downloading\|upgraded\|added\)' || true

	ldflags=$(kube_ldflags "$kube_version")
	for bin in $missing; do
		pkg="k8s.io/kubernetes/cmd/$bin"
		flags="$ldflags"
		if [ "$bin" = etcd ]; then
			pkg=go.etcd.io/etcd/server/v3
			flags="-s -w"
		fi
		echo "kube $kube_version: compiling $bin (minutes when the build cache is cold)"
		t0=$(date +%s)
		(cd "$work" && CGO_ENABLED=0 go build -v -trimpath -gcflags "$build_gcflags" -ldflags "$flags" -o "$dir/$bin.tmp" "$pkg" 2>&1) |
			progress "compiled packages"
		mv "$dir/$bin.tmp" "$dir/$bin"
		echo "kube $kube_version: $bin built in $(($(date +%s) - t0)) s"
	done
	rm -rf "$work"
fi

if [ -x "$dir/kwok" ] && [ -d "$dir/kwok-stages" ]; then
	echo "kwok $kwok_version: cached in $dir"
else
	echo "kwok $kwok_version: go install sigs.k8s.io/kwok/cmd/kwok@$kwok_version"
	GOBIN="$dir" CGO_ENABLED=0 go install -trimpath -gcflags "$build_gcflags" -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$kwok_version"
	src=$(GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kwok@$kwok_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	rm -rf "$dir/kwok-stages.tmp"
	mkdir -p "$dir/kwok-stages.tmp"
	for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
		pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
		if [ ! -f "$src/kustomize/stage/$f" ]; then
			echo "build-kube: kwok $kwok_version has no kustomize/stage/$f" >&2
			exit 1
		fi
		cp "$src/kustomize/stage/$f" "$dir/kwok-stages.tmp/"
	done
	chmod -R u+w "$dir/kwok-stages.tmp"
	rm -rf "$dir/kwok-stages"
	mv "$dir/kwok-stages.tmp" "$dir/kwok-stages"
fi

echo "kube $kube_version: ready in $dir after $(($(date +%s) - start)) s"
"$dir/kube-apiserver" --version
"$dir/kube-controller-manager" --version
"$dir/kube-scheduler" --version
"$dir/etcd" --version | sed -n 1p # sed reads all: head would SIGPIPE etcd under pipefail
"$dir/kwok" --version 2>/dev/null | sed -n 1p || true
