package bisect

import (
	"bytes"
	"context"
	"errors"
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
// tree to a temporary folder (git archive), raises the modules in Pins (go get), builds
// Package with go build into Out/<hash>/<Name> and removes the folder. A binary already there
// is reused. A build that fails (go get or go build, for any reason but ctx's end: a compile
// error, a module the proxy refuses) is a *SkipError with the last lines of go's output.
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
	// Pins are path@version words to go get before building, for modules whose required
	// version the module proxy refuses.
	Pins []string
	// Env is added to the environment of go get and go build (CGO_ENABLED=0 is always set).
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
	if err := g.archive(ctx, c, src); err != nil {
		return "", err
	}
	if len(g.Pins) > 0 {
		if err := g.goCmd(ctx, src, append([]string{"get"}, g.Pins...)...); err != nil {
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

// archive writes c's tree into dir.
func (g GoBuild) archive(ctx context.Context, c Commit, dir string) error {
	archive := exec.CommandContext(ctx, "git", "-C", g.Repo, "archive", "--format=tar", c.Hash)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	archive.Stderr, untar.Stdin, untar.Stderr = &stderr, pipe, &stderr
	if err := archive.Start(); err != nil {
		return fmt.Errorf("bisect: git archive %s: %w", c.Short(), err)
	}
	errTar := untar.Run()
	if err := archive.Wait(); err != nil || errTar != nil {
		return fmt.Errorf("bisect: write %s's tree: %w", c.Short(), errors.Join(err, errTar, errors.New(strings.TrimSpace(stderr.String()))))
	}
	return nil
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
