// Package scenarios holds daprperf's scenarios as data, and Run, which runs one on the platform
// DAPR_PERF_PLATFORM names. The perf tests under tests/ (build tag perf) are a few lines each:
//
//	func TestServiceInvocationHTTPPerformance(t *testing.T) {
//		scenarios.Run(t, scenarios.ServiceInvocation(perf.HTTP))
//	}
package scenarios
