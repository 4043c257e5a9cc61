package perf

import "time"

// SideBDeployment is implemented by deployments that run a second daprd build beside each
// sidecar.
type SideBDeployment interface {
	// SideB returns the deployment seen through build B's sidecars: the same apps, processes
	// and exits; the sidecar endpoints, usage under the same process names, and DaprVersion
	// are build B's. ok is false when no second build runs.
	SideB() (b Deployment, ok bool)
}

// SideB returns dep's build-B view when dep runs a second daprd build.
func SideB(dep Deployment) (Deployment, bool) {
	if s, ok := dep.(SideBDeployment); ok {
		return s.SideB()
	}
	return nil, false
}

// DaprdPather is implemented by deployments that know the daprd binary they run.
type DaprdPather interface{ DaprdPath() string }

// EnvABDelay slows build B of an A/B run by a known delay (Env.ABDelay; local platform).
const EnvABDelay = "DAPR_PERF_AB_DELAY"

// Slowed is implemented by a build-B view whose sidecars are reached through an injected delay
// (EnvABDelay): InjectedDelay is what every request to them is held for, 0 when none is;
// HeldDelay is how long that hold really lasts on this machine, measured when the proxies
// started (a wait shorter than the machine's sleep resolution lasts that long instead), 0 when
// none is.
type Slowed interface {
	InjectedDelay() time.Duration
	HeldDelay() time.Duration
}

// Build names one daprd build of an A/B run.
type Build struct {
	// Daprd is the binary's path ("" when the platform does not say).
	Daprd string `json:"daprd,omitempty"`
	// Version is what the binary reports ("1.17.5").
	Version string `json:"version"`
	// InjectedDelaySeconds is the delay every request to this build's sidecars was held for
	// (EnvABDelay), seconds: a known slowdown for measuring what a comparison detects. 0 for a
	// build measured as it is.
	InjectedDelaySeconds float64 `json:"injectedDelaySeconds,omitempty"`
	// HeldDelaySeconds is how long a hold of InjectedDelaySeconds really lasted on this machine,
	// seconds: the median of the proxy's own timed waits before the load (local.measureHold). It
	// is larger where sleeps are coarse (about 1.1 ms for any wait under a millisecond on a KVM
	// guest with kvm-clock); 0 when none was injected, or in files written before it.
	HeldDelaySeconds float64 `json:"heldDelaySeconds,omitempty"`
}

// ABReport is the second build's side of an A/B run and its difference from the first.
type ABReport struct {
	A Build `json:"a"`
	B Build `json:"b"`
	// Order is which build ran first in each round: "AB" or "BA".
	Order []string `json:"order"`
	// Rounds are build B's, in order: Baseline is the round's baseline (the same as A's), Main
	// B's sidecar phase, Resources B's processes.
	Rounds []Round `json:"rounds"`
	// PartialRound is B's side of an unfinished round.
	PartialRound *Round `json:"partialRound,omitempty"`
	// Overhead, Resources, Validity and Verdicts are build B's, as the Report's are A's.
	Overhead  []Overhead        `json:"overhead"`
	Resources []ResourceSummary `json:"resources"`
	Validity  Validity          `json:"validity"`
	Verdicts  []Verdict         `json:"verdicts"`
	// Differences are B − A per round, figure by figure.
	Differences []Difference `json:"differences"`
	// Rule is what the differences' verdicts were decided by (absent in files written before
	// the four-way verdict).
	Rule *ChangeRule `json:"rule,omitempty"`
	// Stop says how many rounds ran and why no more did (absent in files written before the
	// adaptive rounds).
	Stop *ABStop `json:"stop,omitempty"`
	// SetAside are the rounds not counted because a measured phase in them fell behind its
	// schedule or missed its rate, in the order they ran; each was run again under its number
	// (EnvABSetAside). Empty when every round kept its schedule.
	SetAside []SetAsideRound `json:"setAside,omitempty"`
	// Profiles are the sidecars' profile differences, B − A (DAPR_PERF_PROFILES=on), from
	// each build's first round.
	Profiles []ProfileDiff `json:"profiles,omitempty"`
}

// SetAsideRound is one round of an A/B run that was set aside: it stopped at its first phase
// that fell behind its schedule or missed its rate (report.PhaseInvalidReasons), and the round
// ran again under the same number and order. Its phases are kept as they ran and enter no
// figure.
type SetAsideRound struct {
	// Round is the number it ran under, from 1; Order which build ran first ("AB" or "BA").
	Round int    `json:"round"`
	Order string `json:"order"`
	// Phase names the phase that fell behind: "baseline", "main of build A" or "main of build B".
	Phase string `json:"phase"`
	// Reasons say how it fell behind, as the validity reasons do.
	Reasons []string `json:"reasons"`
	// Baseline, A and B are the round's phases that ran (B's main is nil when it never ran).
	Baseline *Result `json:"baseline,omitempty"`
	A        *Result `json:"a,omitempty"`
	B        *Result `json:"b,omitempty"`
}

// Phases that a round of an A/B run may be set aside for (SetAsideRound.Phase).
const (
	SetAsideBaseline = "baseline"
	SetAsideMainA    = "main of build A"
	SetAsideMainB    = "main of build B"
)

// ABStop is how the rounds of an A/B run ended. The run starts with the rounds asked for
// (DAPR_PERF_REPEATS) and, while any of Gated is VerdictUndecided, adds interleaved round pairs
// until each is decided or MaxRounds have run (DAPR_PERF_AB_MAX_ROUNDS).
type ABStop struct {
	// Planned is the rounds asked for; MaxRounds the budget; Ran the rounds run to the end.
	Planned   int `json:"planned"`
	MaxRounds int `json:"maxRounds"`
	Ran       int `json:"ran"`
	// Gated names the figures (Difference.Figure) whose verdicts decide when to stop.
	Gated []string `json:"gated"`
	// Reason is one of the ABStop* words.
	Reason string `json:"reason"`
	// Undecided names the gated figures still undecided when the rounds stopped.
	Undecided []string `json:"undecided,omitempty"`
	// SetAside is how many rounds were set aside and run again (ABReport.SetAside), of at most
	// SetAsideLimit (EnvABSetAside; absent in files written before it).
	SetAside      int `json:"setAside,omitempty"`
	SetAsideLimit int `json:"setAsideLimit,omitempty"`
}

// Why the rounds of an A/B run stopped (ABStop.Reason).
const (
	// ABStopDecided: every gated figure had a verdict other than undecided.
	ABStopDecided = "decided"
	// ABStopBudget: MaxRounds ran and a gated figure was still undecided.
	ABStopBudget = "budget"
	// ABStopFailed: a load failed, so no more rounds ran.
	ABStopFailed = "failed"
)

// Difference is one figure compared between two sets of rounds.
type Difference struct {
	// Figure names it: "latency p90", "latency mean", "callee-sidecar CPU", ...
	Figure string `json:"figure"`
	// Unit of every value: "s" (seconds), "cores" or "bytes" (files written before the base
	// units: "mCPU" or "MiB"; CHANGELOG.md, "Result file").
	Unit string `json:"unit"`
	// HigherIsBetter is false for every figure here: latency, CPU and memory.
	HigherIsBetter bool `json:"higherIsBetter,omitempty"`
	// A and B are the medians over rounds of each side.
	A float64 `json:"a"`
	B float64 `json:"b"`
	// PerRound is B − A in each round, in round order (A/B runs only).
	PerRound []float64 `json:"perRound,omitempty"`
	// Median is the estimate of the change B − A: the median of PerRound (paired), or the
	// Hodges–Lehmann shift of B against A (unpaired). Low and High bound it with the interval
	// the regressed/improved decision uses, of actual confidence Confidence (at least
	// ChangeRule.Confidence when HasInterval; otherwise the widest interval the rounds give,
	// [min, max] of PerRound, with its lower confidence).
	Median      float64 `json:"median"`
	Low         float64 `json:"low"`
	High        float64 `json:"high"`
	Confidence  float64 `json:"confidence"`
	HasInterval bool    `json:"hasInterval"`
	// SameLow and SameHigh bound Median with the interval the equivalence decision uses, of
	// actual confidence SameConfidence (at least ChangeRule.SameConfidence when HasSameInterval).
	// Absent in files written before the four-way verdict.
	SameLow         float64 `json:"sameLow,omitempty"`
	SameHigh        float64 `json:"sameHigh,omitempty"`
	SameConfidence  float64 `json:"sameConfidence,omitempty"`
	HasSameInterval bool    `json:"hasSameInterval,omitempty"`
	// Change is Median / |A|: the relative change of B against A.
	Change float64 `json:"change"`
	// Margin is the equivalence margin the verdict used, relative to |A| (0.05: ± 5 %).
	Margin float64 `json:"margin,omitempty"`
	// Verdict is one of VerdictRegressed, VerdictImproved, VerdictSame, VerdictUndecided (files
	// written before them hold the older words; VerdictWord maps them).
	Verdict string `json:"verdict"`
}
