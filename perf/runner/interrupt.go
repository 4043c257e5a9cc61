package runner

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// interrupt marks f as interrupted by sig and rewrites it at once with the phases completed so
// far, unless its final write is done or a signal already marked it. It is the hook the session
// hands every platform it starts a deployment on (perf.WithInterruptHook), which the platform's
// signal handler calls before it stops the processes; a run with several deployments live calls
// it once for each, and only the first rewrites the file.
func (f *runFile) interrupt(sig os.Signal) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done || f.last == nil || f.interrupted != "" {
		return
	}
	f.interrupted = signalName(sig)
	last := *f.last
	last.Incomplete, last.IncompleteReason = false, "" // snapshot marks it anew
	if err := f.replace(&last, false); err != nil {
		fmt.Fprintf(os.Stderr, "perf: interrupted: %v\n", err)
		return
	}
	fmt.Fprintf(os.Stderr, "perf: interrupted by %v: partial result kept in %s\n", sig, f.path)
}

// signalName is "SIGINT" for syscall.SIGINT; other signals as they print.
func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if name := unix.SignalName(s); name != "" {
			return name
		}
	}
	return sig.String()
}
