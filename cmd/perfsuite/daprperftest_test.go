package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// make perf and make perf-plan take Dapr's DAPR_PERF_TEST: Dapr's package names, its
// configuration as our four configuration_* packages; an unknown name, or PERF_PACKAGES beside
// it, stops the target naming the variable, and leaves other targets alone.
func TestMakeTakesDaprsPerfTestVariable(t *testing.T) {
	root, err := perf.RepoRoot()
	require.NoError(t, err)
	makeIn := func(args ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), "make", append([]string{"-s", "-C", root}, args...)...)
		// Run as a top-level make, whatever make runs this test (make test): no inherited flags.
		cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "MAKEFLAGS=") || strings.HasPrefix(kv, "MFLAGS=") || strings.HasPrefix(kv, "MAKELEVEL=") || strings.HasPrefix(kv, "DAPR_PERF_TEST=") || strings.HasPrefix(kv, "PERF_PACKAGES=")
		})
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := makeIn("-n", "perf-plan", "DAPR_PERF_TEST=configuration actor_activation")
	require.NoError(t, err, out)
	assert.Contains(t, out, "./scripts/perf.sh ./tests/configuration_get_grpc ./tests/configuration_get_http ./tests/configuration_subscribe_grpc ./tests/configuration_subscribe_http ./tests/actor_activation\n")

	out, err = makeIn("perf-plan", "DAPR_PERF_TEST=service_invocation_http nosuch")
	require.Error(t, err, out)
	assert.True(t, strings.HasPrefix(out, "DAPR_PERF_TEST: nosuch: not a scenario package"), out)

	out, err = makeIn("perf", "DAPR_PERF_TEST=jobs", "PERF_PACKAGES=./tests/jobs")
	require.Error(t, err, out)
	assert.Contains(t, out, "DAPR_PERF_TEST and PERF_PACKAGES are both set")

	out, err = makeIn("-n", "lint", "DAPR_PERF_TEST=nosuch")
	assert.NoError(t, err, "another target: %s", out)
}
