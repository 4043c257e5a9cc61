package perf

// EnvProfiles turns on daprd's profiles under load (Env.Profiles): "on" or "off".
const EnvProfiles = "DAPR_PERF_PROFILES"

// ProfilesFromEnv reports whether a run reads its sidecars' profiles: DAPR_PERF_PROFILES=on.
// Off by default until its cost is measured (docs/method.md#profiles).
func ProfilesFromEnv(env Env) bool { return env.Profiles != nil && *env.Profiles == "on" }

// ProfileCPUWindow bounds the CPU profile of one measured load: the middle of the load, at most
// this long, so that the profile stays small and the load's start and end are left out.
const ProfileCPUWindow = 30

// SidecarProfiles are the pprof profiles of one daprd read during one measured load of a run
// (DAPR_PERF_PROFILES=on), through its profiling port (--enable-profiling; on Kubernetes the
// dapr.io/enable-profiling annotation): a CPU profile over the load's middle, the heap at the
// load's start and end, and the goroutines at its end. The files are gzipped pprof protobuf
// (go tool pprof reads them), beside the result file.
type SidecarProfiles struct {
	// Process is the daprd's process name ("<app>-daprd") and Role its role.
	Process string `json:"process"`
	Role    string `json:"role,omitempty"`
	// During names the measured load, as the resource sampling names it: "round 1", "delivery".
	During string `json:"during"`
	// CPUWindowSeconds is the CPU profile's length; CPUSampleSeconds the CPU time it sampled.
	CPUWindowSeconds float64 `json:"cpuWindowSeconds"`
	CPUSampleSeconds float64 `json:"cpuSampleSeconds"`
	// Files are the profiles' paths relative to the result file's folder, by kind: "cpu",
	// "heap-start", "heap-end", "goroutine".
	Files map[string]string `json:"files,omitempty"`
	// TopCPU are the functions with the most CPU (flat: in the function itself; cumulative:
	// with what it calls), by flat share, at most ProfileTop of them.
	TopCPU []FunctionShare `json:"topCPU,omitempty"`
	// TopAlloc are the functions that allocated the most bytes during the load (the heap
	// profiles' alloc_space, end minus start), by flat share.
	TopAlloc []FunctionShare `json:"topAlloc,omitempty"`
	// AllocBytes is what the daprd allocated during the load (alloc_space, end minus start),
	// and InUseGrowthBytes how its heap in use changed (inuse_space, end minus start).
	AllocBytes       int64 `json:"allocBytes"`
	InUseGrowthBytes int64 `json:"inUseGrowthBytes"`
	// Goroutines is how many goroutines it had at the load's end.
	Goroutines int64 `json:"goroutines"`
	// Errors are the profiles that could not be read, each with why; what was read is kept.
	Errors []string `json:"errors,omitempty"`
}

// ProfileTop is how many functions SidecarProfiles keeps per list.
const ProfileTop = 15

// FunctionShare is one function's share of a profile's total: Flat in the function itself,
// Cum with every function below it on the stack (each sample counted once per function), both
// fractions in [0, 1]; Value is its flat value in the profile's unit (nanoseconds of CPU,
// bytes).
type FunctionShare struct {
	Function string  `json:"function"`
	Flat     float64 `json:"flat"`
	Cum      float64 `json:"cum"`
	Value    int64   `json:"value"`
}
