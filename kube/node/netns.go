package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sandbox is the network and mount namespace the whole cluster lives in, held open by one
// process (unshare ... sleep) that the test starts and stops by PID. The node's addresses, the
// pods' bridge, every iptables rule of kube-proxy, the kubelet and the test, and ip_forward all
// belong to this network namespace, so none of them touches the host's; its mount namespace is
// private, so the overlay, tmpfs and netns mounts of containerd and the kubelet are gone with
// it. The host process (the test) reaches into it only through dial and listen below.
type sandbox struct {
	holder *exec.Cmd
	netFD  int // open /proc/<holder>/ns/net
}

// newSandbox starts the holder: unshare(1) makes the namespaces and execs sleep in them.
func newSandbox() (*sandbox, error) {
	cmd := exec.Command("unshare", "--net", "--mount", "--propagation", "private", "--", "sleep", "infinity")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("netns: start unshare: %w", err)
	}
	s := &sandbox{holder: cmd, netFD: -1}
	// unshare has made the namespaces once its /proc/<pid>/ns/net differs from ours and it runs
	// sleep; poll briefly (it takes milliseconds).
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		s.close()
		return nil, fmt.Errorf("netns: %w", err)
	}
	for range 500 {
		ns, err := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/net")
		exe, _ := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe")
		if err == nil && ns != own && exe != "" && filepath.Base(exe) == "sleep" {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	fd, err := unix.Open("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("netns: open the namespace: %w", err)
	}
	s.netFD = fd
	return s, nil
}

// pid is the holder's PID.
func (s *sandbox) pid() int { return s.holder.Process.Pid }

// command is name with args run inside the sandbox's network and mount namespaces through
// nsenter(1), which execs name in place: the returned command's PID is name's own.
func (s *sandbox) command(name string, args ...string) *exec.Cmd {
	full := append([]string{"--target", strconv.Itoa(s.pid()), "--net", "--mount", "--", name}, args...)
	cmd := exec.Command("nsenter", full...)
	// Its own process group: a ^C in the terminal reaches the test, which stops everything in
	// order; Pdeathsig stops it should the test itself be killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// run runs name with args in the sandbox and returns an error with its output on failure.
func (s *sandbox) run(name string, args ...string) error {
	out, err := s.command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %w: %s", name, args, err, out)
	}
	return nil
}

// in runs fn on an OS thread switched into the sandbox's network namespace, then switches the
// thread back. Sockets fn creates stay in the sandbox's namespace for their whole life. If the
// thread cannot be switched back it is left locked, so Go discards it with the goroutine.
func (s *sandbox) in(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		own, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			errc <- fmt.Errorf("netns: %w", err)
			return
		}
		defer unix.Close(own)
		if err := unix.Setns(s.netFD, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("netns: enter: %w", err)
			return
		}
		ferr := fn()
		if err := unix.Setns(own, unix.CLONE_NEWNET); err != nil {
			errc <- errors.Join(ferr, fmt.Errorf("netns: leave: %w", err))
			return // the thread stays locked and dies with this goroutine
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// dial opens a TCP connection to addr inside the sandbox.
func (s *sandbox) dial(ctx context.Context, addr string) (net.Conn, error) {
	var c net.Conn
	err := s.in(func() error {
		var d net.Dialer
		var err error
		c, err = d.DialContext(ctx, "tcp", addr)
		return err
	})
	return c, err
}

// relay forwards every connection to a listener on the host's loopback, 127.0.0.1:<port>, to
// target inside the sandbox: the only way from the host into the cluster (the API server;
// port-forwards ride on its connections). Close stops it and every connection it carries.
type relay struct {
	ln     net.Listener
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
	closed bool
}

func (s *sandbox) relay(target string) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	r := &relay{ln: ln, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.carry(s, c, target)
			}()
		}
	}()
	return r, nil
}

func (r *relay) carry(s *sandbox, c net.Conn, target string) {
	defer c.Close()
	up, err := s.dial(context.Background(), target)
	if err != nil {
		return
	}
	defer up.Close()
	if !r.track(c, up) {
		return
	}
	defer r.untrack(c, up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

func (r *relay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	for _, c := range cs {
		r.conns[c] = struct{}{}
	}
	return true
}

func (r *relay) untrack(cs ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		delete(r.conns, c)
	}
}

// addr is the relay's host address, 127.0.0.1:<port>.
func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) close() {
	r.ln.Close()
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// close stops the holder by its PID; the namespaces go away with their last process.
func (s *sandbox) close() error {
	if s.netFD >= 0 {
		unix.Close(s.netFD)
		s.netFD = -1
	}
	if s.holder == nil || s.holder.Process == nil {
		return nil
	}
	_ = s.holder.Process.Signal(syscall.SIGTERM)
	err := s.holder.Wait()
	s.holder = nil
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // killed by our signal, as intended
	}
	return err
}
