package report_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

func TestChangedModulesAreSaid(t *testing.T) {
	assert.Empty(t, report.ChangedModulesText(nil))
	assert.Empty(t, report.ChangedModulesText(&perf.DaprdBuild{}))
	b := &perf.DaprdBuild{ChangedModules: []perf.ModuleChange{
		{Path: "github.com/dapr/durabletask-go", Required: "v0.12.4", Built: "v0.12.1"},
		{Path: "github.com/diagridio/go-etcd-cron", Required: "v0.12.5", Built: "v0.12.6"},
	}}
	assert.Equal(t, "github.com/dapr/durabletask-go v0.12.4 → v0.12.1, github.com/diagridio/go-etcd-cron v0.12.5 → v0.12.6", report.ChangedModulesText(b))

	r := &perf.Report{Test: "service_invocation", Transport: "http", Environment: perf.Environment{DaprVersion: "v1.18.3", Daprd: b}}
	line := strings.SplitN(report.Summary(r), "\n", 3)[1]
	assert.Equal(t, "daprd v1.18.3 was built with dependencies at other versions than its go.mod requires (the module proxy refuses those): "+report.ChangedModulesText(b), line)
}

// The app's own work per request (Report.AppWork) is a line of the summary, after the load.
func TestAppWorkIsSaid(t *testing.T) {
	r := &perf.Report{Test: "workflow_payload_10000_postgresql", Transport: "http"}
	assert.NotContains(t, report.Summary(r), "the app's own work")
	r.AppWork = "0.5 s between starting a workflow and waiting for it"
	assert.Contains(t, report.Summary(r), "\nthe app's own work: 0.5 s between starting a workflow and waiting for it\n")
}
