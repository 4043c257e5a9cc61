package perf

// EnvPreflight turns the load preflight on: "ladder" runs it (make perf's default), "off" or
// unset does not. Any other value is an error naming the variable.
const EnvPreflight = "DAPR_PERF_PREFLIGHT"

// QPSLadder are the loads the preflight tries, highest first: Dapr's 1000 QPS, then halves
// down to 100. A scenario's own QPS is tried first when it is not on the ladder.
var QPSLadder = []int{1000, 500, 250, 100}

// Preflight is what the load preflight measured and chose; the report keeps it and every
// report format prints Note.
type Preflight struct {
	// RequestedQPS is the scenario's main-phase target before the preflight.
	RequestedQPS int `json:"requestedQPS"`
	// ChosenQPS is the load the run used: the first step that kept its schedule, or the lowest
	// step when none did.
	ChosenQPS int `json:"chosenQPS"`
	// Ladder are the loads tried or due, highest first.
	Ladder []int `json:"ladder"`
	// LadderNote is Scenario.LadderNote when the ladder starts below RequestedQPS.
	LadderNote string          `json:"ladderNote,omitempty"`
	Steps      []PreflightStep `json:"steps"`
	// StepDowns are the earlier attempts of this run, at the load the preflight chose and the
	// ones below it, that were invalid at full length (runner.runLadder); ChosenQPS is then the
	// load of this attempt. Empty when the first attempt is the result.
	StepDowns []StepDown `json:"stepDowns,omitempty"`
	// Note says in one sentence what was chosen and why, step downs included.
	Note string `json:"note"`
}

// PreflightStep is one short load of the preflight.
type PreflightStep struct {
	QPS       int     `json:"qps"`
	Seconds   float64 `json:"seconds"`
	ActualQPS float64 `json:"actualQPS"`
	// Behind is the share of the schedule skipped or late (Schedule.BehindFraction).
	Behind float64 `json:"behind"`
	Errors int64   `json:"errors"`
	Kept   bool    `json:"kept"`
}
