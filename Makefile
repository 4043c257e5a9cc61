# daprperf: performance tests for Dapr's sidecar, daprd. make perf runs every scenario, make
# test-perf-<name> one (tests/<name>), make perf-<group> a group, make test the other tests; each
# target's "##" comment below says more. Variables: docs/configuration.md.

# The daprd version under test, pinned here only (v1.17.5 and v1.16.5 build: build-daprd.sh).
DAPR_VERSION ?= v1.18.3
# stablecomponents: the local platform's name resolver, a faster build (docs/development.md#daprd).
DAPRD_TAGS ?= stablecomponents
export DAPR_VERSION DAPRD_TAGS

# kube/'s tests' control plane (scripts/build-kube.sh), cached in .kube-bin/<version>.
KUBE_VERSION ?= v1.37.2
KWOK_VERSION ?= v0.8.0
KUBE_BIN := .kube-bin/$(KUBE_VERSION)
export KUBE_VERSION KWOK_VERSION
# The rest of make test-kube's cluster (scripts/build-kube-node.sh), cached in .kube-node/, and
# the Debian packages it runs on, as <file or command>:<package>.
METRICS_SERVER_VERSION ?= v0.8.0
KUBE_NODE := .kube-node
KUBE_NODE_DEBS := containerd:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins iptables:iptables conntrack:conntrack redis-server:redis-server \
	/usr/lib/postgresql:postgresql /usr/sbin/mosquitto:mosquitto /usr/sbin/rabbitmq-server:rabbitmq-server
export METRICS_SERVER_VERSION
# The kube platform's images, $(REGISTRY)/daprperf-<app>:$(TAG) (Dapr's DAPR_TEST_* are aliases).
REGISTRY ?= $(or $(DAPR_PERF_IMAGE_REGISTRY),$(DAPR_TEST_REGISTRY))
TAG ?= $(or $(DAPR_PERF_IMAGE_TAG),$(DAPR_TEST_TAG))
IMAGE_APPS := tester httpapp grpcapp subscriber actorapp jobapp workflowapp

DAPRD := .daprd/$(DAPR_VERSION)/daprd
# A/B runs: DAPR_PERF_DAPRD_B names a second daprd, a binary or a version (built like DAPR_VERSION).
DAPR_PERF_DAPRD_B ?=
DAPRD_B_VERSION := $(shell printf '%s' '$(DAPR_PERF_DAPRD_B)' | grep -Ex 'v?[0-9]+[.][0-9]+[.][0-9]+(-[0-9A-Za-z.-]+)?' | sed 's/^[0-9]/v&/')
DAPRD_B := $(if $(DAPRD_B_VERSION),.daprd/$(DAPRD_B_VERSION)/daprd)
GO ?= go
# go test's own timeout per package: perf runs are long, tests are bounded well below.
PERF_TIMEOUT ?= 90m
PERF_PACKAGES ?= $(addprefix ./tests/,$(filter-out $(PERF_EXTRA),$(PERF_TESTS)))
TEST_TIMEOUT ?= 20m
STATICCHECK_VERSION := v0.8.2
# gotestsum's summary lists each skipped and failed test with its message (.ci/run reads this line).
GOTESTSUM_VERSION := v1.13.0
GOTESTSUM = $(GO) run gotest.tools/gotestsum@$(GOTESTSUM_VERSION)

# The perf scenario packages: the folders under tests/ with a perf-tagged test file.
PERF_TESTS := $(sort $(notdir $(patsubst %/,%,$(dir $(shell grep -l '^//go:build perf' tests/*/*_test.go)))))
PERF_TARGETS := $(addprefix test-perf-,$(PERF_TESTS))
# The packages make perf leaves out (each has its own target): the sidecar's cost curve, about
# 40 minutes per mTLS setting (make cost-curve).
PERF_EXTRA := service_invocation_curve
# Dapr's DAPR_PERF_TEST picks make perf's and make perf-plan's packages by Dapr's package names,
# separated by spaces (dapr/dapr tests/dapr_tests.mk, test-perf-all); Dapr's configuration is our
# four configuration_* packages. An unknown name, or PERF_PACKAGES set beside it, stops those two
# targets before anything is built (dapr-perf-test-check) and no other.
DAPR_PERF_TEST ?=
dapr_perf_test = $(if $(filter configuration,$(1)),$(filter configuration_%,$(PERF_TESTS)),$(filter $(1),$(PERF_TESTS)))
DAPR_PERF_TEST_UNKNOWN := $(strip $(foreach t,$(DAPR_PERF_TEST),$(if $(call dapr_perf_test,$(t)),,$(t))))
ifneq ($(strip $(DAPR_PERF_TEST)),)
DAPR_PERF_TEST_BOTH := $(filter command line environment,$(origin PERF_PACKAGES))
PERF_PACKAGES := $(addprefix ./tests/,$(foreach t,$(DAPR_PERF_TEST),$(call dapr_perf_test,$(t))))
endif
dapr_perf_test_check = $(if $(DAPR_PERF_TEST_UNKNOWN),echo "DAPR_PERF_TEST: $(DAPR_PERF_TEST_UNKNOWN): not a scenario package; it takes Dapr's package names separated by spaces: configuration $(PERF_TESTS)" >&2; exit 2,$(if $(DAPR_PERF_TEST_BOTH),echo "DAPR_PERF_TEST and PERF_PACKAGES are both set: set one" >&2; exit 2,true))
# Overhead bounds a small machine misses are reported, not fatal; without DAPR_PERF_QPS a short
# preflight picks the highest of 1000, 500, 250, 100 QPS this machine keeps on schedule
# (DAPR_PERF_PREFLIGHT=off keeps Dapr's 1000).
PERF_ENV = DAPR_PERF_OVERHEAD_GATE=$${DAPR_PERF_OVERHEAD_GATE:-warn} DAPR_PERF_PREFLIGHT=$${DAPR_PERF_PREFLIGHT:-ladder}
# $(call perf_sh,COMMAND) PACKAGE...: scripts/perf.sh, which builds and runs cmd/perfsuite, in make
# perf's environment, run as COMMAND.
perf_sh = $(PERF_ENV) DAPR_PERF_COMMAND="$(1)" GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) ./scripts/perf.sh

# The groups: perf-<group> runs PERF_GROUP_<group>'s packages under one run id.
PERF_GROUPS := state actors configuration pubsub-subscribe
PERF_GROUP_state := $(addprefix ./tests/,$(filter state_%,$(PERF_TESTS)))
PERF_GROUP_actors := $(addprefix ./tests/,$(filter actor_%,$(PERF_TESTS)))
PERF_GROUP_configuration := $(addprefix ./tests/,$(filter configuration_%,$(PERF_TESTS)))
PERF_GROUP_pubsub-subscribe := ./tests/pubsub_subscribe_http ./tests/pubsub_subscribe_grpc

.PHONY: all nightly release-history calibrate daprd control-plane kube-bin kube-node kube-node-deps test-kube test-kube-all test-deps perf-deps images perf perf-plan test-perf-all $(PERF_TARGETS) $(addprefix perf-,$(PERF_GROUPS)) perf-jobs perf-pubsub test-perf-configuration test-perf-pubsub-subscribe-http-components dapr-perf-test-check perf-workflows cost-curve bisect report publish compare dapr-report test unit bench-tester lint charts clean

all: test

## daprd: build the pinned daprd and Dapr's control plane into .daprd/<version>/, when missing.
daprd: $(DAPRD) control-plane
.daprd/%/daprd:
	./scripts/build-daprd.sh $* $@

## control-plane: placement, scheduler and sentry (the scheduler's pinned module:
## scripts/build-daprd.sh); sentry issues the sidecars' mTLS certificates (DAPR_PERF_MTLS).
control-plane: .daprd/$(DAPR_VERSION)/placement .daprd/$(DAPR_VERSION)/scheduler .daprd/$(DAPR_VERSION)/sentry
.daprd/%/placement:
	./scripts/build-daprd.sh $* $@ placement
.daprd/%/scheduler:
	./scripts/build-daprd.sh $* $@ scheduler
.daprd/%/sentry:
	./scripts/build-daprd.sh $* $@ sentry

## kube-bin, kube-node: build kube/'s tests' control plane and the rest of a two-node cluster,
## when missing (long the first time: docs/kubernetes.md#build-and-run-times).
kube-bin:
	nice -n 19 ./scripts/build-kube.sh $(KUBE_BIN)
kube-node:
	nice -n 19 ./scripts/build-kube-node.sh $(KUBE_NODE)

## kube-node-deps: the Debian packages the cluster runs on, the in-cluster backends among them
## (kube/node/backend_*.go).
kube-node-deps:
	@missing=""; \
	for c in $(KUBE_NODE_DEBS); do \
		bin=$${c%%:*}; pkg=$${c#*:}; \
		if [ -x "$$bin" ] || command -v "$$bin" >/dev/null 2>&1; then :; else missing="$$missing $$pkg"; fi; \
	done; \
	./scripts/apt-install.sh --for "make test-kube" $$missing

## test-kube: the kube platform end to end on a real two-node cluster here (root): bring-up, the
## service-invocation scenarios (10 s at 100 QPS by default), a container killed mid-run, memory
## growth, the in-cluster Redis restarted under a subscribe run, then on in-cluster Redis,
## PostgreSQL, RabbitMQ and Mosquitto one scenario package of
## each plan kind (DAPR_PERF_KUBE_PACKAGES), teardown, the host's network configuration
## unchanged. Each scenario run waits for /tmp/perf.lock. Results under
## $(DAPR_PERF_REPORT_DIR)/runs/<run id>/ (default reports/).
KUBE_TEST_TIMEOUT ?= 60m
test-kube: daprd kube-bin kube-node kube-node-deps
	KUBEBUILDER_ASSETS=$(CURDIR)/$(KUBE_BIN) $(GO) test -tags kubenode -count=1 -v -timeout $(KUBE_TEST_TIMEOUT) ./kube/node/

## test-kube-all: make test-kube with every one of the scenario packages on the cluster, at the
## smoke load of .ci/run (docs/kubernetes.md has the table of a run beside the local platform's).
test-kube-all:
	$(MAKE) test-kube DAPR_PERF_KUBE_PACKAGES=all KUBE_TEST_TIMEOUT=180m

## test-deps: install what make test uses, when missing: prometheus-pushgateway (or an upstream
## pushgateway), prometheus (the remote-write tests), chromium (the HTML report test) and every
## backend the local platform starts.
## Without apt-get it names them, and their tests skip.
test-deps:
	@missing=""; \
	command -v prometheus-pushgateway >/dev/null 2>&1 || command -v pushgateway >/dev/null 2>&1 || missing="$$missing prometheus-pushgateway"; \
	command -v prometheus >/dev/null 2>&1 || missing="$$missing prometheus"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	./scripts/apt-install.sh --for "make test" --or-warn $$missing $$(./scripts/missing-backends.sh)

## perf-deps: the stores and brokers PERF_PACKAGES use, when missing (scripts/perf-deps.sh). Each
## perf target installs those of its own packages: none for test-perf-service_invocation_http.
perf-deps:
	@./scripts/perf-deps.sh "make $@" $(PERF_PACKAGES)

## images: build and push the app images for the kube platform (docker, from the repo root).
images:
	@test -n "$(REGISTRY)" || { echo "make images: set REGISTRY, e.g. make images REGISTRY=ghcr.io/me TAG=v0.3.0" >&2; exit 2; }
	@test -n "$(TAG)" || { echo "make images: set TAG, e.g. make images REGISTRY=ghcr.io/me TAG=v0.3.0" >&2; exit 2; }
	set -e; for app in $(IMAGE_APPS); do \
		docker build -f apps/Dockerfile --build-arg APP=$$app -t $(REGISTRY)/daprperf-$$app:$(TAG) . ; \
		docker push $(REGISTRY)/daprperf-$$app:$(TAG) ; \
	done

## perf: every scenario package through cmd/perfsuite (scripts/perf.sh), one at a time (they would
## share the cores they measure), under one run id; errors, restarts and achieved QPS always gate.
## Exit codes: perfsuite exits with the run's worst outcome (perf/outcome.go: 0, 3, 4, 5, 6,
## 130), prints it and writes it to reports/runs/<run id>/exit-code; make then exits 2, as on
## any failed recipe, and its "Error N" line keeps the code. It ends by drawing the run's report,
## reports/runs/<run id>/index.html, linking every scenario's report.html. So do all perf targets.
perf: test-perf-all
test-perf-all: dapr-perf-test-check daprd $(DAPRD_B)
	@./scripts/perf-deps.sh "make perf" $(PERF_PACKAGES)
	@echo "make perf: $(words $(PERF_PACKAGES)) scenario packages, one at a time: $(patsubst ./tests/%,%,$(PERF_PACKAGES)); each logs its plan and expected time first"
	$(call perf_sh,make perf) $(PERF_PACKAGES)

## nightly: the job a scheduled nightly run calls (cmd/perfnightly; docs/results.md#nightly-runs):
## the scenarios of DAPR_PERF_NIGHTLY_SET (default: service invocation HTTP and gRPC, state get,
## pub/sub publish, actor activation and memory growth, about 30 minutes; short: about 2) under
## one run id, the run added to the history under reports/history/, each figure decided against
## the nights before, the trend page drawn. Exit 7: a figure regressed; the rest as make perf.
NIGHTLY_PACKAGES := $(addprefix ./tests/,service_invocation_http service_invocation_grpc state_get_http actor_activation pubsub_publish_http memory_growth)
nightly: daprd
	@./scripts/perf-deps.sh "make nightly" $(NIGHTLY_PACKAGES)
	$(GO) build -o .bin/perfnightly ./cmd/perfnightly
	GO="$(GO)" PERF_TIMEOUT=$(PERF_TIMEOUT) .bin/perfnightly

## release-history: daprd's releases, one night each with the si set, into reports/releases
## (scripts/release-history.sh; RELEASES picks them); a release already there is skipped.
release-history:
	./scripts/release-history.sh

## calibrate: the comparison verdict's false alarms and power on this machine (scripts/calibrate.sh):
## CALIBRATE_RUNS (20) pairs of A/B runs of service invocation over HTTP, the same daprd as both
## builds, one plain (A/A) and one with build B slowed by CALIBRATE_DELAY (700us), then the table
## of cmd/perfcalibrate. A run already there is skipped, so it can be split over sittings;
## CALIBRATE_KINDS=aa runs the A/A runs alone.
calibrate: daprd
	./scripts/calibrate.sh

dapr-perf-test-check:
	@$(dapr_perf_test_check)

## perf-plan: make perf's plan only: every scenario's phases, loads and expected time, and the
## total; builds the test binaries, starts nothing, needs no daprd.
perf-plan: dapr-perf-test-check
	DAPR_PERF_PLAN_ONLY=1 $(call perf_sh,make $@) $(PERF_PACKAGES)

## test-perf-<name>: one scenario package, tests/<name>, e.g. test-perf-service_invocation_http.
$(PERF_TARGETS): test-perf-%: daprd $(DAPRD_B)
	@./scripts/perf-deps.sh "make $@" ./tests/$*
	$(call perf_sh,make $@) ./tests/$*

## perf-<group>: PERF_GROUP_<group>'s packages under one run id: perf-state, perf-actors,
## perf-configuration, perf-pubsub-subscribe.
$(addprefix perf-,$(PERF_GROUPS)): perf-%: daprd $(DAPRD_B)
	@./scripts/perf-deps.sh "make $@" $(PERF_GROUP_$*)
	$(call perf_sh,make $@) $(PERF_GROUP_$*)

## perf-jobs: = test-perf-jobs. perf-pubsub: every test-perf-pubsub_* target (publish, bulk publish,
## subscribe), each under its own run id; make stops at the first that fails.
perf-jobs: test-perf-jobs
perf-pubsub: $(filter test-perf-pubsub_%,$(PERF_TARGETS))

## test-perf-configuration and test-perf-pubsub-subscribe-http-components: Dapr's targets of those
## names: its configuration package (perf-configuration: our four configuration_* packages) and its
## subscribe test on every broker (test-perf-pubsub_subscribe_http runs each broker the local
## platform starts: Redis, RabbitMQ, MQTT).
test-perf-configuration: perf-configuration
test-perf-pubsub-subscribe-http-components: test-perf-pubsub_subscribe_http

## perf-workflows: tests/workflows once per backend in WORKFLOW_BACKENDS, under one run id, exiting
## with the worst code (the largest; 130, interrupted, stops the loop); PERF_RUN picks tests
## (-run), e.g. PERF_RUN=TestParallelWorkflowWithMaxVUs.
WORKFLOW_BACKENDS ?= in-memory redis postgresql
PERF_RUN ?=
perf-workflows: daprd $(DAPRD_B)
	@for b in $(WORKFLOW_BACKENDS); do DAPR_PERF_WORKFLOW_BACKEND=$$b ./scripts/perf-deps.sh "make $@ ($$b)" ./tests/workflows || exit; done
	@id=$${DAPR_PERF_RUN_ID:-$$(date -u +%Y%m%dT%H%M%SZ)-$$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')}; rc=0; \
	for b in $(WORKFLOW_BACKENDS); do \
		echo "perf-workflows: backend $$b"; \
		DAPR_PERF_RUN_ID=$$id DAPR_PERF_WORKFLOW_BACKEND=$$b $(call perf_sh,make $@ ($$b)) \
			$(if $(PERF_RUN),-run '$(PERF_RUN)') ./tests/workflows || { c=$$?; [ $$c -le $$rc ] || rc=$$c; }; \
		[ $$rc -ne 130 ] || break; \
	done; exit $$rc

## report: draw run RUN's report again (charts, README.md and report.html per scenario, and the
## run's index.html); make perf and the perf targets draw it at the end of every run.
report:
	@test -n "$(RUN)" || { echo "make report: set RUN to a run id (make perf prints it), e.g. make report RUN=20060102T150405Z-4f2a" >&2; exit 2; }
	$(GO) run ./cmd/charts -reports "$${DAPR_PERF_REPORT_DIR:-reports}" report $(RUN)

## cost-curve: the sidecar's cost curve for service invocation over HTTP and gRPC, with mTLS on
## and then off (COST_CURVE_MTLS, "on off"; "on" runs one), each under its own run id
## <id>-mtls-on and <id>-mtls-off (id: DAPR_PERF_RUN_ID, or cost-curve-<UTC time>): latency and
## each sidecar's CPU per request against the offered rate, and the highest rate within the
## bound (docs/method.md#the-sidecars-cost-curve).
COST_CURVE_MTLS ?= on off
cost-curve: daprd
	@for m in $(COST_CURVE_MTLS); do case $$m in on|off) ;; *) echo "make cost-curve: COST_CURVE_MTLS=$(COST_CURVE_MTLS): each word must be on or off (exit 6)" >&2; exit 6;; esac; done
	@./scripts/perf-deps.sh "make $@" ./tests/service_invocation_curve
	@id=$${DAPR_PERF_RUN_ID:-cost-curve-$$(date -u +%Y%m%dT%H%M%SZ)}; rc=0; \
	for m in $(COST_CURVE_MTLS); do \
		echo "cost-curve: mTLS $$m, run $$id-mtls-$$m"; \
		DAPR_PERF_RUN_ID=$$id-mtls-$$m DAPR_PERF_MTLS=$$m $(call perf_sh,make $@ (mTLS $$m)) ./tests/service_invocation_curve || { c=$$?; [ $$c -le $$rc ] || rc=$$c; }; \
		[ $$rc -ne 130 ] || break; \
	done; exit $$rc

## bisect: the daprd commit that moved a figure: between GOOD and BAD of the dapr/dapr git clone at
## DAPR_BISECT_REPO (the bad one's first parents), daprd built at the commit halfway and judged by
## A/B runs of BISECT_PACKAGE (-run BISECT_RUN) on BISECT_FIGURE against both, until one commit is
## left; BISECT_PINS are path@version modules that replace every version of theirs before each build; RESUME=1 goes on with the bisection
## DAPR_PERF_RUN_ID names. Its page: reports/bisect/<id>/
## (cmd/perfbisect, docs/bisect.md).
BISECT_PACKAGE ?= ./tests/service_invocation_http
BISECT_RUN ?= ^TestServiceInvocationHTTPPerformance$$
BISECT_FIGURE ?= latency p90
BISECT_PINS ?=
bisect: daprd
	@test -n "$(DAPR_BISECT_REPO)" -a -n "$(GOOD)" -a -n "$(BAD)" || { echo "make bisect: set DAPR_BISECT_REPO (a git clone of dapr/dapr), GOOD and BAD, e.g. make bisect DAPR_BISECT_REPO=../dapr GOOD=v1.16.5 BAD=v1.17.5 (exit 6)" >&2; exit 6; }
	$(GO) build -o .bin/perfbisect ./cmd/perfbisect
	.bin/perfbisect -repo "$(DAPR_BISECT_REPO)" -good "$(GOOD)" -bad "$(BAD)" -control-plane "$(DAPR_VERSION)" -package "$(BISECT_PACKAGE)" \
		-run '$(BISECT_RUN)' -figure "$(BISECT_FIGURE)" -pins "$(BISECT_PINS)" $(if $(RESUME),-resume)

## dapr-report: write run RUN's result files (without RUN, reports/$(DAPR_VERSION)) as Dapr's
## test_report_perf.json, to OUT (default test_report_perf.json), for Dapr's tests/perf/report
## (docs/dapr-report.md).
dapr-report:
	$(GO) run ./cmd/daprreport -o "$(or $(OUT),test_report_perf.json)" "$${DAPR_PERF_REPORT_DIR:-reports}/$(if $(RUN),runs/$(RUN),$(DAPR_VERSION))"

## publish: copy run RUN into reports/v<version>/ as its daprd version's reference and redraw its
## charts; an incomplete, invalid or failed run is refused unless FORCE=1. Then writes the golden
## figures and summary of each new reference (perf/report's golden test, -update-missing); a
## reference published again over an old one needs that test's -update, and a read of its diff.
publish:
	@test -n "$(RUN)" || { echo "make publish: set RUN to a run id (make perf prints it), e.g. make publish RUN=20060102T150405Z-4f2a" >&2; exit 2; }
	$(GO) run ./cmd/charts -reports "$${DAPR_PERF_REPORT_DIR:-reports}" publish $(if $(FORCE),-force) $(RUN)
	$(GO) test -count=1 -run '^TestFiguresAndSummariesOfEveryFixture$$' ./perf/report/ -update-missing

## compare: compare A with B (run ids, versions such as v1.17.5, or result files); exit 1 on a
## regression beyond noise. With only A, compare build B with build A of an A/B run.
compare:
	@test -n "$(A)" || { echo "make compare: set A (and B), e.g. make compare A=v1.17.5 B=<run id>" >&2; exit 2; }
	$(GO) run ./cmd/charts -reports "$${DAPR_PERF_REPORT_DIR:-reports}" compare $(A) $(B)

## test: every test but the perf scenarios, with the real daprd, Pushgateway and Kubernetes API
## server, in two parts (docs/development.md#make-test). First every package but TIMED_PACKAGES,
## -p 3, since the tests mostly wait on real processes (the two longest first: go test starts
## packages in the order given). Then TIMED_PACKAGES one at a time: their tests check that a load
## keeps its schedule and its latency, which they cannot while other packages compile and run.
TIMED_PACKAGES := ./apps/tester/ ./perf/driver/
MODULE := github.com/daprperf/daprperf
test: daprd kube-bin test-deps
	KUBEBUILDER_ASSETS=$(CURDIR)/$(KUBE_BIN) $(GOTESTSUM) --format pkgname-and-test-fails -- \
		-count=1 -p 3 -timeout $(TEST_TIMEOUT) ./perf/ ./local/ \
		$$($(GO) list ./... | grep -v -x -F $(foreach p,$(TIMED_PACKAGES),-e $(MODULE)/$(patsubst ./%/,%,$(p))))
	$(GOTESTSUM) --format pkgname-and-test-fails -- -count=1 -p 1 -timeout $(TEST_TIMEOUT) $(TIMED_PACKAGES)

## unit: the tests that need neither daprd nor the Pushgateway (short mode skips load runs).
unit:
	$(GO) test -count=1 -short ./perf/... ./apps/... ./charts/...

## charts: PNG and SVG charts, README tables and report.html beside every published result, and
## each version folder's README.md and index.html (reports/v*/).
charts:
	$(GO) run ./cmd/charts -reports reports

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
