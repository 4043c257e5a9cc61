package perf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/configuration.md's variable table is EnvTableMarkdown, row for row: a variable added to
// Env, or a changed range or default, fails here until that page says the same.
func TestREADMEVariableTableIsEnv(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "docs", "configuration.md"))
	require.NoError(t, err)
	doc := string(b)
	_, after, ok := strings.Cut(doc, "## Environment variables\n")
	require.True(t, ok, "docs/configuration.md has no '## Environment variables' section")
	var rows []string
	for _, line := range strings.Split(strings.TrimLeft(after, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows = append(rows, line)
	}
	want := strings.Split(strings.TrimSuffix(EnvTableMarkdown(), "\n"), "\n")
	assert.Equal(t, want, rows, "docs/configuration.md's variable table differs from perf.Env; it should read:\n%s", EnvTableMarkdown())
	for _, v := range EnvVars() {
		assert.NotEmpty(t, v.Accepts, v.Name)
		assert.NotEmpty(t, v.Default, v.Name)
		assert.NotEmpty(t, v.Desc, v.Name)
	}
}

// A DAPR_PERF_ variable daprperf does not read is named, with the nearest known name for a
// typo; known variables and other prefixes are left alone.
func TestUnknownEnv(t *testing.T) {
	got := UnknownEnv([]string{"DAPR_PERF_QSP=100", "DAPR_PERF_QPS=100", "DAPR_PERF_SOMETHING_ELSE=1", "DAPRPERF_CHILD=1", "PATH=/bin", "DAPR_TEST_DURATION=10s"})
	want := []string{
		"DAPR_PERF_QSP is set, but daprperf reads no variable of that name: ignored (did you mean DAPR_PERF_QPS?)",
		"DAPR_PERF_SOMETHING_ELSE is set, but daprperf reads no variable of that name: ignored",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("UnknownEnv = %q, want %q", got, want)
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance(kitten, sitting) = %d, want 3", d)
	}
}
