package perf

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf/growth"
)

// ReportSchema is the version of the result-file format a run writes; readers take every
// version from MinReportSchema to it and reject others. Schema 2 writes every duration in
// seconds under its name with "Seconds" after it ("durationSeconds": 60; package
// secondsjson); schema 1 wrote integer nanoseconds under the bare name ("duration":
// 60000000000), which still reads (CHANGELOG.md, "Result file").
const ReportSchema = 2

// MinReportSchema is the oldest result-file version readers take.
const MinReportSchema = 1

// Report is the result file of one scenario run: everything measured, written before any push
// or chart step. Latencies are in seconds, sizes in bytes, CPU in cores unless a field name
// says otherwise.
type Report struct {
	Schema int `json:"schema"`
	// Test is the scenario name, e.g. "service_invocation"; Transport is http or grpc.
	Test      string   `json:"test"`
	Transport Protocol `json:"transport"`
	// Plan is the kind of the scenario's plan (Plan.Kind): one of the Kind* constants, such as
	// "overhead" or "growth".
	Plan string `json:"plan,omitempty"`
	// Component is the scenario's Scenario.Component: the component it measures, Dapr's push
	// label ("inmemory", "redis", "postgresql" for the state scenarios); "" for none.
	Component string `json:"component,omitempty"`
	// RateIsMeasured is the scenario's Scenario.RateIsMeasured: a phase that missed its rate or
	// fell behind its schedule is a warning, not invalid.
	RateIsMeasured bool `json:"rateIsMeasured,omitempty"`
	// AppWork is the scenario's Scenario.AppWork: what the target app does per request beyond
	// answering it ("" when nothing).
	AppWork string `json:"appWork,omitempty"`
	// RunID tells runs apart (the run folder, the pushed run_id label): "20060102T150405Z-4f2a"
	// (Go's reference time) when generated.
	RunID       string      `json:"runID"`
	Environment Environment `json:"environment"`
	// Params are the main phase's; WarmupParams the warmup's (its results are discarded).
	Params       Params `json:"params"`
	WarmupParams Params `json:"warmupParams"`
	// Rounds are the interleaved baseline/main pairs, in order.
	Rounds []Round `json:"rounds"`
	// Loads are the measured loads of a plan without baseline/main rounds (the growth plan's
	// rounds, named "<variant> round <k>"; its warmups are discarded), in order. They give such
	// a run its validity and its qps.ratio.
	Loads []NamedLoad `json:"loads,omitempty"`
	// Curve is a cost-curve run's points and searches (the curve plan), their loads in Loads.
	Curve *CurveReport `json:"curve,omitempty"`
	// Overhead per percentile and for the mean, over the rounds, on service time: the figure
	// Dapr's suite reports and the thresholds gate.
	Overhead []Overhead `json:"overhead"`
	// ResponseOverhead is the same on response time (timed from each request's intended
	// start); empty when a phase has no response time.
	ResponseOverhead []Overhead `json:"responseOverhead,omitempty"`
	// Figures are derived once from the measurements (report.DeriveFigures): the summary, the push
	// and the charts render them.
	Figures *Figures `json:"figures,omitempty"`
	// Resources summarises each process over the main phases.
	Resources []ResourceSummary `json:"resources"`
	// Profiles are the sidecars' pprof profiles read during one measured load, with
	// DAPR_PERF_PROFILES=on (SidecarProfiles).
	Profiles []SidecarProfiles `json:"profiles,omitempty"`
	// Idle are the resource series of the idle window after the last main phase.
	Idle []Series `json:"idle,omitempty"`
	// Exits lists unexpected process exits and restarts.
	Exits    []Exit   `json:"exits"`
	Validity Validity `json:"validity"`
	// Warnings name what a reader must know to trust the figures without making the run
	// invalid: coordinated omission (response-time p99 above CoordinatedOmissionFactor x the
	// service-time p99) and connection churn (more TCP connections than configured).
	Warnings []string  `json:"warnings,omitempty"`
	Verdicts []Verdict `json:"verdicts"`
	// Pass is true when the run is valid and every verdict that is not WarnOnly passed.
	Pass bool `json:"pass"`
	// Growth is set by the growth plan (GrowthPlan).
	Growth *growth.Report `json:"growth,omitempty"`
	// Delivery is set by the delivery plan (DeliveryPlan): messages sent, received, lost and
	// duplicated, and the delivery latency.
	Delivery *DeliveryReport `json:"delivery,omitempty"`
	// Jobs is set by the jobs trigger plan (JobTriggerPlan): jobs scheduled, fired, never
	// fired and fired twice, and the trigger lag.
	Jobs *JobsReport `json:"jobs,omitempty"`
	// Reminders is set by the reminder plan (ReminderPlan): the trigger phase's reminders,
	// fires, trigger rate and fire lag.
	Reminders *ReminderReport `json:"reminders,omitempty"`
	// Preflight is set when the load preflight chose the main phase's QPS (EnvPreflight).
	Preflight *Preflight `json:"preflight,omitempty"`
	// Load says whose load ran: the scenario's own (Dapr's, where the scenario mirrors one of
	// Dapr's tests), or one the load variables changed (LoadOf). Nil in files written before it.
	Load *LoadRecord `json:"load,omitempty"`
	// Faults is set by the fault plan (FaultPlan): where and what it injected.
	Faults *FaultReport `json:"faults,omitempty"`

	// The fields below are the run's record (package runner writes them; ab.go).

	// Command is how the run was started.
	Command *Command `json:"command,omitempty"`
	// Incomplete is set when the run ended before its last phase (an interrupt, a failed load,
	// a test stopped by a fatal error or a timeout); IncompleteReason says why and after which
	// phase. An incomplete run never passes.
	Incomplete       bool   `json:"incomplete,omitempty"`
	IncompleteReason string `json:"incompleteReason,omitempty"`
	// InterruptedBy names the signal that stopped the run ("SIGINT"), when one did
	// (Interrupted); the run is then also incomplete. Its outcome is OutcomeInterrupted.
	InterruptedBy string `json:"interruptedBy,omitempty"`
	// PartialRound holds the completed phases of a round the run did not finish (its baseline);
	// Rounds has complete rounds only.
	PartialRound *Round `json:"partialRound,omitempty"`
	// InfraErrors are failures of the platform, the tester or the push, one line each.
	InfraErrors []string `json:"infraErrors,omitempty"`
	// Actors are the counters of each actor host (apps of kind ActorApp), read after the
	// plan's phases: activations, double activations, timer fires and their lag.
	Actors []ActorStats `json:"actors,omitempty"`
	// AB is set when a second daprd build ran beside the first (DAPR_PERF_DAPRD_B): Rounds,
	// Overhead and Resources are then build A's.
	AB *ABReport `json:"ab,omitempty"`
}

// Round is one interleaved pair of load runs: baseline (tester -> app) then main (tester ->
// its sidecar -> the app's sidecar -> app), with the resources sampled during main.
type Round struct {
	Baseline  Result   `json:"baseline"`
	Main      Result   `json:"main"`
	Resources []Series `json:"resources"`
}

// NamedLoad is one measured load of a plan, with its name ("b-unique round 2").
type NamedLoad struct {
	Name string `json:"name"`
	Result
}

// MarshalJSON writes the load as its Result's object with "name" first: the embedded Result's
// own MarshalJSON would otherwise be promoted and drop the name.
func (n NamedLoad) MarshalJSON() ([]byte, error) {
	res, err := json.Marshal(n.Result)
	if err != nil {
		return nil, err
	}
	name, err := json.Marshal(struct {
		Name string `json:"name"`
	}{n.Name})
	if err != nil {
		return nil, err
	}
	if len(res) <= 2 { // "{}"
		return name, nil
	}
	return append(append(name[:len(name)-1:len(name)-1], ','), res[1:]...), nil
}

// UnmarshalJSON reads the name and the Result from one object.
func (n *NamedLoad) UnmarshalJSON(b []byte) error {
	var name struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	n.Name = name.Name
	return json.Unmarshal(b, &n.Result)
}

// Environment says where and with what a report was made; stamped, never typed by hand.
type Environment struct {
	// DaprVersion is what daprd --version printed, e.g. "1.17.5".
	DaprVersion string `json:"daprVersion"`
	// Daprd is how the daprd binary the sidecars ran was built, read from the binary itself;
	// nil when the platform does not name its binary (kubernetes) and in older result files.
	Daprd *DaprdBuild `json:"daprd,omitempty"`
	// Platform is "local" or "kubernetes".
	Platform string `json:"platform"`
	// CPUModel, CPUs, HostMemoryBytes and KernelRelease describe the machine the test process
	// ran on (on kubernetes too, where the nodes may be other machines): the first processor's
	// model name and the logical CPUs (/proc/cpuinfo, runtime.NumCPU), MemTotal in bytes
	// (/proc/meminfo) and the kernel release (/proc/sys/kernel/osrelease, as uname -r prints
	// it). Together they are the machine fingerprint (Fingerprint). HostMemoryBytes is 0 and
	// KernelRelease "" in files written before they existed.
	CPUModel        string `json:"cpuModel"`
	CPUs            int    `json:"cpus"`
	HostMemoryBytes uint64 `json:"hostMemoryBytes,omitempty"`
	KernelRelease   string `json:"kernelRelease,omitempty"`
	// GoVersion is the Go toolchain of the test process.
	GoVersion string `json:"goVersion"`
	// DaprperfCommit is the commit of this repository (daprperf's own, not daprd's: that is
	// Daprd.Commit) checked out when the run started; "" when unknown. Files written before
	// the name held it as gitCommit, which UnmarshalJSON still reads.
	DaprperfCommit string    `json:"daprperfCommit"`
	StartTime      time.Time `json:"startTime"`
	// Backends are the stores and brokers the platform started for the run's components,
	// with the versions they reported (empty when the scenario uses none).
	Backends []BackendInfo `json:"backends,omitempty"`
	// Nodes maps each process to the node it ran on, where the platform places processes on
	// nodes (kubernetes, perf.Placed); empty on the local platform, where all share one machine.
	Nodes map[string]string `json:"nodes,omitempty"`
	// MTLS says whether the sidecars talked over mTLS, with certificates from Dapr's sentry
	// (perf.Secured: the local platform's DAPR_PERF_MTLS, the kubernetes injector's
	// --enable-mtls); nil when the platform does not say, and in older result files.
	MTLS *bool `json:"mtls,omitempty"`
}

// UnmarshalJSON reads an environment, also one written before DaprperfCommit was named,
// whose commit is gitCommit (CHANGELOG.md, "Result file").
func (e *Environment) UnmarshalJSON(b []byte) error {
	type plain Environment
	var v struct {
		plain
		LegacyGitCommit string `json:"gitCommit"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = Environment(v.plain)
	if e.DaprperfCommit == "" {
		e.DaprperfCommit = v.LegacyGitCommit
	}
	return nil
}

// Fingerprint returns the machine fingerprint of e: its CPU model, logical CPUs, host memory
// and kernel release, and their hash (MachineFingerprint.Hash).
func (e Environment) Fingerprint() MachineFingerprint {
	f := MachineFingerprint{CPUModel: e.CPUModel, CPUs: e.CPUs, MemoryBytes: e.HostMemoryBytes, KernelRelease: e.KernelRelease}
	f.Hash = f.hash()
	return f
}

// MachineFingerprint names the machine a run was measured on, by the four facts that change
// what a figure means: two runs compare as the same machine only when all four are equal.
type MachineFingerprint struct {
	CPUModel string `json:"cpuModel"`
	CPUs     int    `json:"cpus"`
	// MemoryBytes is the host's MemTotal, bytes; 0 when unknown (older result files).
	MemoryBytes uint64 `json:"memoryBytes"`
	// KernelRelease is uname -r's; "" when unknown (older result files).
	KernelRelease string `json:"kernelRelease"`
	// Hash is the first 12 hex digits of the SHA-256 of the four fields above (in this order,
	// each followed by a NUL byte, numbers in decimal): short enough for a table, stable
	// across runs and Go versions.
	Hash string `json:"hash"`
}

// Complete says whether every field of f is known; a fingerprint of an older result file,
// without memory and kernel, is not, and its hash differs from the same machine's complete one.
func (f MachineFingerprint) Complete() bool {
	return f.CPUModel != "" && f.CPUs > 0 && f.MemoryBytes > 0 && f.KernelRelease != ""
}

func (f MachineFingerprint) hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00", f.CPUModel, f.CPUs, f.MemoryBytes, f.KernelRelease)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// DaprdBuild is how a daprd binary was built, from the build information the Go toolchain
// stores in every binary (what `go version -m <daprd>` prints). scripts/build-daprd.sh builds
// daprd from the module proxy, without VCS information, so such a binary records the module
// version (a release tag) and the content hash of the module, not a commit: Commit is then the
// commit the tag named when the module proxy served it, from the Origin the go command keeps
// in its module cache, when that is still there.
type DaprdBuild struct {
	// Path is the binary's path on the machine that ran it.
	Path string `json:"path"`
	// MainPackage is the package built ("github.com/dapr/dapr/cmd/daprd").
	MainPackage string `json:"mainPackage"`
	// Module and ModuleVersion are the module that holds MainPackage and its version: a tag
	// ("v1.17.5") for a build from the module proxy, "(devel)" for one from a checkout.
	Module        string `json:"module"`
	ModuleVersion string `json:"moduleVersion"`
	// ModuleSum is the go.sum hash of the module's content ("h1:..."); empty for a checkout.
	ModuleSum string `json:"moduleSum,omitempty"`
	// GoVersion is the toolchain that built the binary ("go1.26.8").
	GoVersion string `json:"goVersion"`
	// Settings are the build settings recorded in the binary, "key=value" in its order
	// ("-tags=stablecomponents", "-trimpath=true", "CGO_ENABLED=0", "GOARCH=amd64", ...).
	Settings []string `json:"settings,omitempty"`
	// Commit is daprd's source commit where it is knowable, and CommitSource says how it is
	// known: "vcs.revision" (the binary was built from a checkout, and Go stamped it),
	// "module cache origin of v1.17.5" (the commit the tag named when the module proxy served
	// it, read from <GOMODCACHE>/cache/download/<module>/@v/<version>.info). Both are empty
	// when it is not knowable.
	Commit       string `json:"commit,omitempty"`
	CommitSource string `json:"commitSource,omitempty"`
	// VCSModified is the binary's vcs.modified: a checkout with uncommitted changes.
	VCSModified bool `json:"vcsModified,omitempty"`
	// ChangedModules are the dependencies built at another version than Module's go.mod
	// requires, by path: raised by a pin or lowered by a replace directive where the module
	// proxy refuses the required one (scripts/build-daprd.sh), so that a result says how far
	// its daprd is from the release. Read from the go.mod the module cache holds for
	// Module@ModuleVersion; empty when none changed or that go.mod is not there.
	ChangedModules []ModuleChange `json:"changedModules,omitempty"`
}

// ModuleChange is one dependency built at Built where daprd's go.mod requires Required: each a
// version such as "v0.12.4", or a module and version where one module is put in the place of
// another ("github.com/twmb/pulsar-client-go v0.20.1-0.20260624144353-90eefc81f70a").
type ModuleChange struct {
	Path     string `json:"path"`
	Required string `json:"required"`
	Built    string `json:"built"`
}

// ResourceSummary is one process over all main phases, in base units.
type ResourceSummary struct {
	Process string `json:"process"`
	Role    string `json:"role"`
	// MeanCPUCores is the mean CPU under load over every main-phase sample but each phase's
	// first: 1 = one core busy.
	MeanCPUCores float64 `json:"meanCPUCores"`
	// PeakRSSBytes is the largest RSS sampled.
	PeakRSSBytes uint64 `json:"peakRSSBytes"`
	// RSSSlopeBytesPerSecond is the least-squares RSS growth over the last main phase, with R².
	RSSSlopeBytesPerSecond float64 `json:"rssSlopeBytesPerSecond"`
	RSSSlopeR2             float64 `json:"rssSlopeR2"`
	// Readings is how many usage readings of this process the main phases had (samples with
	// an RSS above 0). 0 means the platform reported none, and MeanCPUCores and PeakRSSBytes
	// are then unknown, not zero: on Kubernetes metrics-server has no reading of a new pod
	// for its first 15 s to 1 min, longer than a short phase (NoReadings).
	Readings int `json:"readings"`
	// Growth classifies RSS over the last main phase (requests estimated from the achieved
	// QPS) and the idle window after it, against growth.MinThresholdKiB; empty when the main
	// phase had fewer than 20 samples.
	Growth growth.Classification `json:"growth"`
	// GrowthNote says why Growth is empty when a plan did not classify it at all (its loads
	// too short, too sparse or not counted in requests: report.ResourcesWithoutGrowth); "" otherwise.
	GrowthNote string `json:"growthNote,omitempty"`
}

// NoReadings says whether s has no usage reading: a summary with readings 0 and no RSS. A
// result file written before Readings existed has RSS, and reads as having readings.
func (s ResourceSummary) NoReadings() bool { return s.Readings == 0 && s.PeakRSSBytes == 0 }

// UnmarshalJSON reads a summary, also one written before the base units, which held
// meanCPUMillicores and peakRSSMiB (CHANGELOG.md, "Result file").
func (s *ResourceSummary) UnmarshalJSON(b []byte) error {
	type plain ResourceSummary
	var v struct {
		plain
		LegacyCPUMillicores *float64 `json:"meanCPUMillicores"`
		LegacyPeakRSSMiB    *float64 `json:"peakRSSMiB"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = ResourceSummary(v.plain)
	if v.LegacyCPUMillicores != nil && s.MeanCPUCores == 0 {
		s.MeanCPUCores = *v.LegacyCPUMillicores / 1000
	}
	if v.LegacyPeakRSSMiB != nil && s.PeakRSSBytes == 0 {
		s.PeakRSSBytes = uint64(math.Round(*v.LegacyPeakRSSMiB * (1 << 20)))
	}
	return nil
}

// Validity says whether the load kept to its schedule; an invalid run never passes.
type Validity struct {
	Valid bool `json:"valid"`
	// Reasons name each round and phase that missed, with figures.
	Reasons []string `json:"reasons,omitempty"`
}

// Path returns where a published report goes under root (charts publish):
// <root>/v<dapr version>/<test>/<transport>/result.json. A run writes under its run id
// instead (RunPath).
func (r *Report) Path(root string) string {
	v := r.Environment.DaprVersion
	if v == "" {
		v = "unknown"
	}
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return filepath.Join(root, v, r.Test, string(r.Transport), "result.json")
}

// WriteReport writes r as indented JSON to r.Path(root), atomically (a temp file renamed into
// place), and returns the path. It replaces a file already there: it is for publishing and
// fixtures; a run writes its own file with runner.createRunFile, which never replaces another.
func WriteReport(root string, r *Report) (string, error) {
	path := r.Path(root)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("perf: write report: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("perf: write report %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("perf: write report: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("perf: write report: %w", err)
	}
	return path, nil
}

// MainResults returns the main phase of every round, in order.
func (r *Report) MainResults() []Result {
	out := make([]Result, len(r.Rounds))
	for i, rd := range r.Rounds {
		out[i] = rd.Main
	}
	return out
}

// OverheadOf returns the overhead of figure ("p90", "mean").
func (r *Report) OverheadOf(figure string) (Overhead, bool) {
	for _, o := range r.Overhead {
		if o.Figure == figure {
			return o, true
		}
	}
	return Overhead{}, false
}
