package kube

import (
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// Dapr's DAPR_SIDECAR_* fill every sidecar resource a scenario leaves empty, never one it sets,
// and touch no app without a sidecar; a value that is no quantity is an error naming the
// variable.
func TestSidecarResourcesFromEnv(t *testing.T) {
	t.Setenv("DAPR_SIDECAR_CPU_LIMIT", "4.0")
	t.Setenv("DAPR_SIDECAR_MEMORY_REQUEST", "250Mi")
	def, err := fromEnv(sidecarResourcesFromEnv)
	if err != nil {
		t.Fatal(err)
	}
	apps := []perf.App{
		{Name: "tester", Kind: perf.Tester},
		{Name: "a", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{}},
		{Name: "b", Kind: perf.HTTPApp, Sidecar: &perf.Sidecar{Resources: perf.Resources{CPULimit: "2", MemoryLimit: "1Gi"}}},
	}
	out := withSidecarDefaults(apps, def)
	if out[0].Sidecar != nil {
		t.Error("an app without a sidecar got one")
	}
	if got := out[1].Sidecar.Resources; got != (perf.Resources{CPULimit: "4.0", MemoryRequest: "250Mi"}) {
		t.Errorf("empty sidecar: %+v", got)
	}
	if got := out[2].Sidecar.Resources; got != (perf.Resources{CPULimit: "2", MemoryLimit: "1Gi", MemoryRequest: "250Mi"}) {
		t.Errorf("a scenario's own resources: %+v", got)
	}
	if apps[1].Sidecar.Resources != (perf.Resources{}) {
		t.Error("the scenario's apps were changed in place")
	}
	annotations := DaprAnnotations(AppDescription{Name: "a", DaprEnabled: true, Sidecar: *out[1].Sidecar})
	if annotations[AnnotationSidecarCPULimit] != "4.0" || annotations[AnnotationSidecarMemRequest] != "250Mi" {
		t.Errorf("annotations %v", annotations)
	}

	t.Setenv("DAPR_SIDECAR_MEMORY_LIMIT", "lots")
	if _, err := fromEnv(sidecarResourcesFromEnv); err == nil || !strings.Contains(err.Error(), "DAPR_SIDECAR_MEMORY_LIMIT") {
		t.Errorf("a bad quantity: %v, want an error naming DAPR_SIDECAR_MEMORY_LIMIT", err)
	}
}
