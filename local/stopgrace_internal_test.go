package local

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDaprdStopGrace(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 10 * time.Second}, // daprd's default 5 s + margin
		{[]string{"--dapr-graceful-shutdown-seconds", "2"}, 7 * time.Second},
		{[]string{"--dapr-graceful-shutdown-seconds=2", "-dapr-graceful-shutdown-seconds=9"}, 14 * time.Second}, // the last flag wins
		{[]string{"--dapr-graceful-shutdown-seconds=-1"}, 10 * time.Second},                                     // daprd's default
		{[]string{"--dapr-graceful-shutdown-seconds=0"}, daprdMaxShutdown + stopMargin},                         // no bound in daprd
		{[]string{"--placement-host-address", "127.0.0.1:1"}, 40 * time.Second},                                 // Dapr's actor host
		{[]string{"--placement-host-address=127.0.0.1:1", "--dapr-graceful-shutdown-seconds=2", "--dapr-block-shutdown-duration", "3s"}, 40 * time.Second},
		{[]string{"--app-id", "dapr-graceful-shutdown-seconds=1"}, 10 * time.Second}, // a value, not a flag
	} {
		assert.Equal(t, tt.want, daprdStopGrace(tt.args), "%q", tt.args)
	}
	assert.Equal(t, 10*time.Second, appStopGrace, "the apps' 5 s shutdown + margin")
}

// envFakeStop makes the test binary a process that exits FAKE_STOP after SIGTERM ("7s": that
// long after it, with status 0), or never ("never": it ignores SIGTERM), for TestStopGrace.
const envFakeStop = "DAPRPERF_FAKE_STOP"

// envFakeReady names the file the fake process writes once its SIGTERM handler is installed, so
// that TestStopGrace signals it only then (a busy machine can take seconds to start it).
const envFakeReady = "DAPRPERF_FAKE_READY"

// TestMain plays, when envFakeStop is set, the slow or hung process TestStopGrace starts from
// this test binary (fakeStopProcess, which never returns), and otherwise runs the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv(envFakeStop); mode != "" {
		fakeStopProcess(mode)
	}
	os.Exit(m.Run())
}

// fakeStopProcess waits for SIGTERM, then exits 0 after mode (a time.ParseDuration value) or,
// for "never", not at all (until SIGKILL); an unparsable mode exits 3 at SIGTERM. It writes the
// file envFakeReady names once it is waiting, and exits 4 when it cannot.
func fakeStopProcess(mode string) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	if err := os.WriteFile(os.Getenv(envFakeReady), nil, 0o644); err != nil {
		os.Exit(4)
	}
	<-ch
	if mode == "never" {
		select {} // until SIGKILL
	}
	d, err := time.ParseDuration(mode)
	if err != nil {
		os.Exit(3)
	}
	time.Sleep(d)
	os.Exit(0)
}

// TestStopGrace stops, through the deployment's own stop, an app and an actor host's daprd that
// each take 7 s to exit after SIGTERM (more than their own 5 s shutdown bound, less than their
// stated grace: 10 s and 40 s), and a daprd with --dapr-graceful-shutdown-seconds=1 that never exits:
// the first two are clean stops; the third is sent SIGKILL when its 6 s grace ends, reaped, and
// named in the teardown error.
func TestStopGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 7 s for slow processes")
	}
	d := newDeployment(t.TempDir(), build{}, nil, 3)
	env := append(os.Environ(), "GOCOVERDIR="+t.TempDir())
	ready := t.TempDir()
	fake := func(name, mode string, args []string, grace time.Duration) *process {
		argv := append([]string{"-test.run=^$", "--"}, args...) // TestMain plays the process; daprd's flags, unparsed
		p, err := d.start(t.Context(), name, os.Args[0], argv,
			append(env, envFakeStop+"="+mode, envFakeReady+"="+filepath.Join(ready, name)), grace)
		require.NoError(t, err)
		t.Cleanup(func() { // a test failed before stopAll: SIGKILL by its PID, and reap it
			if !p.exited() {
				_ = p.kill()
			}
		})
		return p
	}
	hostArgs := []string{"--placement-host-address", "127.0.0.1:1"}
	hungArgs := []string{"--dapr-graceful-shutdown-seconds=1"}
	app := fake("actorapp", "7s", nil, appStopGrace)
	host := fake("actorapp-daprd", "7s", hostArgs, daprdStopGrace(hostArgs))
	hung := fake("other-daprd", "never", hungArgs, daprdStopGrace(hungArgs))
	require.Eventually(t, func() bool {
		files, _ := os.ReadDir(ready)
		return len(files) == 3
	}, 60*time.Second, 20*time.Millisecond, "each fake process installs its SIGTERM handler")

	start := time.Now()
	err := d.stopAll()
	took := time.Since(start)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "stop other-daprd (pid ")
	assert.Contains(t, msg, "still running 6s after SIGTERM, sent SIGKILL")
	assert.NotContains(t, msg, "actorapp", "the 7 s exits are within their grace")
	assert.Equal(t, 1, strings.Count(msg, "stop "), msg)
	for _, p := range []*process{app, host, hung} {
		assert.True(t, p.exited(), "%s reaped", p.name)
	}
	assert.Nil(t, app.err, "exit 0 after SIGTERM")
	assert.Nil(t, host.err)
	assert.Equal(t, "signal SIGKILL", describeExit(hung.err))
	assert.GreaterOrEqual(t, took, 7*time.Second, "waited for the slow ones")
	assert.Less(t, took, 7*time.Second+killWait)
}
