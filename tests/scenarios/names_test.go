package scenarios

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// daprsTests are Dapr's 29 scenario test functions (dapr/dapr tests/perf, v1.17 and the jobs
// package after it), each with the daprperf package that holds a function of its name: the
// package of Dapr's name, but for Dapr's configuration package, split here by API and transport.
var daprsTests = []struct{ pkg, name string }{
	{"service_invocation_http", "TestServiceInvocationHTTPPerformance"},
	{"service_invocation_grpc", "TestServiceInvocationGrpcPerformance"},
	{"state_get_http", "TestStateGetHTTPPerformance"},
	{"state_get_grpc", "TestStateGetGrpcPerformance"},
	{"pubsub_publish_grpc", "TestPubsubPublishGrpcPerformance"},
	{"pubsub_publish_http", "TestPubsubPublishHttpPerformance"},
	{"pubsub_bulk_publish_grpc", "TestBulkPubsubPublishGrpcPerformance"},
	{"pubsub_bulk_publish_http", "TestPubsubBulkPublishHttpPerformance"},
	{"pubsub_subscribe_http", "TestPubsubBulkPublishSubscribeHttpPerformance"},
	{"pubsub_subscribe_http", "TestPubsubBulkPublishBulkSubscribeHttpPerformance"},
	{"actor_activation", "TestActorActivate"},
	{"actor_timer", "TestActorTimerWithStatePerformance"},
	{"actor_reminder", "TestActorReminderRegistrationPerformance"},
	{"actor_reminder", "TestActorReminderTriggerPerformance"},
	{"actor_type_scale", "TestActorIdStress"}, // sic: Dapr's name in that package
	{"actor_id_scale", "TestActorIdStress"},
	{"actor_double_activation", "TestActorDoubleActivation"},
	{"configuration_get_http", "TestConfigurationGetHTTPPerformance"},
	{"configuration_get_grpc", "TestConfigurationGetGRPCPerformance"},
	{"configuration_subscribe_http", "TestConfigurationSubscribeHTTPPerformance"},
	{"configuration_subscribe_grpc", "TestConfigurationSubscribeGRPCPerformance"},
	{"jobs", "TestJobSchedulingPerformance"},
	{"jobs", "TestJobTriggerPerformance"},
	{"workflows", "TestWorkflowWithConstantVUs"},
	{"workflows", "TestWorkflowWithConstantIterations"},
	{"workflows", "TestSeriesWorkflowWithMaxVUs"},
	{"workflows", "TestParallelWorkflowWithMaxVUs"},
	{"workflows", "TestWorkflowWithDifferentPayloads"},
	{"workflows", "TestDelayWorkflowsAtScale"},
}

// perfTests reads every test function of the perf-tagged scenario packages under tests/, by
// package.
func perfTests(t *testing.T) map[string][]string {
	t.Helper()
	root, err := perf.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "tests", "*", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if len(file.Comments) == 0 || file.Comments[0].List[0].Text != "//go:build perf" {
			continue
		}
		pkg := filepath.Base(filepath.Dir(f))
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				out[pkg] = append(out[pkg], fn.Name.Name)
			}
		}
	}
	return out
}

// Each of Dapr's 29 test functions has a function of its name in its package, and go test's
// -run with that name (as a Dapr maintainer types it) selects nothing else but Dapr's own
// twin (TestActorIdStress, which Dapr has in two packages).
func TestDaprsTestNames(t *testing.T) {
	if len(daprsTests) != 29 {
		t.Fatalf("%d of Dapr's test functions listed, want 29", len(daprsTests))
	}
	tests := perfTests(t)
	for _, d := range daprsTests {
		if !slices.Contains(tests[d.pkg], d.name) {
			t.Errorf("Dapr's %s: no function of that name in tests/%s (it has %v)", d.name, d.pkg, tests[d.pkg])
		}
		re := regexp.MustCompile(d.name)
		for pkg, names := range tests {
			for _, n := range names {
				twin := slices.ContainsFunc(daprsTests, func(o struct{ pkg, name string }) bool { return o.pkg == pkg && o.name == n })
				if re.MatchString(n) && !(pkg == d.pkg && n == d.name) && !(twin && n == d.name) {
					t.Errorf("-run %s also selects %s in tests/%s", d.name, n, pkg)
				}
			}
		}
	}
}
