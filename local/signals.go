package local

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// signalGrace is how long live children get after SIGTERM when the test binary itself is
// interrupted, before they are sent SIGKILL.
const signalGrace = 3 * time.Second

// live holds every child process that has been started and not yet reaped, across all
// deployments of the test binary, for the signal handler.
var live = struct {
	sync.Mutex
	procs map[*process]struct{}
}{procs: map[*process]struct{}{}}

// dataDirs are the backends' data folders outside any run directory (see postgresDir), which
// the signal handler removes once the processes using them are stopped.
var dataDirs = struct {
	sync.Mutex
	dirs []string
}{}

// trackDataDir hands dir to the signal handler, to remove on SIGINT or SIGTERM.
func trackDataDir(dir string) {
	installSignals.Do(handleSignals)
	dataDirs.Lock()
	dataDirs.dirs = append(dataDirs.dirs, dir)
	dataDirs.Unlock()
}

// forgetDataDir takes dir back once its deployment has removed it.
func forgetDataDir(dir string) {
	dataDirs.Lock()
	dataDirs.dirs = slices.DeleteFunc(dataDirs.dirs, func(d string) bool { return d == dir })
	dataDirs.Unlock()
}

// installSignals installs handleSignals once per test binary.
var installSignals sync.Once

// track adds p to the live set, installing the signal handler with the first process.
func track(p *process) {
	installSignals.Do(handleSignals)
	live.Lock()
	live.procs[p] = struct{}{}
	live.Unlock()
}

// untrack removes p from the live set once it has been reaped.
func untrack(p *process) {
	live.Lock()
	delete(live.procs, p)
	live.Unlock()
}

// handleSignals makes SIGINT and SIGTERM to the test binary mark every unfinished result file
// as interrupted (perf.Interrupted), then stop every live child by PID
// (SIGTERM, then SIGKILL after signalGrace) and remove the backends' data folders outside the
// run directories, before the binary dies of the same signal. The
// children run in their own process groups, so a terminal's Ctrl-C does not reach them.
// A signal the binary ignored from the start stays ignored.
func handleSignals() {
	var sigs []os.Signal
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		sig := <-ch
		perf.Interrupted(sig) // first: the runs' result files keep what they measured
		dirs := stopLive(signalGrace)
		for _, dir := range dirs { // no cleanup runs now: keep the logs, as for a failed test
			fmt.Fprintf(os.Stderr, "local: interrupted by %v; run dir kept: %s\n", sig, dir)
		}
		dataDirs.Lock()
		for _, dir := range dataDirs.dirs { // the stores' data, no log: nothing to keep
			_ = os.RemoveAll(dir)
		}
		dataDirs.Unlock()
		signal.Reset(sigs...)
		if s, ok := sig.(syscall.Signal); ok {
			_ = syscall.Kill(os.Getpid(), s) // die of the signal, as without the handler
		}
		time.Sleep(time.Second)
		os.Exit(1)
	}()
}

// stopLive sends SIGTERM to every live child, waits at most grace for all of them, then
// sends SIGKILL to the rest and waits at most killWait for them to be reaped. It returns
// the run directories of the processes it stopped.
func stopLive(grace time.Duration) (dirs []string) {
	live.Lock()
	procs := make([]*process, 0, len(live.procs))
	for p := range live.procs {
		procs = append(procs, p)
		if dir := filepath.Dir(p.log); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	live.Unlock()
	for _, p := range procs {
		_ = p.terminate()
	}
	waitAll(procs, grace)
	for _, p := range procs {
		if !p.exited() {
			_ = p.cmd.Process.Kill()
		}
	}
	waitAll(procs, killWait)
	return dirs
}

// waitAll waits until every process in procs has been reaped, or d has passed.
func waitAll(procs []*process, d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, p := range procs {
		select {
		case <-p.done:
		case <-deadline.C:
			return
		}
	}
}
