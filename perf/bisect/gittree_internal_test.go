package bisect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A commit whose tree names a blob the repository lacks (a mirror that keeps its largest files
// absent) is written out without that file; git archive would stop at it.
func TestWriteTreeLeavesOutMissingBlobs(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=daprperf", "-c", "user.email=test@daprperf.invalid"}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "tests", "apps"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "tests", "apps", "binary"), []byte("a large test binary"), 0o755))
	git("add", "-A")
	git("commit", "-q", "-m", "a program and a binary")
	hash := git("rev-parse", "HEAD")
	blob := git("rev-parse", "HEAD:tests/apps/binary")
	require.NoError(t, os.Remove(filepath.Join(repo, ".git", "objects", blob[:2], blob[2:])))
	_, err := exec.Command("git", "-C", repo, "archive", hash).Output()
	require.Error(t, err, "git archive stops at the missing blob")

	dir := t.TempDir()
	left, err := GoBuild{Repo: repo}.writeTree(context.Background(), Commit{Hash: hash}, dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/apps/binary"}, left)
	text, err := os.ReadFile(filepath.Join(dir, "main.go"))
	require.NoError(t, err)
	assert.Equal(t, "package main\n\nfunc main() {}\n", string(text))
	assert.NoFileExists(t, filepath.Join(dir, "tests", "apps", "binary"))
}
