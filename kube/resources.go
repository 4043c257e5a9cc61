package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daprperf/daprperf/perf"
)

// checkResources parses every quantity of r; the error starts with the field name
// ("CPURequest ...") so callers can prefix where r sits.
func checkResources(r perf.Resources) error {
	for _, f := range []struct{ name, value string }{
		{"CPURequest", r.CPURequest}, {"CPULimit", r.CPULimit},
		{"MemoryRequest", r.MemoryRequest}, {"MemoryLimit", r.MemoryLimit},
	} {
		if f.value == "" {
			continue
		}
		if _, err := resource.ParseQuantity(f.value); err != nil {
			return fmt.Errorf("%s %q: %w", f.name, f.value, err)
		}
	}
	return nil
}

// containerResources is r as a container's requests and limits; empty fields are left out.
// r must have passed checkResources.
func containerResources(r perf.Resources) corev1.ResourceRequirements {
	var req corev1.ResourceRequirements
	set := func(list *corev1.ResourceList, name corev1.ResourceName, v string) {
		if v == "" {
			return
		}
		if *list == nil {
			*list = corev1.ResourceList{}
		}
		(*list)[name] = resource.MustParse(v)
	}
	set(&req.Requests, corev1.ResourceCPU, r.CPURequest)
	set(&req.Requests, corev1.ResourceMemory, r.MemoryRequest)
	set(&req.Limits, corev1.ResourceCPU, r.CPULimit)
	set(&req.Limits, corev1.ResourceMemory, r.MemoryLimit)
	return req
}
