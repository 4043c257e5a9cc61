package bisect

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// FirstParent lists the commits of the git repository at repo (a work tree or a bare git
// directory) to bisect between good and bad: good itself first, then the commits reachable
// from bad along first parents and not from good, oldest first (git rev-list --first-parent
// --reverse good..bad), bad last. good and bad are anything git rev-parse reads (a tag, a
// hash). An error names git's own message; no commit between them is an error.
func FirstParent(ctx context.Context, repo, good, bad string) ([]Commit, error) {
	goodHash, err := git(ctx, repo, "rev-parse", "--verify", good+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("bisect: the good commit %q: %w", good, err)
	}
	if _, err := git(ctx, repo, "rev-parse", "--verify", bad+"^{commit}"); err != nil {
		return nil, fmt.Errorf("bisect: the bad commit %q: %w", bad, err)
	}
	subject, err := git(ctx, repo, "log", "-1", "--format=%s", goodHash)
	if err != nil {
		return nil, err
	}
	list, err := git(ctx, repo, "rev-list", "--first-parent", "--reverse", "--format=%H %s", "--no-commit-header", good+".."+bad)
	if err != nil {
		return nil, fmt.Errorf("bisect: list %s..%s: %w", good, bad, err)
	}
	commits := []Commit{{Hash: goodHash, Subject: subject}}
	for line := range strings.SplitSeq(list, "\n") {
		if hash, subj, ok := strings.Cut(line, " "); ok {
			commits = append(commits, Commit{Hash: hash, Subject: subj})
		}
	}
	if len(commits) < 2 {
		return nil, fmt.Errorf("bisect: no commit of %s..%s along %s's first parents", good, bad, bad)
	}
	return commits, nil
}

// git runs git in repo and returns its output, trimmed; a failure is an error with git's
// message.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// GoBuild is a Builder of one Go main package of a git repository: it writes the commit's
// tree to a temporary folder (writeTree: the files whose blobs the repository lacks left out),
// replaces the modules in Pins (go mod edit, every version), builds Package with go build into
// Out/<hash>/<Name> and removes the folder. A binary already there is reused. A build that
// fails (go mod edit or go build, for any reason but ctx's end: a compile error, a module the
// proxy refuses) is a *SkipError with the last lines of go's output.
type GoBuild struct {
	// Repo is the git repository (a work tree or a bare git directory).
	Repo string
	// Package is the main package, relative to the module root ("./cmd/daprd").
	Package string
	// Name is the binary's file name ("daprd").
	Name string
	// Out is the folder of the builds, one sub-folder per commit.
	Out string
	// Tags are go build's -tags ("" for none).
	Tags string
	// LDFlags returns go build's -ldflags for a commit (nil for none), e.g. the version
	// stamped into daprd.
	LDFlags func(Commit) string
	// Pins are path@version words: each module, at every version, is replaced by that version
	// before building (go mod edit -replace=path=path@version), for modules whose required
	// version the module proxy refuses.
	Pins []string
	// Env is added to the environment of go mod edit and go build (CGO_ENABLED=0 is always set).
	Env []string
}

// Build builds c, or returns the binary built before.
func (g GoBuild) Build(ctx context.Context, c Commit) (string, error) {
	dir := filepath.Join(g.Out, c.Hash)
	bin := filepath.Join(dir, g.Name)
	if info, err := os.Stat(bin); err == nil && info.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src, err := os.MkdirTemp("", "bisect-src-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	if _, err := g.writeTree(ctx, c, src); err != nil {
		return "", err
	}
	if len(g.Pins) > 0 {
		// A replace of every version, not go get: go get loads the go.mod of the version the
		// commit requires, which is the one the module proxy refuses.
		args := []string{"mod", "edit"}
		for _, pin := range g.Pins {
			path, _, ok := strings.Cut(pin, "@")
			if !ok {
				return "", fmt.Errorf("bisect: BISECT_PINS (-pins) word %q: want a module path@version", pin)
			}
			args = append(args, "-replace="+path+"="+pin)
		}
		if err := g.goCmd(ctx, src, args...); err != nil {
			return "", err
		}
	}
	args := []string{"build", "-trimpath", "-o", bin + ".tmp"}
	if g.Tags != "" {
		args = append(args, "-tags", g.Tags)
	}
	if g.LDFlags != nil {
		args = append(args, "-ldflags", g.LDFlags(c))
	}
	if err := g.goCmd(ctx, src, append(args, g.Package)...); err != nil {
		return "", err
	}
	return bin, os.Rename(bin+".tmp", bin)
}

// writeTree writes c's tree into dir through an index of its own (git read-tree, then git
// checkout-index), leaving out the files whose blobs the repository lacks, as a mirror that
// keeps its largest files absent does (dapr/dapr's history holds test binaries): git archive
// stops at the first missing blob. A build that needs a file left out fails and is skipped
// with go's message. It returns the paths left out.
func (g GoBuild) writeTree(ctx context.Context, c Commit, dir string) ([]string, error) {
	gitDir, err := git(ctx, g.Repo, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, err
	}
	missing, err := missingBlobs(ctx, g.Repo, c.Hash)
	if err != nil {
		return nil, fmt.Errorf("bisect: list %s's tree: %w", c.Short(), err)
	}
	tmp, err := os.MkdirTemp("", "bisect-index-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	run := func(stdin string, args ...string) error {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir", gitDir, "--work-tree", dir}, args...)...)
		cmd.Dir, cmd.Stdin, cmd.Stderr = dir, strings.NewReader(stdin), &stderr
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(tmp, "index"))
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("bisect: write %s's tree: git %s: %w: %s", c.Short(), args[0], err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	if err := run("", "read-tree", c.Hash); err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		if err := run(strings.Join(missing, "\x00")+"\x00", "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return nil, err
		}
	}
	return missing, run("", "checkout-index", "--all")
}

// missingBlobs lists the files of commit's tree in repo whose blobs the repository does not
// hold (git ls-tree, then git cat-file --batch-check), in the tree's order.
func missingBlobs(ctx context.Context, repo, commit string) ([]string, error) {
	var tree, stderr bytes.Buffer
	ls := exec.CommandContext(ctx, "git", "-C", repo, "ls-tree", "-r", "-z", "--full-tree", commit)
	ls.Stdout, ls.Stderr = &tree, &stderr
	if err := ls.Run(); err != nil {
		return nil, fmt.Errorf("git ls-tree: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var paths, hashes []string
	for _, entry := range strings.Split(strings.TrimSuffix(tree.String(), "\x00"), "\x00") {
		meta, path, ok := strings.Cut(entry, "\t") // "<mode> <type> <hash>\t<path>"
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue // a submodule's commit, or the empty tree
		}
		paths, hashes = append(paths, path), append(hashes, f[2])
	}
	if len(hashes) == 0 {
		return nil, nil
	}
	var out bytes.Buffer
	check := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "--batch-check=%(objectname)")
	check.Stdin, check.Stdout, check.Stderr = strings.NewReader(strings.Join(hashes, "\n")+"\n"), &out, &stderr
	if err := check.Run(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(hashes) {
		return nil, fmt.Errorf("git cat-file: %d answers for %d blobs", len(lines), len(hashes))
	}
	var missing []string
	for i, l := range lines {
		if strings.HasSuffix(l, " missing") {
			missing = append(missing, paths[i])
		}
	}
	return missing, nil
}

// goCmd runs go with args in dir; a failure not caused by ctx is a *SkipError.
func (g GoBuild) goCmd(ctx context.Context, dir string, args ...string) error {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod"), g.Env...)
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &SkipError{Reason: "go " + args[0] + ": " + why(out.String())}
}

// why is what a failed go command's output says went wrong: its first line naming a module
// the proxy refused or does not have (HTTP 403, 404 or 410), else its last three lines, joined
// by " / ".
func why(s string) string {
	var lines []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		for _, code := range []string{" 403 ", " 404 ", " 410 "} {
			if strings.Contains(l, code) {
				return l
			}
		}
		lines = append(lines, l)
	}
	return strings.Join(lines[max(0, len(lines)-3):], " / ")
}

// Describe is git describe --tags --always of commit in repo ("v1.17.0-rc.1-45-gabc1234").
func Describe(ctx context.Context, repo, commit string) (string, error) {
	return git(ctx, repo, "describe", "--tags", "--always", commit)
}
