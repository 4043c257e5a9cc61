package perf

import (
	"regexp"
)

// Stage is one fixed-rate load of a StagePlan: Samples requests at QPS requests/s (a stage
// lasts Samples/QPS seconds, at least MinDuration), each with a generated payload of
// PayloadBytes bytes. It mirrors one k6 constant-arrival-rate scenario of Dapr's k6 tests.
type Stage struct {
	// Name names the stage in the result, the summary and its gate figure
	// (StageMeanFigure); lowercase letters, digits, '-' and '_', such as "2kb-200ps".
	Name string `json:"name"`
	// QPS is the stage's arrival rate, requests/s, from 1 to MaxQPS.
	QPS int `json:"qps"`
	// Samples is the number of requests the stage sends at its full length, at least 1.
	Samples int `json:"samples"`
	// PayloadBytes is the size of each request's generated payload, 0 to MaxPayloadBytes.
	PayloadBytes int `json:"payloadBytes"`
}

// StageMeanFigure is the gate figure of stage name: its mean service time, seconds
// ("stage.2kb-200ps.mean").
func StageMeanFigure(name string) string { return "stage." + name + ".mean" }

var StageName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
