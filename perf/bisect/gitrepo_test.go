package bisect_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/bisect"
)

// server is a made-up Go HTTP server: it listens on a loopback port the kernel picks, prints
// its address, and answers every request after WORK.
const server = `package main

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

var _ = time.Millisecond

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println(ln.Addr())
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WORK
		w.Write([]byte("ok"))
	}))
}
`

// madeUpRepo writes a git repository of server with eight commits and returns its path and
// their subjects: commit 3 (from 0) does not compile, commit 5 makes every request 3 ms
// slower, and the others change nothing the server does.
func madeUpRepo(t *testing.T) (string, []string) {
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=daprperf", "-c", "user.email=test@daprperf.invalid"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	run("init", "-q", "-b", "main")
	steps := []struct{ subject, work string }{
		{"a server that answers at once", ""},
		{"a comment", "// nothing to do"},
		{"a variable", "_ = r.URL.Path"},
		{"a change that does not compile", "undefinedName()"},
		{"it compiles again", "_ = r.Method"},
		{"every request waits 3 ms", "time.Sleep(3 * time.Millisecond)"},
		{"a comment after the slowdown", "time.Sleep(3 * time.Millisecond) // still"},
		{"another change", "time.Sleep(3 * time.Millisecond); _ = r.Host"},
	}
	write("go.mod", "module example.invalid/server\n\ngo 1.22\n")
	var subjects []string
	for _, s := range steps {
		write("main.go", strings.Replace(server, "WORK", s.work, 1))
		run("add", "-A")
		run("commit", "-q", "-m", s.subject)
		subjects = append(subjects, s.subject)
	}
	return dir, subjects
}

// medianLatency starts b, sends it 10 unrecorded requests then 40 recorded ones, one at a
// time, stops it by its PID and returns the recorded ones' median, in seconds.
func medianLatency(ctx context.Context, b bisect.Binary) (float64, error) {
	cmd := exec.CommandContext(ctx, b.Path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("read the server's address: %w", err)
	}
	url := "http://" + strings.TrimSpace(addr) + "/"
	client := &http.Client{Timeout: 2 * time.Second}
	var lat []float64
	for i := range 50 {
		t := time.Now()
		resp, err := client.Get(url)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		if i >= 10 {
			lat = append(lat, time.Since(t).Seconds())
		}
	}
	client.CloseIdleConnections()
	slices.Sort(lat)
	return (lat[len(lat)/2-1] + lat[len(lat)/2]) / 2, nil
}

// TestBisectFindsTheSlowdownInAGitRepository bisects a made-up repository end to end: each
// commit built with go build from its git tree, the one that does not compile skipped, each
// built server measured in interleaved rounds until the A/B verdict decides, and the commit
// that added 3 ms named.
func TestBisectFindsTheSlowdownInAGitRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the made-up repository's commits with go build")
	}
	repo, subjects := madeUpRepo(t)
	ctx := context.Background()
	commits, err := bisect.FirstParent(ctx, repo, "HEAD~7", "HEAD")
	require.NoError(t, err)
	require.Len(t, commits, 8)
	for i, c := range commits {
		assert.Equal(t, subjects[i], c.Subject)
	}

	s := bisect.Search{
		Builder:  bisect.GoBuild{Repo: repo, Package: ".", Name: "server", Out: t.TempDir()},
		Comparer: bisect.Rounds{Figure: "latency p50", Unit: "s", Planned: 4, Max: 16, Measure: medianLatency},
		Figure:   "latency p50",
		Log:      testWriter{t},
	}
	o, err := s.Run(ctx, commits)
	require.NoError(t, err)
	require.True(t, o.Found, o.Reason)
	assert.Equal(t, "every request waits 3 ms", commits[o.FirstBad].Subject)
	assert.Equal(t, 4, o.LastGood, "the commit before the slowdown was found good")
	require.NotNil(t, o.Confirm)
	assert.Greater(t, o.Confirm.Difference.Median, 0.002, "the bad end is about 3 ms slower")

	var marks []string
	for _, st := range o.Steps {
		marks = append(marks, fmt.Sprintf("%d:%s", st.Index, st.Mark))
	}
	assert.Equal(t, []string{"3:skipped", "2:good", "4:good", "5:bad"}, marks)
	assert.Contains(t, o.Steps[0].Reason, "undefined: undefinedName")

	dir := t.TempDir()
	require.NoError(t, bisect.Write(dir, o))
	page, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(page), "# Bisection of latency p50: the first bad commit is "+commits[5].Short()), string(page))
	assert.FileExists(t, filepath.Join(dir, "outcome.json"))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
