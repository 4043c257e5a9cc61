package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The commit is read from a plain checkout, a linked worktree (whose .git is a file) and a
// packed ref, as git itself reports it.
func TestCommitAt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git to make the repositories with")
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q", "-b", "main")
	git(repo, "commit", "-q", "--allow-empty", "-m", "one")
	want := git(repo, "rev-parse", "HEAD")
	if got := commitAt(repo); got != want {
		t.Errorf("checkout: %q, want %q", got, want)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	git(repo, "worktree", "add", "-q", "-b", "side", wt)
	git(wt, "commit", "-q", "--allow-empty", "-m", "two")
	if got, want := commitAt(wt), git(wt, "rev-parse", "HEAD"); got != want {
		t.Errorf("linked worktree: %q, want %q", got, want)
	}
	git(repo, "pack-refs", "--all")
	if got := commitAt(repo); got != want {
		t.Errorf("packed ref: %q, want %q", got, want)
	}
	if got := commitAt(t.TempDir()); got != "" {
		t.Errorf("no repository: %q, want none", got)
	}
}
