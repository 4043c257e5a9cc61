package perf

// EnvProfiles turns on daprd's profiles under load (Env.Profiles): "on" or "off".
const EnvProfiles = "DAPR_PERF_PROFILES"

// ProfilesFromEnv reports whether a run reads its sidecars' profiles: DAPR_PERF_PROFILES=on
// or b-every-round. Off by default until its cost is measured (docs/method.md#profiles).
func ProfilesFromEnv(env Env) bool {
	return env.Profiles != nil && (*env.Profiles == "on" || *env.Profiles == ProfilesBEveryRound)
}

// ProfilesBEveryRound is DAPR_PERF_PROFILES's mode for measuring what profiling costs: in an
// A/B run of one daprd against itself, build B's sidecars are profiled in every round and
// build A's never, so that the A/B verdict on B − A is the profiles' cost.
const ProfilesBEveryRound = "b-every-round"

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

// ProfileFileKinds are the kinds of SidecarProfiles.Files, in the order a page lists them.
var ProfileFileKinds = []string{"cpu", "heap-start", "heap-end", "goroutine"}

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

// OfBuild is how a measured load of an A/B run names its build: "round 1" + OfBuild + "B".
const OfBuild = " of build "

// ProfileDiff is how one role's daprd spent its CPU or its allocations differently in build B
// than in build A, from their profiles in one A/B run (SidecarProfiles of each build): the
// functions whose flat share changed the most.
type ProfileDiff struct {
	// Role is the sidecar's role; Kind "cpu" (CPU time) or "alloc" (bytes allocated during the
	// load).
	Role string `json:"role"`
	Kind string `json:"kind"`
	// Functions are the largest changes of flat share, those beyond sampling noise first, each
	// group by the size of the change, at most ProfileTop.
	Functions []FunctionDelta `json:"functions"`
	// SamplesA and SamplesB are how many samples each profile holds (CPU: one per 10 ms of
	// CPU; allocation: about one per 512 KiB allocated, Go's MemProfileRate), which bound
	// what a change of share can tell.
	SamplesA float64 `json:"samplesA"`
	SamplesB float64 `json:"samplesB"`
}

// FunctionDelta is one function's flat share of a profile's total in build A and in build B
// (fractions in [0, 1]), and B − A. Beyond is set when |B − A| exceeds twice its standard
// error over the profiles' sample counts nA and nB, as for two proportions with Agresti and
// Caffo's adjustment (each share taken as (x+1)/(n+2), so that a share of 0 in a small profile
// is not read as exact); samples of one process are not independent, so this is a floor on the
// noise, not a test.
type FunctionDelta struct {
	Function string  `json:"function"`
	A        float64 `json:"a"`
	B        float64 `json:"b"`
	Delta    float64 `json:"delta"`
	Beyond   bool    `json:"beyondNoise"`
}
