package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// step is one perfsuite call of a nightly set: packages that share their settings.
type step struct {
	// Packages are scenario packages as perfsuite takes them ("./tests/service_invocation_http").
	Packages []string
	// Run picks the tests and subtests (go test's -run); "" runs every test of the packages.
	Run string
	// Env are the step's settings: each applies unless the caller set the variable itself, so
	// that a night run by hand can change them and its result files still record what ran.
	Env map[string]string
	// Expected is about how long the step takes on a 2-core machine, from its plan
	// (make perf-plan), start-up and builds included; only for the line printed before it.
	Expected time.Duration
}

// nightlySet is the scenarios a night runs and at which settings.
type nightlySet struct {
	Name, Doc string
	Steps     []step
}

// The nightly sets. default is what a scheduled job runs: service invocation over HTTP and
// gRPC, state get, pub/sub publish, actor activation and memory growth, Dapr's scenarios at a
// load this 2-core machine keeps (500 QPS: the published references' rate) and with 3
// interleaved rounds, so that each night has per-round values to weigh its noise by, in about
// half an hour. short is the same path in about two minutes, for CI and for trying the command.
// si is service invocation alone at default's load with 6 rounds, for the release history
// (scripts/release-history.sh), where each release is one night.
var nightlySets = []nightlySet{
	{
		Name: "default",
		Doc:  "service invocation HTTP and gRPC, state get, pub/sub publish, actor activation, memory growth (about 30 minutes)",
		Steps: []step{
			{
				Packages: []string{"./tests/service_invocation_http", "./tests/service_invocation_grpc", "./tests/state_get_http", "./tests/actor_activation"},
				Run:      "^(TestServiceInvocationHTTPPerformance|TestServiceInvocationGrpcPerformance|TestStateGetHTTPPerformance|TestActorActivate)$/^(state_get|actor_activation)$",
				Env: map[string]string{"DAPR_PERF_QPS": "500", "DAPR_TEST_DURATION": "30s", "DAPR_PERF_REPEATS": "3",
					"DAPR_PERF_WARMUP_DURATION": "10s", "DAPR_PERF_IDLE_WINDOW": "5s"},
				Expected: 17 * time.Minute,
			},
			{
				Packages: []string{"./tests/pubsub_publish_http"},
				Run:      "^TestPubsubPublishHttpPerformance$/^pubsub_publish$",
				Env:      map[string]string{"DAPR_TEST_DURATION": "20s", "DAPR_PERF_WARMUP_DURATION": "10s", "DAPR_PERF_IDLE_WINDOW": "5s"},
				Expected: 4 * time.Minute,
			},
			{
				Packages: []string{"./tests/memory_growth"},
				Expected: 7 * time.Minute,
			},
		},
	},
	{
		Name: "si",
		Doc:  "service invocation HTTP and gRPC at 500 QPS in 10 s phases, 6 rounds (about 6 minutes; the release history's)",
		Steps: []step{{
			Packages: []string{"./tests/service_invocation_http", "./tests/service_invocation_grpc"},
			Env: map[string]string{"DAPR_PERF_QPS": "500", "DAPR_TEST_DURATION": "10s", "DAPR_PERF_REPEATS": "6",
				"DAPR_PERF_WARMUP_DURATION": "10s", "DAPR_PERF_IDLE_WINDOW": "5s"},
			Expected: 6 * time.Minute,
		}},
	},
	{
		Name: "short",
		Doc:  "service invocation HTTP and gRPC at 100 QPS in 5 s phases, 3 rounds (about 2 minutes; CI's)",
		Steps: []step{{
			Packages: []string{"./tests/service_invocation_http", "./tests/service_invocation_grpc"},
			Env: map[string]string{"DAPR_PERF_QPS": "100", "DAPR_TEST_DURATION": "5s", "DAPR_PERF_REPEATS": "3",
				"DAPR_PERF_WARMUP_DURATION": "2s", "DAPR_PERF_IDLE_WINDOW": "2s", "DAPR_PERF_MIN_QPS_RATIO": "0.97"},
			Expected: 2 * time.Minute,
		}},
	},
}

// setNamed returns the nightly set called name ("" is default), or an error naming the variable
// and the sets there are.
func setNamed(name string) (nightlySet, error) {
	if name == "" {
		name = "default"
	}
	i := slices.IndexFunc(nightlySets, func(s nightlySet) bool { return s.Name == name })
	if i < 0 {
		var names []string
		for _, s := range nightlySets {
			names = append(names, fmt.Sprintf("%s (%s)", s.Name, s.Doc))
		}
		return nightlySet{}, fmt.Errorf("%s=%q: must be one of %s", envSet, name, strings.Join(names, "; "))
	}
	return nightlySets[i], nil
}

// expected is the set's expected time.
func (s nightlySet) expected() time.Duration {
	var d time.Duration
	for _, st := range s.Steps {
		d += st.Expected
	}
	return d
}
