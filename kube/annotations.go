package kube

import (
	"strconv"

	"github.com/daprperf/daprperf/perf"
)

// The dapr.io annotations the platform sets on an app's pod template; Dapr's sidecar injector
// reads them. See https://docs.dapr.io/reference/arguments-annotations-overview/.
const (
	AnnotationEnabled           = "dapr.io/enabled"
	AnnotationAppID             = "dapr.io/app-id"
	AnnotationAppPort           = "dapr.io/app-port"
	AnnotationAppProtocol       = "dapr.io/app-protocol"
	AnnotationEnableMetrics     = "dapr.io/enable-metrics"
	AnnotationMetricsPort       = "dapr.io/metrics-port"
	AnnotationEnableProfiling   = "dapr.io/enable-profiling"
	AnnotationSidecarCPULimit   = "dapr.io/sidecar-cpu-limit"
	AnnotationSidecarCPUReq     = "dapr.io/sidecar-cpu-request"
	AnnotationSidecarMemLimit   = "dapr.io/sidecar-memory-limit"
	AnnotationSidecarMemRequest = "dapr.io/sidecar-memory-request"
	AnnotationConfig            = "dapr.io/config"
)

// DaprAnnotations are the dapr.io annotations of d's pod template: none when Dapr is not
// enabled. Sidecar quantities are set only when given; dapr.io/config only with ConfigName.
func DaprAnnotations(d AppDescription) map[string]string {
	if !d.DaprEnabled {
		return nil
	}
	s := d.Sidecar
	a := map[string]string{
		AnnotationEnabled:         "true",
		AnnotationAppID:           d.Name,
		AnnotationAppPort:         strconv.Itoa(int(d.AppPort)),
		AnnotationAppProtocol:     string(s.AppProtocol),
		AnnotationEnableMetrics:   strconv.FormatBool(!s.DisableMetrics),
		AnnotationMetricsPort:     strconv.Itoa(SidecarMetricsPort),
		AnnotationEnableProfiling: strconv.FormatBool(s.Profiling),
	}
	setIf := func(key, v string) {
		if v != "" {
			a[key] = v
		}
	}
	setIf(AnnotationSidecarCPULimit, s.Resources.CPULimit)
	setIf(AnnotationSidecarCPUReq, s.Resources.CPURequest)
	setIf(AnnotationSidecarMemLimit, s.Resources.MemoryLimit)
	setIf(AnnotationSidecarMemRequest, s.Resources.MemoryRequest)
	setIf(AnnotationConfig, d.ConfigName)
	return a
}

// hasSidecarEndpoint says whether d's sidecar serves e: metrics unless disabled, profiling
// when enabled, HTTP and gRPC always.
func hasSidecarEndpoint(d AppDescription, e perf.Endpoint) bool {
	if !d.DaprEnabled {
		return false
	}
	switch e {
	case perf.SidecarHTTP, perf.SidecarGRPC:
		return true
	case perf.SidecarMetrics:
		return !d.Sidecar.DisableMetrics
	case perf.SidecarProfile:
		return d.Sidecar.Profiling
	}
	return false
}
