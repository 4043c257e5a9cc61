package node

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// proc is one long-running process of the cluster, started in a sandbox and stopped by its
// PID. Its output goes to its log file, which errors quote the end of.
type proc struct {
	name string // as messages name it: "kubelet", "kubelet on daprperf-node-2"
	sb   *sandbox
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process exited
	err  error         // Wait's error; read after done
	// killed says that it outlived SIGTERM's grace period and got SIGKILL.
	killed bool
}

// start runs bin with args inside s as the part name, logging to logPath.
func (s *sandbox) start(logPath, name, bin string, args ...string) (*proc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := s.command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, &PartError{Part: name, Err: fmt.Errorf("start %s: %w", bin, err)}
	}
	f.Close() // the child holds its own copy
	p := &proc{name: name, sb: s, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited says whether p has exited, with why.
func (p *proc) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop sends SIGTERM to p's PID, waits up to grace, then sends SIGKILL and waits.
func (p *proc) stop(grace time.Duration) error {
	if ok, _ := p.exited(); ok {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
		p.killed = true
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) survived SIGKILL", p.name, p.cmd.Process.Pid)
	}
}

// tail is the last n lines of p's log.
func (p *proc) tail(n int) string { return tailFile(p.log, n) }

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// PartError is a bring-up failure of one part of the cluster (containerd, etcd, kube-apiserver,
// kubelet, dapr-sentry, ...): Part names it, Err says what did not happen, Log is the end of
// its log when it has one.
type PartError struct {
	Part string
	Err  error
	Log  string
}

func (e *PartError) Error() string {
	msg := fmt.Sprintf("kube node: %s did not come up: %v", e.Part, e.Err)
	if e.Log != "" {
		msg += "\n--- last lines of its log ---\n" + e.Log
	}
	return msg
}

func (e *PartError) Unwrap() error { return e.Err }

// waitFor polls check every 200 ms until it returns nil, p (when not nil) exits, or timeout
// passes; the error is a *PartError for part.
func waitFor(part string, p *proc, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if last = check(); last == nil {
			return nil
		}
		if errors.Is(last, errGiveUp) {
			pe := &PartError{Part: part, Err: last}
			if p != nil {
				pe.Log = p.tail(30)
			}
			return pe
		}
		if p != nil {
			if ok, err := p.exited(); ok {
				return &PartError{Part: part, Err: fmt.Errorf("exited (%v) while waiting: %w", err, last), Log: p.tail(30)}
			}
		}
		if time.Now().After(deadline) {
			pe := &PartError{Part: part, Err: fmt.Errorf("not ready after %s: %w", timeout, last)}
			if p != nil {
				pe.Log = p.tail(30)
			}
			return pe
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// errGiveUp in a check's error ends the wait at once: the part will not come up.
var errGiveUp = errors.New("giving up")
