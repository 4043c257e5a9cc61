package runner

import (
	"fmt"
	"os"
	"syscall"

	"github.com/daprperf/daprperf/perf"

	"golang.org/x/sys/unix"
)

func init() { perf.OnInterrupt(interruptRunFiles) }

// interruptRunFiles marks every run file of this process that has not had its final write as
// interrupted by sig, and writes it at once with the phases completed so far (Interrupted).
func interruptRunFiles(sig os.Signal) {
	activeFiles.Lock()
	files := make([]*runFile, 0, len(activeFiles.m))
	for f := range activeFiles.m {
		files = append(files, f)
	}
	activeFiles.Unlock()
	for _, f := range files {
		f.mu.Lock()
		if !f.done && f.last != nil {
			f.interrupted = signalName(sig)
			last := *f.last
			last.Incomplete, last.IncompleteReason = false, "" // snapshot marks it anew
			if err := f.replace(&last, false); err != nil {
				fmt.Fprintf(os.Stderr, "perf: interrupted: %v\n", err)
			} else {
				fmt.Fprintf(os.Stderr, "perf: interrupted by %v: partial result kept in %s\n", sig, f.path)
			}
		}
		f.mu.Unlock()
	}
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
