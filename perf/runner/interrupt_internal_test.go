package runner

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// TestInterruptMarksTheSignal: the interrupt hook a platform's signal handler calls rewrites an
// open result file with the phases so far, marked incomplete and interruptedBy the signal, so
// its outcome is interrupted (exit code 130); a second call (another deployment of the run)
// changes nothing, and a file whose final write was done is left alone.
func TestInterruptMarksTheSignal(t *testing.T) {
	root := t.TempDir()
	rep := &perf.Report{Schema: perf.ReportSchema, Test: "interrupt", Transport: perf.HTTP, RunID: "interrupt-1", Pass: true,
		Validity: perf.Validity{Valid: true}}
	open, err := createRunFile(root, rep)
	require.NoError(t, err)
	require.NoError(t, open.checkpoint(rep, "round 1 baseline"))
	doneRep := *rep
	doneRep.Test = "finished"
	done, err := createRunFile(root, &doneRep)
	require.NoError(t, err)
	require.NoError(t, done.finish(&doneRep))

	open.interrupt(syscall.SIGINT)
	open.interrupt(syscall.SIGTERM)
	done.interrupt(syscall.SIGINT)

	got, err := report.ReadReport(open.Path())
	require.NoError(t, err)
	assert.Equal(t, "SIGINT", got.InterruptedBy, "the first signal is the one kept")
	assert.True(t, got.Incomplete)
	assert.Equal(t, "interrupted by SIGINT after round 1 baseline", got.IncompleteReason)
	outcome, why := got.Outcome()
	assert.Equal(t, perf.OutcomeInterrupted, outcome, why)
	require.NoError(t, open.finish(rep)) // a later final write keeps the mark
	got, err = report.ReadReport(open.Path())
	require.NoError(t, err)
	assert.Equal(t, "SIGINT", got.InterruptedBy)

	fin, err := report.ReadReport(done.Path())
	require.NoError(t, err)
	assert.Empty(t, fin.InterruptedBy, "a finished file is not marked")
}
