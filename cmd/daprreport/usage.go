package main

import (
	"fmt"
	"math"

	"github.com/daprperf/daprperf/perf"
)

// The markers Dapr's tests print their resource usage and restarts after, and its report looks
// for (tests/perf/markers/markers.go).
const (
	markerAppConsumed     = "target dapr app consumed"
	markerSidecarConsumed = "target dapr sidecar consumed"
	markerTargetRestarted = "target dapr app or sidecar restarted"
	markerTesterRestarted = "tester app or sidecar restarted"
)

// usageLines are the lines Dapr's utils.LogPerfTestResourceUsage prints
// (tests/perf/utils/helpers.go), from r:
//
//	target dapr app consumed <mCPU>m CPU and <MB>Mb of Memory
//	target dapr sidecar consumed <mCPU>m CPU and <MB>Mb of Memory
//	target dapr app or sidecar restarted <n> times
//	tester app or sidecar restarted <n> times
//
// The app is the processes of role t.App, the sidecar those of role t.Sidecar; several (actor
// hosts) give the largest CPU and the largest memory, as Dapr's GetCPUAndMemory takes the
// largest over the app's pods (tests/platforms/kubernetes/appmanager.go). CPU is
// ResourceSummary.MeanCPUCores in millicores rounded up (Dapr's is an int64, metrics-server's
// usage scaled up to milli); memory is ResourceSummary.PeakRSSBytes in Dapr's unit,
// float64(bytes/1024) x 0.001024, decimal MB. A usage line is left out when no process of its
// role has a reading. Restarts are those of Report.Exits (each exit counts max(Restarts, 1), as
// daprperf's restarts figure) of the app and sidecar processes, then of the tester and its
// sidecar; the restart lines are left out when r lists no processes (no roles to attribute an
// exit to). The figures are the whole result's, so every subtest of one result repeats them.
// None when t logs no resource lines.
func usageLines(t daprTest, r *perf.Report) []string {
	if t.App == "" || len(r.Resources) == 0 {
		return nil
	}
	var out []string
	if line, ok := usageLine(markerAppConsumed, r, t.App); ok {
		out = append(out, line)
	}
	if line, ok := usageLine(markerSidecarConsumed, r, t.Sidecar); ok {
		out = append(out, line)
	}
	role := map[string]string{}
	for _, s := range r.Resources {
		role[s.Process] = s.Role
	}
	var target, tester int
	for _, e := range r.Exits {
		n := max(e.Restarts, 1)
		switch role[e.Process] {
		case t.App, t.Sidecar:
			target += n
		case perf.RoleTester, perf.RoleCallerSidecar:
			tester += n
		}
	}
	return append(out,
		fmt.Sprintf("%s %v times\n", markerTargetRestarted, target),
		fmt.Sprintf("%s %v times\n", markerTesterRestarted, tester))
}

// usageLine is one "consumed" line for the processes of role; false when none has a reading.
func usageLine(marker string, r *perf.Report, role string) (string, bool) {
	var cpuMilli int64
	var memMB float64
	found := false
	for _, s := range r.Resources {
		if s.Role != role || s.NoReadings() {
			continue
		}
		found = true
		cpuMilli = max(cpuMilli, int64(math.Ceil(s.MeanCPUCores*1000-1e-9))) // up, but not for a float's last bit
		memMB = max(memMB, daprMB(s.PeakRSSBytes))
	}
	if !found {
		return "", false
	}
	return fmt.Sprintf("%s %vm CPU and %vMb of Memory\n", marker, cpuMilli, memMB), true
}

// daprMB is bytes in the unit of Dapr's MemoryMb: whole KiB times 0.001024, decimal megabytes
// (tests/platforms/kubernetes/appmanager.go, GetCPUAndMemory).
func daprMB(bytes uint64) float64 { return float64(bytes/1024) * 0.001024 }
