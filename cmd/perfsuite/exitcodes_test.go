package main

// These tests run perfsuite as a user does and check the exit code of each way a run can fail
// (perf.Outcome; docs/results.md#exit-codes).

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// built is perfsuite built once for these tests, in a folder of its own.
var built struct {
	once sync.Once
	path string
	err  error
}

// perfsuite builds the command (once) and returns its path.
func perfsuite(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "perfsuite-test-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "perfsuite")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %w: %s", err, out)
		}
	})
	require.NoError(t, built.err)
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// perfRun is one perfsuite run: its report root, run id and output so far.
type perfRun struct {
	cmd    *exec.Cmd
	root   string
	id     string
	mu     sync.Mutex
	out    strings.Builder
	lines  chan string
	waited chan struct{}
	code   int
}

// startPerf starts perfsuite on args, in its own process group, at a light load (50 QPS
// on 4 connections, phases of dur, a 2 s warmup and idle window, no preflight), with extra
// environment env; the group is killed when the test ends. Every output line also goes to
// lines (dropped when nobody reads).
func startPerf(t *testing.T, dur string, env []string, args ...string) *perfRun {
	t.Helper()
	r := &perfRun{root: t.TempDir(), id: "exit-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")),
		lines: make(chan string, 1024), waited: make(chan struct{})}
	cmd := exec.Command(perfsuite(t), args...)
	// TMPDIR: the platform keeps a failed run's folder (its logs) for a look; these runs fail on
	// purpose, so their folders go where the test's own temporary files go, and leave with them.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(),
		"DAPR_PERF_REPORT_DIR="+r.root, "DAPR_PERF_RUN_ID="+r.id, "DAPR_TEST_DURATION="+dur,
		"DAPR_PERF_QPS=50", "DAPR_PERF_CONNECTIONS=4", "DAPR_PERF_WARMUP_DURATION=2s", "DAPR_PERF_IDLE_WINDOW=2s",
		"DAPR_PERF_PREFLIGHT=off", "DAPR_PERF_OVERHEAD_GATE=warn")
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	r.cmd = cmd
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			r.mu.Lock()
			r.out.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			select {
			case r.lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		r.code = cmd.ProcessState.ExitCode()
		pw.Close()
		close(r.waited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-r.waited
	})
	return r
}

// wait waits (at most 10 minutes) for perfsuite to exit and returns its code.
func (r *perfRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.waited:
	case <-time.After(10 * time.Minute):
		t.Fatalf("perfsuite did not exit in 10 minutes:\n%s", r.output())
	}
	return r.code
}

func (r *perfRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// untilMain waits (at most 5 minutes) for the run's main phase to start.
func (r *perfRun) untilMain(t *testing.T) {
	t.Helper()
	deadline := time.After(5 * time.Minute)
	for {
		select {
		case l := <-r.lines:
			if strings.Contains(l, "round 1/1: main") {
				return
			}
		case <-r.waited:
			t.Fatalf("perfsuite exited %d before the main phase:\n%s", r.code, r.output())
		case <-deadline:
			t.Fatalf("no main phase in 5 minutes:\n%s", r.output())
		}
	}
}

// exitCodeFile reads <run dir>/exit-code.
func (r *perfRun) exitCodeFile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(perf.RunDir(r.root, r.id), "exit-code"))
	require.NoError(t, err, "perfsuite writes the run's exit code to its folder")
	return strings.TrimSpace(string(b))
}

// needDaprd skips without the built daprd (make daprd), or fails when CI is set.
func needDaprd(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs daprd")
	}
	root, err := perf.RepoRootFrom(".")
	require.NoError(t, err)
	matches, _ := filepath.Glob(filepath.Join(root, ".daprd", "*", "daprd"))
	if len(matches) == 0 {
		msg := "no daprd under .daprd: make daprd"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// A bad variable is refused before any process starts: exit 6, the variable named.
func TestExitCodeOfABadVariable(t *testing.T) {
	r := startPerf(t, "5s", []string{"DAPR_PERF_CONNECTIONS=many"}, "./tests/service_invocation_http")
	code := r.wait(t)
	assert.Equal(t, int(perf.OutcomeConfig), code, "%s", r.output())
	assert.Contains(t, r.output(), "DAPR_PERF_CONNECTIONS")
	_, err := os.Stat(perf.RunDir(r.root, r.id))
	assert.True(t, os.IsNotExist(err) || dirEmptyOfResults(t, perf.RunDir(r.root, r.id)), "a refused run writes no result file")
}

func dirEmptyOfResults(t *testing.T, dir string) bool {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(dir, "*", "*", "result.json"))
	return len(found) == 0
}

// Ctrl-C in the main phase: exit 130, and the result file keeps what was measured, marked
// interrupted by SIGINT; no process of the run is left.
func TestExitCodeOfSIGINT(t *testing.T) {
	needDaprd(t)
	r := startPerf(t, "30s", nil, "./tests/service_invocation_http")
	r.untilMain(t)
	time.Sleep(2 * time.Second)
	procs := tree(t, r.cmd.Process.Pid)
	require.NotEmpty(t, named(procs, "daprd"), "the run's sidecars")
	require.NoError(t, syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT), "Ctrl-C reaches the whole foreground group")
	code := r.wait(t)
	assert.Equal(t, int(perf.OutcomeInterrupted), code, "%s", r.output())
	assert.Equal(t, "130", r.exitCodeFile(t))
	rep, err := report.ReadReport(filepath.Join(perf.RunDir(r.root, r.id), "service_invocation", "http", "result.json"))
	require.NoError(t, err)
	assert.Equal(t, "SIGINT", rep.InterruptedBy)
	assert.True(t, rep.Incomplete)
	require.NotNil(t, rep.PartialRound, "the round's baseline, measured before the signal, is kept")
	assert.Positive(t, rep.PartialRound.Baseline.Requests)
	assertGone(t, procs)
}

// Redis killed in the main phase of a state scenario: an infrastructure error (exit 5), the
// exit of redis named in the result file and its outcome.
func TestExitCodeOfAKilledBackend(t *testing.T) {
	needDaprd(t)
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no redis-server: make test installs it")
		}
		t.Skip("no redis-server")
	}
	r := startPerf(t, "10s", nil, "-run", "TestStateGetHTTPPerformance/^state_get_redis$", "./tests/state_get_http")
	r.untilMain(t)
	time.Sleep(2 * time.Second)
	procs := tree(t, r.cmd.Process.Pid)
	pids := named(procs, "redis-server")
	require.NotEmpty(t, pids, "a redis-server of the run")
	for _, pid := range pids {
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	}
	code := r.wait(t)
	rep, err := report.ReadReport(filepath.Join(perf.RunDir(r.root, r.id), "state_get_redis", "http", "result.json"))
	require.NoError(t, err, "%s", r.output())
	want, why := rep.Outcome()
	t.Logf("exit %d: %s", code, why)
	assert.Equal(t, int(want), code, "perfsuite exits with the result file's outcome")
	assert.Equal(t, int(perf.OutcomeInfra), code, "a backend that died mid-run is an infrastructure error (%s)", why)
	assert.Contains(t, why, "backend redis")
	var exits []string
	for _, e := range rep.Exits {
		exits = append(exits, e.Process+": "+e.Reason)
	}
	assert.Contains(t, strings.Join(exits, "\n"), "redis", "the result file names the killed backend")
	assertGone(t, procs)
}

// proc is a process as tree found it: its start time (so that a PID reused later is not taken
// for it) and its command.
type proc struct {
	start uint64
	comm  string
}

// tree is every live process descended from pid, by PID.
func tree(t *testing.T, pid int) map[int]proc {
	t.Helper()
	all, err := procfs.AllProcs()
	require.NoError(t, err)
	children := map[int][]procfs.ProcStat{}
	for _, p := range all {
		if st, err := p.Stat(); err == nil && st.State != "Z" {
			children[st.PPID] = append(children[st.PPID], st)
		}
	}
	out := map[int]proc{}
	var walk func(int)
	walk = func(pid int) {
		for _, st := range children[pid] {
			out[st.PID] = proc{st.Starttime, st.Comm}
			walk(st.PID)
		}
	}
	walk(pid)
	return out
}

// named are the PIDs in procs whose command is comm.
func named(procs map[int]proc, comm string) []int {
	var out []int
	for pid, p := range procs {
		if p.comm == comm {
			out = append(out, pid)
		}
	}
	return out
}

// assertGone fails when a process of procs (the run's, taken while it ran) is still alive
// some seconds after perfsuite exited: daprd, the apps, the backends and the tester stop with it.
func assertGone(t *testing.T, procs map[int]proc) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for pid, p := range procs {
			proc, err := procfs.NewProc(pid)
			if err != nil {
				continue
			}
			if pst, err := proc.Stat(); err == nil && pst.Starttime == p.start && pst.State != "Z" {
				left = append(left, p.comm)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the run left after perfsuite exited: %v", left)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
