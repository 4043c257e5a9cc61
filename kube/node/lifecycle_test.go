//go:build kubenode

package node_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daprperf/daprperf/kube/node"
)

// TestStartFailsNamed breaks the API server on purpose (a kube-apiserver that exits 1): Start
// must return a *PartError naming it, with its log, after stopping everything it started;
// the host must be as before.
func TestStartFailsNamed(t *testing.T) {
	before, err := node.HostState()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	real := os.Getenv("KUBEBUILDER_ASSETS")
	if real == "" {
		real = filepath.Join(root, ".kube-bin", node.DefaultKubeVersion)
	}
	bin := t.TempDir()
	for _, b := range []string{"etcd", "kube-controller-manager", "kube-scheduler"} {
		if err := os.Symlink(filepath.Join(real, b), filepath.Join(bin, b)); err != nil {
			t.Fatal(err)
		}
	}
	broken := "#!/bin/sh\necho 'deliberately broken kube-apiserver' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "kube-apiserver"), []byte(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := node.Start(context.Background(), node.Config{Logf: t.Logf, KubeBin: bin})
	if err == nil {
		c.Stop()
		t.Fatal("Start succeeded with a broken kube-apiserver")
	}
	t.Logf("Start: %v", err)
	var pe *node.PartError
	if !errors.As(err, &pe) || pe.Part != "kube-apiserver" {
		t.Fatalf("error %T %v: want a *node.PartError for kube-apiserver", err, err)
	}
	if !strings.Contains(pe.Log, "deliberately broken") {
		t.Errorf("the error quotes no log of the part: %q", pe.Log)
	}
	after, err := node.HostState()
	if err != nil {
		t.Fatal(err)
	}
	compareHostState(t, before, after)
}

// envHold makes TestHoldForSignal bring a cluster up and wait for a signal; only
// TestSIGINT sets it, for its child process.
const envHold = "DAPRPERF_KUBE_NODE_HOLD_CHILD"

// TestHoldForSignal is TestSIGINT's child: it brings a cluster up, prints "cluster ready",
// and waits. Start's handler tears the cluster down at SIGINT and exits 130.
func TestHoldForSignal(t *testing.T) {
	if os.Getenv(envHold) == "" {
		return // only as TestSIGINT's child
	}
	c, err := node.Start(context.Background(), node.Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	os.Stdout.WriteString("cluster ready\n")
	time.Sleep(5 * time.Minute)
	t.Error("no signal came in 5 min")
}

// TestSIGINT runs TestHoldForSignal in a child process, sends it SIGINT once its cluster is
// ready, and wants exit status 130 within a minute, no process of the cluster left, and the
// host as before.
func TestSIGINT(t *testing.T) {
	before, err := node.HostState()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHoldForSignal$", "-test.v")
	cmd.Env = append(os.Environ(), envHold+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	eof := make(chan struct{}) // the child closed its output: it has ended
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(out)
		once := false
		for sc.Scan() {
			t.Log("child: " + sc.Text())
			if !once && strings.Contains(sc.Text(), "cluster ready") && !strings.Contains(sc.Text(), "kube node:") {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-eof:
		err := cmd.Wait()
		t.Fatalf("the child ended (%v) before its cluster was ready", err)
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the child's cluster was not ready in 5 min")
	}
	if n := len(node.ClusterProcesses()); n == 0 {
		t.Fatal("no cluster process found while the cluster runs: the leftover check would see nothing")
	} else {
		t.Logf("cluster processes while it runs: %d", n)
	}
	t0 := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the child did not exit within 1 min of SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("child exit: %v; want status 130", err)
	}
	t.Logf("SIGINT to exit: %.1f s", time.Since(t0).Seconds())
	after, err := node.HostState()
	if err != nil {
		t.Fatal(err)
	}
	compareHostState(t, before, after)
}
