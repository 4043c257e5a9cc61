package perf

import (
	"fmt"
	"strings"
)

// LoadRecord says whose load a run ran. Overrides are the load variables that were set, as
// NAME=value (DAPR_PAYLOAD as its size): none means the scenario's own load ran, which for a
// scenario that mirrors one of Dapr's tests is Dapr's; any means a lighter or heavier run than
// Dapr's, such as CI's smoke. A preflight that lowered the rate is in Report.Preflight.
type LoadRecord struct {
	Overrides []string `json:"overrides,omitempty"`
	// Testers is how many testers shared each load (Scenario.TesterReplicas), each with its
	// own daprd; 0 or 1 is one.
	Testers int `json:"testers,omitempty"`
}

// LoadOf is the LoadRecord of a run under env: every main-phase and warmup load variable set.
func LoadOf(env Env) LoadRecord {
	var r LoadRecord
	add := func(name string, set bool, v any) {
		if set {
			r.Overrides = append(r.Overrides, fmt.Sprintf("%s=%v", name, v))
		}
	}
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	add(EnvQPS, env.QPS != nil, deref(env.QPS))
	add(EnvConnections, env.Connections != nil, deref(env.Connections))
	if env.Duration != nil {
		add(EnvDuration, true, *env.Duration)
	}
	add(EnvPayloadSize, env.PayloadSize != nil, deref(env.PayloadSize))
	if env.Payload != nil {
		add(EnvPayload, true, fmt.Sprintf("<%d bytes>", len(*env.Payload)))
	}
	add(EnvTesterReplicas, env.TesterReplicas != nil, deref(env.TesterReplicas))
	add(EnvHostReplicas, env.HostReplicas != nil, deref(env.HostReplicas))
	if env.AwaitTimeout != nil {
		add(EnvAwaitTimeout, true, *env.AwaitTimeout)
	}
	add(EnvWarmupQPS, env.WarmupQPS != nil, deref(env.WarmupQPS))
	if env.WarmupDuration != nil {
		add(EnvWarmupDuration, true, *env.WarmupDuration)
	}
	return r
}

// String is the summary's line: "load: the scenario's own" or "load: overridden by ...", and
// the number of testers when more than one shared the load.
func (r LoadRecord) String() string {
	testers := ""
	if r.Testers > 1 {
		testers = fmt.Sprintf("; split over %d testers, each with its own daprd, their histograms merged", r.Testers)
	}
	if len(r.Overrides) == 0 {
		return "load: the scenario's own (Dapr's, for a test that mirrors one of Dapr's)" + testers
	}
	return "load: overridden by " + strings.Join(r.Overrides, ", ") + ": not Dapr's load" + testers
}
