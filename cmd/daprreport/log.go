package main

import (
	"encoding/json"
	"fmt"
)

// logText is what one Dapr run prints during its test, as its output events carry it: its
// resource and restart lines (usageLines), then its summary as utils.LogPerfTestSummary prints
// it, "Test summary `<json>`\n" (tests/perf/utils/helpers.go), the JSON indented as the test's
// load tool writes it: fortio's -json by two spaces, Dapr's k6 tests by one
// (json.MarshalIndent(sm, "", " ")). No summary for a test that logs none.
func logText(run daprRun) (string, error) {
	var text string
	for _, l := range usageLines(run.Test, run.Source) {
		text += l
	}
	if run.Sample == nil || run.Test.Suite == suiteNone {
		return text, nil
	}
	var v any
	indent := " "
	switch run.Test.Suite {
	case suiteFortio:
		f, err := fortioSummary(run.Sample)
		if err != nil {
			return "", err
		}
		v, indent = f, "  "
	case suiteK6:
		k, err := k6SummaryOf(run.Sample, passed(run.Source))
		if err != nil {
			return "", err
		}
		v = k
	}
	b, err := json.MarshalIndent(v, "", indent)
	if err != nil {
		return "", fmt.Errorf("summary: %w", err)
	}
	return text + "Test summary `" + string(b) + "`\n", nil
}
