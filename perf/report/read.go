package report

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/daprperf/daprperf/perf"
)

// ReadReport reads a result file, rejecting malformed JSON and other schema versions with an
// error that names the file.
func ReadReport(path string) (*perf.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("perf: read report: %w", err)
	}
	var r perf.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("perf: read report %s: malformed: %w", path, err)
	}
	if r.Schema < perf.MinReportSchema || r.Schema > perf.ReportSchema {
		return nil, fmt.Errorf("perf: read report %s: schema %d, this reader knows %d to %d", path, r.Schema, perf.MinReportSchema, perf.ReportSchema)
	}
	if r.Figures == nil { // written before figures were stored: derive them as the runner does
		f := DeriveFigures(&r)
		r.Figures = &f
	} else if r.Figures.Cost == nil { // written before the cost per request was stored
		r.Figures.Cost = ProcessCosts(r.Resources, r.Figures)
	}
	return &r, nil
}
