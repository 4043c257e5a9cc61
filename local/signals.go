package local

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"
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

// runDirs maps each run directory not yet removed to its deployment as the signal handler
// sees it.
var runDirs = struct {
	sync.Mutex
	m map[string]trackedRun
}{m: map[string]trackedRun{}}

// trackedRun is one deployment not yet removed, for the signal handler: its logs, kept through
// the same runLogs as the deployment's close, and the interrupt hook its start context carried
// (perf.InterruptHook; nil for none).
type trackedRun struct {
	logs        *runLogs
	onInterrupt func(os.Signal)
}

// trackRunDir hands a deployment's run directory, its logs and its interrupt hook to the signal
// handler. forgetRunDir takes the run directory back once the deployment has removed it.
func trackRunDir(logs *runLogs, onInterrupt func(os.Signal)) {
	installSignals.Do(handleSignals)
	runDirs.Lock()
	runDirs.m[logs.runDir] = trackedRun{logs: logs, onInterrupt: onInterrupt}
	runDirs.Unlock()
}

func forgetRunDir(dir string) {
	runDirs.Lock()
	delete(runDirs.m, dir)
	runDirs.Unlock()
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

// handleSignals makes SIGINT and SIGTERM to the test binary call the interrupt hook of every
// deployment not yet removed (interruptRuns: the runner's marks its result file interrupted),
// then stop every live child by PID (SIGTERM, then SIGKILL after signalGrace), keep each run's
// logs where its deployment was told to (runLogs.keep: once, also when the test fails meanwhile
// and its deployment's close would keep them too), and remove the run directories and the
// backends' data folders outside them, before the binary dies of the same signal. The children
// run in their own process groups, so a terminal's Ctrl-C does not reach them. A signal the
// binary ignored from the start stays ignored.
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
		interruptRuns(sig) // first: the runs' result files keep what they measured
		stopLive(signalGrace)
		runDirs.Lock() // keep the logs, as for a failed test; its cleanup may be keeping them too
		for dir, run := range runDirs.m {
			if logs := run.logs; logs.dir != "" {
				logs.keep(func(err error) { // unless the deployment's close, its test failing, did
					if err != nil {
						fmt.Fprintf(os.Stderr, "local: interrupted by %v: %v\n", sig, err)
					} else {
						fmt.Fprintf(os.Stderr, "local: interrupted by %v; the processes' logs kept in %s\n", sig, logs.dir)
					}
				})
			}
			_ = os.RemoveAll(dir)
		}
		runDirs.Unlock()
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

// interruptRuns calls, with sig, the interrupt hook of every deployment not yet removed, outside
// the lock: a hook writes a file, and a deployment's close may be waiting to forget its run
// directory meanwhile.
func interruptRuns(sig os.Signal) {
	runDirs.Lock()
	var hooks []func(os.Signal)
	for _, run := range runDirs.m {
		if run.onInterrupt != nil {
			hooks = append(hooks, run.onInterrupt)
		}
	}
	runDirs.Unlock()
	for _, fn := range hooks {
		fn(sig)
	}
}

// stopLive sends SIGTERM to every live child, waits at most grace for all of them, then
// sends SIGKILL to the rest and waits at most killWait for them to be reaped.
func stopLive(grace time.Duration) {
	live.Lock()
	procs := make([]*process, 0, len(live.procs))
	for p := range live.procs {
		procs = append(procs, p)
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
