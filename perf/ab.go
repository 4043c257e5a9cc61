package perf

import (
	"math"
)

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

// Build names one daprd build of an A/B run.
type Build struct {
	// Daprd is the binary's path ("" when the platform does not say).
	Daprd string `json:"daprd,omitempty"`
	// Version is what the binary reports ("1.17.5").
	Version string `json:"version"`
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
}

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
	// Median is the median of PerRound; Low and High bound it with an order-statistics interval
	// of confidence Confidence (the actual one, at least report.DefaultConfidence when HasInterval;
	// otherwise the widest interval the rounds give, [min, max], with its lower confidence).
	Median      float64 `json:"median"`
	Low         float64 `json:"low"`
	High        float64 `json:"high"`
	Confidence  float64 `json:"confidence"`
	HasInterval bool    `json:"hasInterval"`
	// Change is Median / |A|: the relative change of B against A.
	Change float64 `json:"change"`
	// Verdict is one of the Verdict* words.
	Verdict string `json:"verdict"`
}

// PairedVerdict says what the per-round differences B − A of a figure show: too few rounds
// when no interval at the confidence exists; within noise when the interval contains 0 (or the
// change is below minChange, relative to a); else a regression or an improvement, by direction.
func PairedVerdict(d Difference, minChange float64) string {
	switch {
	case !d.HasInterval:
		return VerdictTooFew
	case d.Low <= 0 && d.High >= 0:
		return VerdictWithinNoise
	case math.Abs(d.Change) < minChange:
		return VerdictWithinNoise
	case (d.Median > 0) == d.HigherIsBetter:
		return VerdictImprovement
	default:
		return VerdictRegression
	}
}

// Comparison verdicts, shared by A/B runs and charts compare.
const (
	VerdictRegression  = "regression"
	VerdictImprovement = "improvement"
	VerdictWithinNoise = "within noise"
	VerdictTooFew      = "too few rounds to tell"
)
