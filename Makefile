# daprperf: performance tests for Dapr's sidecar, daprd.
#   make perf     build daprd if missing, run every perf scenario locally under one run id
#                 (= make test-perf-all; results in reports/runs/<run id>/; exit codes in scripts/perf.sh)
#   make perf-plan  make perf's plan only: every scenario's phases, loads and expected time, the suite's total
#   make test-perf-<name>  one scenario package, tests/<name> (Dapr's target names)
#   make perf-state  the state scenarios (get and save; in-memory, Redis, PostgreSQL)
#   make perf-actors the actor scenarios (tests/actor_*)
#   make publish  RUN=<run id>: make that run the reference of its daprd version (reports/v<version>/)
#   make test     unit and integration tests (real daprd, real Pushgateway)
#   make test-kube  the kube platform end to end on a real one-node cluster here (root)
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
# The rest of a real one-node cluster for make test-kube (scripts/build-kube-node.sh): kubelet,
# kube-proxy, metrics-server and Dapr's injector, sentry and operator at DAPR_VERSION, cached in
# .kube-node/<part>-<version>; and the Debian packages it runs on.
METRICS_SERVER_VERSION ?= v0.8.0
KUBE_NODE := .kube-node
KUBE_NODE_DEBS := containerd runc containernetworking-plugins iptables conntrack
export METRICS_SERVER_VERSION
# Images of the kube platform: $(REGISTRY)/daprperf-<app>:$(TAG) (make images). Dapr's
# DAPR_TEST_REGISTRY and DAPR_TEST_TAG are aliases of DAPR_PERF_IMAGE_REGISTRY and _TAG.
REGISTRY ?= $(or $(DAPR_PERF_IMAGE_REGISTRY),$(DAPR_TEST_REGISTRY))
TAG ?= $(or $(DAPR_PERF_IMAGE_TAG),$(DAPR_TEST_TAG))
IMAGE_APPS := tester httpapp grpcapp subscriber

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
PERF_PACKAGES ?= $(addprefix ./tests/,$(PERF_TESTS))
TEST_TIMEOUT ?= 20m
STATICCHECK_VERSION := v0.8.2
# make test runs go test through gotestsum (from the module proxy, pinned; built once into the Go
# build cache): its closing summary lists every skipped and failed test with its message.
GOTESTSUM_VERSION := v1.13.0
GOTESTSUM = $(GO) run gotest.tools/gotestsum@$(GOTESTSUM_VERSION)
# test-deps installs with sudo when not root.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# The perf scenario packages: every folder under tests/ holding a test file with the perf build
# tag, as Dapr's tests/perf/<name>. Other tests under tests/ (no perf tag) run in make test.
PERF_TESTS := $(sort $(notdir $(patsubst %/,%,$(dir $(shell grep -l '^//go:build perf' tests/*/*_test.go)))))
PERF_TARGETS := $(addprefix test-perf-,$(PERF_TESTS))
# make perf's gate: overhead bounds that a small machine misses are reported, not fatal; and its
# load: without DAPR_PERF_QPS a short preflight picks the highest load of the ladder 1000, 500,
# 250, 100 QPS that this machine keeps on schedule (DAPR_PERF_PREFLIGHT=off keeps Dapr's 1000).
PERF_ENV = DAPR_PERF_OVERHEAD_GATE=$${DAPR_PERF_OVERHEAD_GATE:-warn} DAPR_PERF_PREFLIGHT=$${DAPR_PERF_PREFLIGHT:-ladder}

.PHONY: all daprd control-plane kube-bin kube-node kube-node-deps test-kube test-deps images perf test-perf-all $(PERF_TARGETS) publish compare test unit bench-tester lint charts clean

all: test

## daprd: build the pinned daprd into .daprd/<version>/daprd, unless it is there already; and
## Dapr's control plane for actors beside it (control-plane).
daprd: $(DAPRD) control-plane
.daprd/%/daprd:
	./scripts/build-daprd.sh $* $@

## control-plane: build placement and scheduler at the pinned version into .daprd/<version>/,
## unless they are there already (the scheduler with github.com/diagridio/go-etcd-cron pinned
## to v0.12.6: README, "Actors").
control-plane: .daprd/$(DAPR_VERSION)/placement .daprd/$(DAPR_VERSION)/scheduler
.daprd/%/placement:
	./scripts/build-daprd.sh $* $@ placement
.daprd/%/scheduler:
	./scripts/build-daprd.sh $* $@ scheduler

## kube-bin: build the control plane for kube/'s tests into .kube-bin/<version>, unless it is
## there already (about 10 min on 2 cores the first time; seconds afterwards).
kube-bin:
	nice -n 19 ./scripts/build-kube.sh $(KUBE_BIN)

## kube-node: build what a real one-node cluster needs beyond .kube-bin into .kube-node/, unless
## it is there already (scripts/build-kube-node.sh; about 13 min on 2 cores the first time with
## Kubernetes' build cache warm from kube-bin, seconds afterwards).
kube-node:
	nice -n 19 ./scripts/build-kube-node.sh $(KUBE_NODE)

## kube-node-deps: install with apt-get the Debian packages the cluster runs on, when missing
## (containerd, runc, the CNI plugins, iptables, conntrack; redis-server for the in-cluster Redis
## image, kube/node/redis.go).
kube-node-deps:
	@missing=""; \
	for c in containerd:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins iptables:iptables conntrack:conntrack redis-server:redis-server; do \
		bin=$${c%%:*}; pkg=$${c#*:}; \
		if [ -x "$$bin" ] || command -v "$$bin" >/dev/null 2>&1; then :; else missing="$$missing $$pkg"; fi; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make: installing$$missing (apt-get) for make test-kube"; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

## test-kube: the kube platform end to end on a real one-node cluster on this machine (root):
## bring-up, the network rules, the HTTP and gRPC service-invocation scenarios with
## DAPR_PERF_PLATFORM=kubernetes (short phases: 10 s at 100 QPS unless DAPR_TEST_DURATION,
## DAPR_PERF_QPS say otherwise), a container killed mid-run, teardown, and the host's network
## configuration compared before and after. Each scenario run holds /tmp/perf.lock. Result
## files under $(DAPR_PERF_REPORT_DIR)/runs/<run id>/ (default reports/).
test-kube: daprd kube-bin kube-node kube-node-deps
	KUBEBUILDER_ASSETS=$(CURDIR)/$(KUBE_BIN) $(GO) test -tags kubenode -count=1 -v -timeout 40m ./kube/node/

## test-deps: install, with apt-get as .ci/run does (scripts/apt-install.sh: no service of theirs
## is started), the Debian packages make test's tests use and that are not installed yet:
## prometheus-pushgateway (the push and dashboard tests; an upstream pushgateway binary counts
## too), chromium (the HTML report test), and the backends the local platform starts
## (scripts/missing-backends.sh: redis-server, postgresql-15, rabbitmq-server, mosquitto).
## Without apt-get it says so and those tests skip, which make test's summary then lists.
test-deps:
	@missing=""; \
	command -v prometheus-pushgateway >/dev/null 2>&1 || command -v pushgateway >/dev/null 2>&1 || missing="$$missing prometheus-pushgateway"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	missing="$$missing $$(./scripts/missing-backends.sh | tr '\n' ' ')"; missing="$$(echo $$missing)"; \
	if [ -z "$$missing" ]; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "make: missing $$missing and no apt-get: install them, or their tests skip" >&2; \
	else \
		echo "make: installing $$missing (apt-get) for make test"; \
		./scripts/apt-install.sh $$missing; \
	fi

## perf-deps: install with apt-get (scripts/apt-install.sh, no service of theirs started) the
## backends the local platform starts that are not installed yet (scripts/missing-backends.sh:
## redis-server, postgresql-15, rabbitmq-server, mosquitto); make perf and every test-perf-<name>
## and perf-<group> target run it first. Without apt-get it says which are missing, and the
## scenarios on them fail naming the package.
.PHONY: perf-deps
perf-deps:
	@missing="$$(./scripts/missing-backends.sh | tr '\n' ' ')"; missing="$$(echo $$missing)"; \
	if [ -z "$$missing" ]; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "make: missing $$missing and no apt-get: install them, or the scenarios on those backends fail" >&2; \
	else \
		echo "make: installing $$missing (apt-get) for make perf"; \
		./scripts/apt-install.sh $$missing; \
	fi

## images: build and push the app images for the kube platform (docker, from the repo root).
images:
	@test -n "$(REGISTRY)" || { echo "make images: set REGISTRY, e.g. make images REGISTRY=ghcr.io/me TAG=v0.3.0" >&2; exit 2; }
	@test -n "$(TAG)" || { echo "make images: set TAG, e.g. make images REGISTRY=ghcr.io/me TAG=v0.3.0" >&2; exit 2; }
	set -e; for app in $(IMAGE_APPS); do \
		docker build -f apps/Dockerfile --build-arg APP=$$app -t $(REGISTRY)/daprperf-$$app:$(TAG) . ; \
		docker push $(REGISTRY)/daprperf-$$app:$(TAG) ; \
	done

## perf: the main job, every scenario package (test-perf-all), through scripts/perf.sh. Overhead
## bounds that a small machine misses are reported, not fatal (DAPR_PERF_OVERHEAD_GATE=warn);
## errors, restarts and achieved QPS always gate. -p 1: one scenario at a time, or they would
## share the cores they measure. Only the perf-tagged packages run: the other tests are make
## test's. Every run writes under its own id, reports/runs/<run id>/, and prints it; the script
## exits 0 (pass), 3 (missed bound), 4 (invalid run) or 5 (infrastructure error), which make
## shows as "Error N" (make itself exits 2 on any failure).
perf: test-perf-all
test-perf-all: daprd $(DAPRD_B) perf-deps
	@echo "make perf: $(words $(PERF_PACKAGES)) scenario packages, one at a time: $(patsubst ./tests/%,%,$(PERF_PACKAGES)); each logs its plan and expected time first"
	$(PERF_ENV) DAPR_PERF_COMMAND="make perf" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh $(PERF_PACKAGES)

## perf-plan: make perf's plan only (DAPR_PERF_PLAN_ONLY=1): builds the test binaries, prints
## every scenario's phases, loads and expected time and the suite's expected total; starts
## nothing, needs no daprd. The env overrides apply as in make perf (DAPR_PERF_QPS, ...).
.PHONY: perf-plan
perf-plan:
	$(PERF_ENV) DAPR_PERF_PLAN_ONLY=1 DAPR_PERF_COMMAND="make $@" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh $(PERF_PACKAGES)

## test-perf-<name>: one scenario package, tests/<name>: test-perf-service_invocation_http,
## test-perf-service_invocation_grpc, test-perf-memory_growth (Dapr's names and layout).
$(PERF_TARGETS): test-perf-%: daprd $(DAPRD_B) perf-deps
	$(PERF_ENV) DAPR_PERF_COMMAND="make $@" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh ./tests/$*

## perf-pubsub-subscribe: the pub/sub subscribe scenarios, the subscriber over HTTP and over gRPC
## (tests/pubsub_subscribe_{http,grpc}): delivery latency, lost and duplicated messages on Redis,
## RabbitMQ and MQTT, normal and bulk, under one run id.
.PHONY: perf-pubsub-subscribe
perf-pubsub-subscribe: daprd $(DAPRD_B) perf-deps
	$(PERF_ENV) DAPR_PERF_COMMAND="make $@" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh ./tests/pubsub_subscribe_http ./tests/pubsub_subscribe_grpc

## perf-jobs: the jobs scenarios (= test-perf-jobs): scheduling at 1000 QPS (jobs due in 24 h),
## then 20,000 jobs due in 1 s, every trigger counted per job name (README, "Jobs").
.PHONY: perf-jobs
perf-jobs: test-perf-jobs

## perf-state: the state scenarios, tests/state_{get,save}_{http,grpc}, each on in-memory (Dapr's
## no-op baseline), Redis and PostgreSQL (direct-to-store baseline), under one run id.
STATE_PERF_PACKAGES := $(addprefix ./tests/,$(filter state_%,$(PERF_TESTS)))
.PHONY: perf-state
perf-state: daprd $(DAPRD_B) perf-deps
	$(PERF_ENV) DAPR_PERF_COMMAND="make $@" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh $(STATE_PERF_PACKAGES)

## perf-actors: every actor scenario package (tests/actor_*: activation, its Redis and
## PostgreSQL store variants, timer, reminder, type scale, id scale, double activation), one
## after another under one run id (README, "Actors").
ACTOR_PERF_PACKAGES := $(addprefix ./tests/,$(filter actor_%,$(PERF_TESTS)))
.PHONY: perf-actors
perf-actors: daprd $(DAPRD_B) perf-deps
	$(PERF_ENV) DAPR_PERF_COMMAND="make $@" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh $(ACTOR_PERF_PACKAGES)

## perf-pubsub: every pub/sub scenario package, one after another (test-perf-pubsub_*): the
## publish and bulk-publish packages over gRPC and HTTP (README, "Pub/sub publish").
.PHONY: perf-pubsub
perf-pubsub: $(filter test-perf-pubsub_%,$(PERF_TARGETS))

## perf-workflows: Dapr's six workflow tests (tests/workflows) once per backend in
## WORKFLOW_BACKENDS (default in-memory redis postgresql; DAPR_PERF_WORKFLOW_BACKEND each time),
## under one run id; -run picks tests, e.g. make perf-workflows WORKFLOW_BACKENDS=redis
## PERF_RUN=TestParallelWorkflowWithMaxVUs.
WORKFLOW_BACKENDS ?= in-memory redis postgresql
PERF_RUN ?=
.PHONY: perf-workflows
perf-workflows: daprd
	@id=$${DAPR_PERF_RUN_ID:-$$(date -u +%Y%m%dT%H%M%SZ)-$$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')}; rc=0; \
	for b in $(WORKFLOW_BACKENDS); do \
		echo "perf-workflows: backend $$b"; \
		$(PERF_ENV) DAPR_PERF_RUN_ID=$$id DAPR_PERF_WORKFLOW_BACKEND=$$b DAPR_PERF_COMMAND="make $@ ($$b)" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) \
			./scripts/perf.sh $(if $(PERF_RUN),-run '$(PERF_RUN)') ./tests/workflows || rc=$$?; \
	done; exit $$rc
## perf-configuration: the configuration scenario packages, tests/configuration_* (Dapr's
## tests/perf/configuration): get over HTTP and gRPC against a direct go-redis GET, subscribe
## over HTTP and gRPC (update-to-notification latency, lost updates), and the k6 ramp to 500
## users on get, under one run id.
CONFIGURATION_PERF_PACKAGES := $(addprefix ./tests/,$(filter configuration_%,$(PERF_TESTS)))
.PHONY: perf-configuration
perf-configuration: daprd $(DAPRD_B) perf-deps
	$(PERF_ENV) DAPR_PERF_COMMAND="make $@" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh $(CONFIGURATION_PERF_PACKAGES)

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
## Kubernetes API server, each provided first. The last lines list any test that skipped or
## failed, with its message (gotestsum's summary), then the counts. -p 3: three packages at a
## time, 7 min instead of 14.5 one at a time (the tests mostly wait on real processes). The
## TestInvokeGRPC failure once blamed on it was a start-order race, seen at -p 1 too and fixed in
## local (launchSidecars). The three longest packages are named first: go test builds and runs
## packages in the order given. By import path, in a cold CI rehearsal of 2026-12-03, perf (5.4
## min), local (4.3) and apps/tester (3.1) came last, perf started 4 min in, and make test took
## 584 s; in this order the next cold rehearsal's took 328 s (perf 3.3 min by then).
test: daprd kube-bin test-deps
	KUBEBUILDER_ASSETS=$(CURDIR)/$(KUBE_BIN) $(GOTESTSUM) --format pkgname-and-test-fails -- \
		-count=1 -p 3 -timeout $(TEST_TIMEOUT) ./perf/ ./local/ ./apps/tester/ ./...

## unit: the tests that need neither daprd nor the Pushgateway (short mode skips load runs).
unit:
	$(GO) test -count=1 -short ./perf/... ./apps/... ./charts/...

## charts: PNG charts, README tables and the self-contained report.html next to every published
## result file (reports/v*/).
charts:
	$(GO) run ./charts -reports reports

## bench-tester: the tester's maximum throughput against httpapp, beside fortio's own runner
## (3 runs), then what recording costs per request (ns/op, allocs/op).
bench-tester:
	$(GO) test -run '^$$' -bench 'MaxThroughput' -benchtime 1x -count 3 ./apps/tester/
	$(GO) test -run '^$$' -bench 'RecordPerRequest' -count 3 ./apps/tester/
	$(GO) test -run '^$$' -bench 'Record' -count 3 ./perf/hdr/

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags perf ./...
	$(GO) vet -tags kubenode ./kube/node/
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags kubenode ./kube/node/
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags perf ./...

clean:
	rm -rf .bin
