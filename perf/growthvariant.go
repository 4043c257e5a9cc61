package perf

// EnvGrowthThreshold overrides the growth threshold, in KiB per 1,000 requests (> 0).
const EnvGrowthThreshold = "DAPR_PERF_GROWTH_THRESHOLD_KIB"

// GrowthVariant is one deployment of a GrowthPlan.
type GrowthVariant struct {
	// Name is a short label, e.g. "b-unique".
	Name string
	// Description says what differs, for the table.
	Description string
	Apps        []App
	// Tester is the load generator's app name; Route is where its load goes (through its
	// sidecar); UniquePath appends a fresh "/<uuid>" to the method of every request.
	Tester     string
	Route      Route
	UniquePath bool
	// Control marks the control variant, whose noise sets the growth threshold and which must
	// be flat (the fixed method); at most one variant.
	Control bool
}

// Env variables of the growth plan (read by LoadEnv).
const (
	EnvGrowthRounds   = "DAPR_PERF_GROWTH_ROUNDS"   // K, 2 to 20
	EnvGrowthRequests = "DAPR_PERF_GROWTH_REQUESTS" // M, 100 to 1,000,000, a multiple of the connections
	EnvGrowthIdle     = "DAPR_PERF_GROWTH_IDLE"     // a Go duration, 0s to 1h
)
