package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/daprperf/daprperf/perf"
)

// stopGrace is how long a process gets to exit after SIGTERM before it is sent SIGKILL when
// its procSpec names no grace (placement); apps and daprds have their own (stopgrace.go).
const stopGrace = 5 * time.Second

// killWait bounds the wait for a process to be reaped after SIGKILL.
const killWait = 5 * time.Second

// process is one child process of a deployment, an app or a daprd, with its output in a
// log file. A watcher goroutine reaps it and records an exit that nobody asked for.
type process struct {
	name string // process name: the app's name, or perf.SidecarName(app)
	log  string // path of the file holding its stdout and stderr
	cmd  *exec.Cmd
	pid  int
	// started is when it was started; ready is when its health check first passed (poll), zero
	// before. A test checks Platform.StartE's start order with them.
	started, ready time.Time

	stopSig  syscall.Signal // what terminate sends: SIGTERM, or the procSpec's
	grace    time.Duration  // how long stop waits after stopSig before SIGKILL
	termOnce sync.Once
	stopping atomic.Bool // set before the first SIGTERM: from then on an exit is expected
	stopOnce sync.Once
	stopErr  error

	done chan struct{} // closed once the process has exited and been reaped
	// Set by the watcher before done is closed; read only after <-done.
	err  error      // what cmd.Wait returned
	exit *perf.Exit // non-nil when the process ended before it was asked to stop
}

// procSpec are the settings of a child process beyond its command line; the zero value is an
// app's or a daprd's.
type procSpec struct {
	// cred runs the process as another user (PostgreSQL refuses to run as root); nil runs it
	// as the test binary's user.
	cred *syscall.Credential
	// stopSig is the signal that asks it to stop in order; 0 is SIGTERM. PostgreSQL's is SIGINT
	// (its "fast" shutdown: SIGTERM would wait for every client to disconnect).
	stopSig syscall.Signal
	// grace is how long the process gets after stopSig before SIGKILL; 0 is stopGrace.
	grace time.Duration
}

// startProcessWith runs bin with args and env for as long as ctx lasts (the test's context:
// when it ends the process gets SIGTERM, and SIGKILL spec.grace later). Its stdout and stderr
// go to the file logPath. onExit, if not nil, is called once the process has ended
// unexpectedly.
func startProcessWith(ctx context.Context, name, logPath, bin string, args, env []string, spec procSpec, onExit func(*process)) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: log: %w", name, err)
	}
	defer func() { _ = logf.Close() }() // the child has its own descriptor once started

	p := &process{name: name, log: logPath, done: make(chan struct{}), stopSig: syscall.SIGTERM}
	if spec.stopSig != 0 {
		p.stopSig = spec.stopSig
	}
	p.grace = stopGrace
	if spec.grace > 0 {
		p.grace = spec.grace
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Cancel = p.terminate
	cmd.WaitDelay = p.grace // then SIGKILL
	// Own process group: a Ctrl-C on the terminal reaches the test binary, whose signal
	// handler stops the children (see handleSignals), not the children directly.
	// Pdeathsig: the child dies with the test binary if that is killed outright.
	// Go sets Pdeathsig after switching to cred, so it survives the switch.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true, Credential: spec.cred}
	p.cmd = cmd

	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p.pid = cmd.Process.Pid
	p.started = time.Now()
	track(p) // for the signal handler; Pdeathsig covers the moment before
	go p.watch(onExit)
	return p, nil
}

// watch reaps the process and records an exit that happened before anyone asked for it.
func (p *process) watch(onExit func(*process)) {
	err := p.cmd.Wait()
	p.err = err
	if !p.stopping.Load() {
		p.exit = &perf.Exit{Process: p.name, At: time.Now(), Reason: describeExit(err)}
	}
	untrack(p)
	close(p.done)
	if p.exit != nil && onExit != nil {
		onExit(p)
	}
}

// terminate sends SIGTERM (or the process's own stop signal) once; it is also cmd.Cancel. It
// marks the stop as expected first.
func (p *process) terminate() error {
	err := os.ErrProcessDone
	p.termOnce.Do(func() {
		p.stopping.Store(true)
		err = p.cmd.Process.Signal(p.stopSig)
	})
	return err
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process and blocks until it has been reaped: SIGTERM, then SIGKILL after
// grace. It is idempotent; every call returns the first call's result. The error says when
// the process needed SIGKILL or exited with a failure after SIGTERM. A process that had
// already ended unexpectedly is no error here: Deployment.Exits reports it.
func (p *process) stop(grace time.Duration) error {
	p.stopOnce.Do(func() { p.stopErr = p.doStop(grace) })
	return p.stopErr
}

func (p *process) doStop(grace time.Duration) error {
	if !p.exited() {
		if err := p.terminate(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("stop %s (pid %d): SIGTERM: %w", p.name, p.pid, err)
		}
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-p.done:
		case <-timer.C:
			if err := p.kill(); err != nil {
				return fmt.Errorf("stop %s (pid %d): %w", p.name, p.pid, err)
			}
			return fmt.Errorf("stop %s (pid %d): still running %v after SIGTERM, sent SIGKILL; log %s ends:\n%s",
				p.name, p.pid, grace, p.log, tail(p.log, logTailBytes))
		}
	}
	if p.exit != nil || cleanStop(p.err) {
		return nil
	}
	return fmt.Errorf("stop %s (pid %d): %s after SIGTERM; log %s ends:\n%s", p.name, p.pid, describeExit(p.err), p.log, tail(p.log, logTailBytes))
}

// kill sends SIGKILL and waits, at most killWait, until the process has been reaped.
func (p *process) kill() error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGKILL: %w", err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("not reaped %v after SIGKILL", killWait)
	}
}

// cleanStop reports whether err, from cmd.Wait after SIGTERM (or a process's own stop
// signal, after which an orderly end is exit status 0), is an orderly end: exit status 0
// (which exec reports as the context's error when the context sent the SIGTERM), or death by
// the SIGTERM itself.
func cleanStop(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		ws, ok := exitErr.Sys().(syscall.WaitStatus)
		return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
	}
	return false
}

// describeExit says how a process ended, from cmd.Wait's error: "exit status 1",
// "signal SIGKILL"; anything else is the error's text.
func describeExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				return "signal " + unix.SignalName(ws.Signal())
			}
			return fmt.Sprintf("exit status %d", ws.ExitStatus())
		}
		return exitErr.String()
	}
	return err.Error()
}
