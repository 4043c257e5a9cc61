package local

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// holdTimer holds a goroutine for a set time, to within the kernel's high-resolution timer (on
// a KVM guest with kvm-clock, about 0.1 ms late; reports/measurements.md). It is a timerfd(2)
// read through the Go runtime's poller, so the goroutine parks as on any socket read:
//   - not time.Sleep: the runtime waits for its timers in epoll_pwait, whose timeout is whole
//     milliseconds, so a time.Sleep under a millisecond lasts about one (1.1 ms for any sleep
//     of 100 µs to 1 ms there);
//   - not nanosleep(2): that blocks the goroutine's thread with its P, so that under load the
//     other goroutines of the process wait for the runtime to take the P back, and a hold of
//     0.78 ms added about 1.6 ms to a request.
//
// One goroutine uses a holdTimer at a time; Close releases its file descriptor.
type holdTimer struct {
	fd int
	f  *os.File
}

// newHoldTimer opens a non-blocking CLOCK_MONOTONIC timerfd. Errors are the kernel's.
func newHoldTimer() (*holdTimer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd_create: %w", err)
	}
	return &holdTimer{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}, nil
}

// hold returns d after it was called, or later; at once for d <= 0. Errors are the kernel's
// (a closed timer's, say).
func (t *holdTimer) hold(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if err := unix.TimerfdSettime(t.fd, 0, &unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}, nil); err != nil {
		return fmt.Errorf("timerfd_settime: %w", err)
	}
	var expirations [8]byte // the count of expirations, read to rearm
	_, err := t.f.Read(expirations[:])
	return err
}

// Close releases the timer.
func (t *holdTimer) Close() error { return t.f.Close() }
