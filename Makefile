# daprperf: performance tests for Dapr's sidecar, daprd.
#   make perf     build daprd if missing, run the perf scenarios locally under one run id
#                 (results in reports/runs/<run id>/; exit codes in scripts/perf.sh)
#   make publish  RUN=<run id>: make that run the reference of its daprd version (reports/v<version>/)
#   make test     unit and integration tests (real daprd, real Pushgateway)
# See README.md for every variable.

# The daprd version under test: the one place it is pinned. Served versions that build here:
# v1.17.5 and v1.16.5 (see scripts/build-daprd.sh).
DAPR_VERSION ?= v1.17.5
# Components build tag of daprd: stablecomponents has the kubernetes name resolver the local
# platform uses and builds faster than allcomponents (README, "daprd").
DAPRD_TAGS ?= stablecomponents
export DAPR_VERSION DAPRD_TAGS

# The Kubernetes control plane kube/'s tests run against (scripts/build-kube.sh): kube-apiserver,
# etcd, kube-controller-manager, kube-scheduler and kwok, cached in .kube-bin/<version>.
KUBE_VERSION ?= v1.37.2
KWOK_VERSION ?= v0.8.0
KUBE_BIN := .kube-bin/$(KUBE_VERSION)
export KUBE_VERSION KWOK_VERSION
# Images of the kube platform: $(REGISTRY)/daprperf-<app>:$(TAG) (make images).
REGISTRY ?= $(DAPR_PERF_IMAGE_REGISTRY)
TAG ?= $(DAPR_PERF_IMAGE_TAG)
IMAGE_APPS := tester httpapp grpcapp

DAPRD := .daprd/$(DAPR_VERSION)/daprd
# A/B runs: DAPR_PERF_DAPRD_B names a second daprd, a binary or a version; a version is built
# like DAPR_VERSION (into .daprd/<version>/daprd) before make perf runs.
DAPR_PERF_DAPRD_B ?=
DAPRD_B_VERSION := $(shell printf '%s' '$(DAPR_PERF_DAPRD_B)' | grep -Ex 'v?[0-9]+[.][0-9]+[.][0-9]+(-[0-9A-Za-z.-]+)?' | sed 's/^[0-9]/v&/')
DAPRD_B := $(if $(DAPRD_B_VERSION),.daprd/$(DAPRD_B_VERSION)/daprd)
GO ?= go
# go test's own timeout per package: perf runs are long, tests are bounded well below.
PERF_TIMEOUT ?= 90m
# The perf scenario packages make perf runs, one at a time.
PERF_PACKAGES ?= ./tests/...
TEST_TIMEOUT ?= 20m
STATICCHECK_VERSION := v0.8.2

.PHONY: all daprd kube-bin images perf publish compare test unit bench-tester lint charts clean

all: test

## daprd: build the pinned daprd into .daprd/<version>/daprd, unless it is there already.
daprd: $(DAPRD)
.daprd/%/daprd:
	./scripts/build-daprd.sh $* $@

## kube-bin: build the control plane for kube/'s tests into .kube-bin/<version>, unless it is
## there already (about 10 min on 2 cores the first time; seconds afterwards).
kube-bin:
	nice -n 19 ./scripts/build-kube.sh $(KUBE_BIN)

## images: build and push the app images for the kube platform (docker, from the repo root).
images:
	@test -n "$(REGISTRY)" || { echo "make images: set REGISTRY, e.g. make images REGISTRY=ghcr.io/me TAG=v0.3.0" >&2; exit 2; }
	@test -n "$(TAG)" || { echo "make images: set TAG, e.g. make images REGISTRY=ghcr.io/me TAG=v0.3.0" >&2; exit 2; }
	set -e; for app in $(IMAGE_APPS); do \
		docker build -f apps/Dockerfile --build-arg APP=$$app -t $(REGISTRY)/daprperf-$$app:$(TAG) . ; \
		docker push $(REGISTRY)/daprperf-$$app:$(TAG) ; \
	done

## perf: the main job (scripts/perf.sh). Overhead bounds that a small machine misses are
## reported, not fatal (DAPR_PERF_OVERHEAD_GATE=warn); errors, restarts and achieved QPS always
## gate. -p 1: one scenario at a time, or they would share the cores they measure. Every run
## writes under its own id, reports/runs/<run id>/, and prints it; the script exits 0 (pass),
## 3 (missed bound), 4 (invalid run) or 5 (infrastructure error), which make shows as "Error N"
## (make itself exits 2 on any failure).
perf: daprd $(DAPRD_B)
	DAPR_PERF_COMMAND="make perf" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh $(PERF_PACKAGES)

## publish: make run RUN (the id make perf printed) the reference of its daprd version: copy it
## into reports/v<version>/ and redraw that version's charts and READMEs. It refuses an
## incomplete, invalid or failed run; FORCE=1 publishes one anyway.
publish:
	@test -n "$(RUN)" || { echo "make publish: set RUN to a run id (make perf prints it), e.g. make publish RUN=20261201T101500Z-4f2a" >&2; exit 2; }
	$(GO) run ./charts -reports "$${DAPR_PERF_REPORT_DIR:-reports}" publish $(if $(FORCE),-force) $(RUN)

## compare: compare A with B (run ids, versions such as v1.17.5, or result files); exit 1 on a
## regression beyond noise. With only A, compare build B with build A of an A/B run.
compare:
	@test -n "$(A)" || { echo "make compare: set A (and B), e.g. make compare A=v1.17.5 B=<run id>" >&2; exit 2; }
	$(GO) run ./charts -reports "$${DAPR_PERF_REPORT_DIR:-reports}" compare $(A) $(B)

## test: every test but the perf scenarios, with the real daprd, a real Pushgateway and a real
## Kubernetes API server.
test: daprd kube-bin
	KUBEBUILDER_ASSETS=$(CURDIR)/$(KUBE_BIN) $(GO) test -count=1 -p 1 -timeout $(TEST_TIMEOUT) ./...

## unit: the tests that need neither daprd nor the Pushgateway (short mode skips load runs).
unit:
	$(GO) test -count=1 -short ./perf/... ./apps/... ./charts/...

## charts: PNG charts and README tables next to every published result file (reports/v*/).
charts:
	$(GO) run ./charts -reports reports

## bench-tester: the tester's maximum throughput against httpapp, beside fortio's own runner.
bench-tester:
	$(GO) test -run '^$$' -bench 'MaxThroughput' -benchtime 1x -count 3 ./apps/tester/

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags perf ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags perf ./...

clean:
	rm -rf .bin
