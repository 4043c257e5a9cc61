package main

import (
	"github.com/daprperf/daprperf/perf"
)

// suite is the load tool whose summary a Dapr test logs, as Dapr's report decides it: a test
// function is k6-based when its file calls NewK6(, fortio-based when it calls Params( or WithQPS(
// (tests/perf/report/classify.go, buildTestModes, at v1.18.3).
type suite string

const (
	suiteFortio suite = "fortio"
	suiteK6     suite = "k6"
	// suiteNone is a test that logs no summary (Dapr's trigger tests): its report draws nothing
	// for it but may read its resource lines.
	suiteNone suite = ""
)

// daprTest is one of Dapr's perf test functions (dapr/dapr tests/perf at v1.18.3) and what its
// log carries.
type daprTest struct {
	// Pkg is its package folder under tests/perf; the go test event names the package
	// daprPackagePrefix + Pkg.
	Pkg string
	// Func is the test function; Order its place among the package's functions (source order).
	Func  string
	Order int
	// Suite is the summary it logs with utils.LogPerfTestSummary.
	Suite suite
	// App and Sidecar are the roles of our processes that stand for the app Dapr's test measures
	// with GetAppUsage(name) and GetSidecarUsage(name) (tests/perf/utils/helpers.go,
	// LogPerfTestResourceUsage): the app Dapr's test names, which is the target app in some tests
	// and the tester in others. Both empty when the test logs no resource lines.
	App, Sidecar string
}

// daprPackagePrefix is the import path of Dapr's perf test packages.
const daprPackagePrefix = "github.com/dapr/dapr/tests/perf/"

// Dapr's test functions that a daprperf scenario mirrors. Which app each one measures is read
// from the names it passes to GetAppUsage, GetSidecarUsage and GetTotalRestarts.
var (
	siHTTP = daprTest{Pkg: "service_invocation_http", Func: "TestServiceInvocationHTTPPerformance", Suite: suiteFortio,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // "testapp"
	siGRPC = daprTest{Pkg: "service_invocation_grpc", Func: "TestServiceInvocationGrpcPerformance", Suite: suiteFortio,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // "testapp"
	stateGetHTTP = daprTest{Pkg: "state_get_http", Func: "TestStateGetHTTPPerformance", Suite: suiteFortio,
		App: perf.RoleTester, Sidecar: perf.RoleCallerSidecar} // appName "perfstatehttp", the perf-tester image
	stateGetGRPC = daprTest{Pkg: "state_get_grpc", Func: "TestStateGetGrpcPerformance", Suite: suiteFortio,
		App: perf.RoleTester, Sidecar: perf.RoleCallerSidecar} // appName "perfstategrpc", the perf-tester image
	publishGRPC = daprTest{Pkg: "pubsub_publish_grpc", Func: "TestPubsubPublishGrpcPerformance", Suite: suiteFortio,
		App: perf.RoleTester, Sidecar: perf.RoleCallerSidecar} // appName "pubsub-perf-grpc", the perf-tester image
	publishHTTP = daprTest{Pkg: "pubsub_publish_http", Func: "TestPubsubPublishHttpPerformance", Suite: suiteK6}
	bulkGRPC    = daprTest{Pkg: "pubsub_bulk_publish_grpc", Func: "TestBulkPubsubPublishGrpcPerformance", Suite: suiteFortio,
		App: perf.RoleTester, Sidecar: perf.RoleCallerSidecar} // appName, the perf-tester image
	bulkHTTP      = daprTest{Pkg: "pubsub_bulk_publish_http", Func: "TestPubsubBulkPublishHttpPerformance", Suite: suiteK6}
	subscribeHTTP = daprTest{Pkg: "pubsub_subscribe_http", Func: "TestPubsubBulkPublishSubscribeHttpPerformance", Suite: suiteK6,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // component.TestAppName + "-normal", the subscriber
	bulkSubscribeHTTP = daprTest{Pkg: "pubsub_subscribe_http", Func: "TestPubsubBulkPublishBulkSubscribeHttpPerformance", Order: 1, Suite: suiteK6,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // component.TestAppName + "-bulk", the subscriber
	actorActivate = daprTest{Pkg: "actor_activation", Func: "TestActorActivate", Suite: suiteFortio,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // the actor host
	actorTimer = daprTest{Pkg: "actor_timer", Func: "TestActorTimerWithStatePerformance", Suite: suiteFortio,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // the actor hosts
	reminderRegistration = daprTest{Pkg: "actor_reminder", Func: "TestActorReminderRegistrationPerformance", Suite: suiteFortio,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // the actor host, which also runs Dapr's load
	reminderTrigger  = daprTest{Pkg: "actor_reminder", Func: "TestActorReminderTriggerPerformance", Order: 1, Suite: suiteNone}
	actorTypeScale   = daprTest{Pkg: "actor_type_scale", Func: "TestActorIdStress", Suite: suiteK6, App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar}
	doubleActivation = daprTest{Pkg: "actor_double_activation", Func: "TestActorDoubleActivation", Suite: suiteK6,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar}
	configGetHTTP = daprTest{Pkg: "configuration", Func: "TestConfigurationGetHTTPPerformance", Suite: suiteK6,
		App: perf.RoleTester, Sidecar: perf.RoleCallerSidecar} // the configuration app calls its own sidecar: our tester
	configGetGRPC = daprTest{Pkg: "configuration", Func: "TestConfigurationGetGRPCPerformance", Order: 1, Suite: suiteK6,
		App: perf.RoleTester, Sidecar: perf.RoleCallerSidecar}
	configSubscribeHTTP = daprTest{Pkg: "configuration", Func: "TestConfigurationSubscribeHTTPPerformance", Order: 2, Suite: suiteK6,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // the subscribing app and its sidecar: our subscriber
	configSubscribeGRPC = daprTest{Pkg: "configuration", Func: "TestConfigurationSubscribeGRPCPerformance", Order: 3, Suite: suiteK6,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar}
	jobScheduling = daprTest{Pkg: "jobs", Func: "TestJobSchedulingPerformance", Suite: suiteFortio,
		App: perf.RoleTester, Sidecar: perf.RoleCallerSidecar} // testerAppName
	jobTrigger = daprTest{Pkg: "jobs", Func: "TestJobTriggerPerformance", Order: 1, Suite: suiteNone,
		App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar} // appName, the jobs app
	wfConstantVUs        = workflowTest("TestWorkflowWithConstantVUs", 0)
	wfConstantIterations = workflowTest("TestWorkflowWithConstantIterations", 1)
	wfSeriesMaxVUs       = workflowTest("TestSeriesWorkflowWithMaxVUs", 2)
	wfParallelMaxVUs     = workflowTest("TestParallelWorkflowWithMaxVUs", 3)
	wfPayloads           = workflowTest("TestWorkflowWithDifferentPayloads", 4)
	wfDelayAtScale       = workflowTest("TestDelayWorkflowsAtScale", 5)
)

// workflowTest is one of Dapr's workflow tests (tests/perf/workflows/workflow_test.go): k6, the
// workflow app and its sidecar measured after each run (addTestResults).
func workflowTest(fn string, order int) daprTest {
	return daprTest{Pkg: "workflows", Func: fn, Order: order, Suite: suiteK6, App: perf.RoleApp, Sidecar: perf.RoleCalleeSidecar}
}

// mapping says which of Dapr's tests a daprperf scenario (Report.Test over Report.Transport)
// mirrors, and how its measurements become that test's runs.
type mapping struct {
	test      string
	transport perf.Protocol
	dapr      daprTest
	runs      runsFunc
}

// mappings are daprperf's scenarios that are Dapr's own tests: the same API, load shape and
// component as Dapr's CI runs them. daprperf's variants (other stores and brokers, seeded keys,
// fixed-rate twins of a VU ramp, gRPC delivery) have no row: Dapr's report would file them
// under the Dapr test they sit beside and, outside pub/sub, average them with it.
var mappings = []mapping{
	{"service_invocation", perf.HTTP, siHTTP, mainPhase("", 0)},
	{"service_invocation", perf.GRPC, siGRPC, mainPhase("", 0)},
	{"state_get", perf.HTTP, stateGetHTTP, mainPhase("", 0)},
	{"state_get", perf.GRPC, stateGetGRPC, mainPhase("", 0)},
	{"pubsub_publish", perf.GRPC, publishGRPC, mainPhase("", 0)},
	{"pubsub_publish", perf.HTTP, publishHTTP, pooledLoads()},
	// Dapr's subtest names (t.Run(tc.name)), in its order.
	{"pubsub_bulk_publish", perf.GRPC, bulkGRPC, mainPhase("In-memory with with cloud event", 0)},
	{"pubsub_bulk_publish_raw", perf.GRPC, bulkGRPC, mainPhase("In-memory without cloud event (raw payload)", 1)},
	// Dapr's runs are raw events on its "memory-broker", 1 KB, bulk sizes 10 then 100, each a
	// "normal" run (our baseline: the singles) then a "bulk" run (our main phase).
	{"pubsub_bulk_publish_raw_b10", perf.HTTP, bulkHTTP, normalAndBulk("memory-broker_b10_s1KB", 0)},
	{"pubsub_bulk_publish_raw", perf.HTTP, bulkHTTP, normalAndBulk("memory-broker_b100_s1KB", 2)},
	// Dapr's subtests are named by component (test_all.yaml), in that file's order.
	{"pubsub_subscribe_rabbitmq", perf.HTTP, subscribeHTTP, namedLoad("dapr-perf-test-rabbitmq-pubsub-subs-http", 1, "main publish", latencyRequest)},
	{"pubsub_subscribe_mqtt", perf.HTTP, subscribeHTTP, namedLoad("dapr-perf-test-mqtt-pubsub-subs-http", 2, "main publish", latencyRequest)},
	{"pubsub_subscribe_redis", perf.HTTP, subscribeHTTP, namedLoad("dapr-perf-test-redis-pubsub-subs-http", 4, "main publish", latencyRequest)},
	{"pubsub_bulk_subscribe_rabbitmq", perf.HTTP, bulkSubscribeHTTP, namedLoad("dapr-perf-test-rabbitmq-pubsub-subs-http", 1, "main publish", latencyRequest)},
	{"pubsub_bulk_subscribe_mqtt", perf.HTTP, bulkSubscribeHTTP, namedLoad("dapr-perf-test-mqtt-pubsub-subs-http", 2, "main publish", latencyRequest)},
	{"pubsub_bulk_subscribe_redis", perf.HTTP, bulkSubscribeHTTP, namedLoad("dapr-perf-test-redis-pubsub-subs-http", 4, "main publish", latencyRequest)},
	// Actor state on PostgreSQL v2, as Dapr's CI.
	{"actor_activation", perf.HTTP, actorActivate, mainPhase("", 0)},
	{"actor_timer", perf.HTTP, actorTimer, mainPhase("", 0)},
	{"actor_reminder_registration", perf.HTTP, reminderRegistration, namedLoad("", 0, "registration", latencyBoth)},
	{"actor_reminder_trigger", perf.HTTP, reminderTrigger, nothingLogged()},
	{"actor_type_scale", perf.HTTP, actorTypeScale, mainPhase("", 0)},
	{"actor_double_activation", perf.HTTP, doubleActivation, pooledLoads()},
	// Dapr's VU ramp; our fixed-rate configuration_get has no Dapr twin.
	{"configuration_get_ramp", perf.HTTP, configGetHTTP, mainPhase("", 0)},
	{"configuration_get_ramp", perf.GRPC, configGetGRPC, mainPhase("", 0)},
	{"configuration_subscribe", perf.HTTP, configSubscribeHTTP, namedLoad("", 0, "main publish", latencyBoth)},
	{"configuration_subscribe", perf.GRPC, configSubscribeGRPC, namedLoad("", 0, "main publish", latencyBoth)},
	{"jobs_scheduling", perf.HTTP, jobScheduling, mainPhase("", 0)},
	{"jobs_triggering", perf.HTTP, jobTrigger, nothingLogged()},
	// Workflow state on PostgreSQL v2, as Dapr's CI; one subtest per k6 scenario.
	{"workflow_constant_vus_postgresql", perf.HTTP, wfConstantVUs, eachLoad(0)},
	{"workflow_constant_iterations_postgresql", perf.HTTP, wfConstantIterations, eachLoad(0)},
	{"workflow_series_max_vus_postgresql", perf.HTTP, wfSeriesMaxVUs, eachLoad(0)},
	{"workflow_parallel_max_vus_postgresql", perf.HTTP, wfParallelMaxVUs, eachLoad(0)},
	// Dapr's inputs 10000, 50000, 100000 run in that order, each its own "[T_30_300]: " subtest.
	{"workflow_payload_10000_postgresql", perf.HTTP, wfPayloads, eachLoad(0)},
	{"workflow_payload_50000_postgresql", perf.HTTP, wfPayloads, eachLoad(1)},
	{"workflow_payload_100000_postgresql", perf.HTTP, wfPayloads, eachLoad(2)},
	{"workflow_delay_at_scale_postgresql", perf.HTTP, wfDelayAtScale, eachLoad(0)},
}

// twinsLeftOut are scenarios of Dapr's tests that are not written, and why.
var twinsLeftOut = map[string]string{
	"actor_id_scale": "Dapr's actor_id_scale test skips itself (t.Skip in TestActorIdStress), and Dapr's report would " +
		"average a run of it with actor_type_scale's, whose function has the same name, under actors/TestActorIdStress",
}

// mappingOf returns the mapping of r's scenario; false when it has no Dapr twin.
func mappingOf(r *perf.Report) (mapping, bool) {
	for _, m := range mappings {
		if m.test == r.Test && m.transport == r.Transport {
			return m, true
		}
	}
	return mapping{}, false
}
