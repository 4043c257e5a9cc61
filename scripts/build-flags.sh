# shellcheck shell=bash
# Sourced by scripts/build-daprd.sh, build-kube.sh and build-kube-node.sh: the compiler settings
# of every binary they build, in one place.
#
# build_gcflags (-gcflags=all=-dwarf=false): the compiler writes no DWARF debug information. Each
# of those builds links with -ldflags "-s -w", which drops DWARF anyway, so the binaries' code and
# symbol tables are what they were; only the compile is shorter. Measured 2026-12-03 on a 2-core
# machine, a cold compile (empty build cache, sources in the page cache) of
# k8s.io/client-go/kubernetes and k8s.io/apiserver/pkg/server: 267 s with DWARF, 238 s without
# (11 % less). The scripts must agree: builds share compiled packages through Go's build cache
# only when their flags are equal (daprd's with Dapr's control plane's, kube-apiserver's with the
# kubelet's).
build_gcflags=all=-dwarf=false

# GOGC=400 for the scripts' go commands and so for the compilers they start (exported here, so
# only within the script that sources this file; none of the processes under test sees it): the
# compiler collects its garbage less often and holds more memory. Measured the same way, with
# -dwarf=false: 238 s at the default GOGC, 225 s at 400 (5.5 % less; 16 % less than 267 s with
# both defaults).
export GOGC=400
