package local

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
)

// fakeRepo makes a directory tree with the daprperf go.mod at its root, an optional
// Makefile, and executables at the given paths relative to it; it returns the root.
func fakeRepo(t *testing.T, makefile string, execs ...string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+perf.ModulePath+"\n\ngo 1.26\n"), 0o644))
	if makefile != "" {
		require.NoError(t, os.WriteFile(filepath.Join(root, "Makefile"), []byte(makefile), 0o644))
	}
	for _, e := range execs {
		p := filepath.Join(root, e)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
	}
	return root
}

// env is a lookupEnv over a map.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestFindDaprdOrder(t *testing.T) {
	const makefile = "GO ?= go\nDAPR_VERSION ?= v1.17.5\n\ndaprd:\n\t./scripts/build-daprd.sh $(DAPR_VERSION)\n"
	root := fakeRepo(t, makefile, ".daprd/v1.17.5/daprd", ".daprd/v1.16.5/daprd", "home/.dapr/bin/daprd")
	sub := filepath.Join(root, "local", "deeper")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	home := filepath.Join(root, "home")

	// A nested module (daprd's build wrapper) is not the repo root.
	nested := filepath.Join(root, ".daprd", "wrapper")
	require.NoError(t, os.MkdirAll(nested, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(nested, "go.mod"), []byte("module wrapper\n"), 0o644))

	for _, tc := range []struct {
		name string
		env  map[string]string
		wd   string
		home string
		want string
	}{
		{"env path wins", map[string]string{EnvDaprd: filepath.Join(home, ".dapr/bin/daprd"), EnvDaprVersion: "v1.16.5"}, sub, home, filepath.Join(home, ".dapr/bin/daprd")},
		{"DAPR_VERSION over the Makefile", map[string]string{EnvDaprVersion: "v1.16.5"}, sub, home, filepath.Join(root, ".daprd/v1.16.5/daprd")},
		{"DAPR_VERSION without v", map[string]string{EnvDaprVersion: "1.16.5"}, sub, home, filepath.Join(root, ".daprd/v1.16.5/daprd")},
		{"Makefile pin", nil, sub, home, filepath.Join(root, ".daprd/v1.17.5/daprd")},
		{"from the nested module", nil, nested, home, filepath.Join(root, ".daprd/v1.17.5/daprd")},
		{"not built: ~/.dapr/bin", map[string]string{EnvDaprVersion: "v9.9.9"}, sub, home, filepath.Join(home, ".dapr/bin/daprd")},
		{"outside the repo: ~/.dapr/bin", nil, t.TempDir(), home, filepath.Join(home, ".dapr/bin/daprd")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findDaprd(env(tc.env), tc.wd, tc.home)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFindDaprdNotFound(t *testing.T) {
	root := fakeRepo(t, "") // no Makefile, nothing built
	_, err := findDaprd(env(nil), root, t.TempDir())
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrDaprdNotFound))
	assert.ErrorContains(t, err, "make daprd")
	assert.ErrorContains(t, err, EnvDaprd)

	_, err = findDaprd(env(map[string]string{EnvDaprVersion: "v1.17.5"}), root, "")
	assert.ErrorContains(t, err, filepath.Join(root, ".daprd/v1.17.5/daprd"), "names where make daprd puts it")
}

func TestFindDaprdEnvNotExecutable(t *testing.T) {
	root := fakeRepo(t, "")
	p := filepath.Join(root, "daprd")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	_, err := findDaprd(env(map[string]string{EnvDaprd: p}), root, "")
	assert.ErrorContains(t, err, EnvDaprd+"="+p)
	assert.ErrorContains(t, err, "not executable")

	_, err = findDaprd(env(map[string]string{EnvDaprd: root}), root, "")
	assert.ErrorContains(t, err, "not a regular file")
}
