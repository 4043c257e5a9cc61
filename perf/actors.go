package perf

import (
	"maps"
	"slices"
	"strings"
)

// Dapr's control plane for actors, as the platforms provide it (Sidecar.Placement,
// Sidecar.Scheduler). The report's environment lists each service with the backends.
const (
	// ControlPlacement is Dapr's placement service: which host runs which actor id.
	ControlPlacement Backend = "placement"
	// ControlScheduler is Dapr's scheduler: reminders, jobs and workflow timers.
	ControlScheduler Backend = "scheduler"
	// DefaultPlacement is the placement group of a sidecar that leaves Placement empty but
	// loads an actor state store.
	DefaultPlacement = "default"
)

// EnvBackendAddr is the environment variable that gives an app the host:port of backend b it
// asked for in App.Backends: "DAPR_PERF_REDIS_ADDR" for BackendRedis.
func EnvBackendAddr(b Backend) string { return "DAPR_PERF_" + strings.ToUpper(string(b)) + "_ADDR" }

// HasActorStateStore reports whether s loads a component with metadata actorStateStore "true".
func (s *Sidecar) HasActorStateStore() bool {
	if s == nil {
		return false
	}
	return slices.ContainsFunc(s.Components, func(c Component) bool {
		return strings.EqualFold(c.Metadata["actorStateStore"], "true")
	})
}

// PlacementGroup is the placement service s registers with: Placement, or DefaultPlacement
// when s loads an actor state store; "" for none.
func (s *Sidecar) PlacementGroup() string {
	switch {
	case s == nil:
		return ""
	case s.Placement != "":
		return s.Placement
	case s.HasActorStateStore():
		return DefaultPlacement
	}
	return ""
}

// PlacementGroups lists the distinct placement groups of apps' sidecars, sorted.
func PlacementGroups(apps []App) []string {
	set := map[string]bool{}
	for _, a := range apps {
		if g := a.Sidecar.PlacementGroup(); g != "" {
			set[g] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// NeedsScheduler reports whether a sidecar of apps asks for the scheduler.
func NeedsScheduler(apps []App) bool {
	return slices.ContainsFunc(apps, func(a App) bool { return a.Sidecar != nil && a.Sidecar.Scheduler })
}

// PlacementProcess is the process name of placement group g: "placement" for the default
// group, "placement-<g>" for another.
func PlacementProcess(g string) string {
	if g == DefaultPlacement || g == "" {
		return string(ControlPlacement)
	}
	return string(ControlPlacement) + "-" + g
}
