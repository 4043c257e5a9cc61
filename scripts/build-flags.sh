# shellcheck shell=bash
# Sourced by scripts/build-daprd.sh, build-kube.sh and build-kube-node.sh: the compiler settings
# of every binary they build, in one place.
#
# build_gcflags: the compiler writes no DWARF. Every build links with -ldflags "-s -w", which drops
# DWARF anyway, so the binaries are the same, the compile shorter (docs/development.md#daprd).
# The scripts must agree: builds share compiled packages through Go's build cache only when their
# flags are equal (daprd's with the control plane's, kube-apiserver's with the kubelet's).
build_gcflags=all=-dwarf=false

# GOGC=400 for the scripts' go commands and the compilers they start (only within the sourcing
# script; no process under test sees it): fewer collections, more memory, a shorter compile.
export GOGC=400
