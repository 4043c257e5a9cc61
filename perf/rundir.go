package perf

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// RunsDir is the folder under the report root that holds one folder per run id.
const RunsDir = "runs"

// RunDir is the folder of run id under the report root: <root>/runs/<id>.
func RunDir(root, id string) string { return filepath.Join(root, RunsDir, id) }

// RunPath is the first name a run tries for r under root:
// <root>/runs/<run id>/<test>/<transport>/result.json.
func (r *Report) RunPath(root string) string {
	return filepath.Join(RunDir(root, r.RunID), r.Test, string(r.Transport), "result.json")
}

// Command is how a run was started, recorded in its result file.
type Command struct {
	// Invocation is DAPR_PERF_COMMAND as given ("make perf"); empty when unset.
	Invocation string `json:"invocation,omitempty"`
	// Args are the test binary's command line, the binary first.
	Args []string `json:"args"`
	// Dir is the working directory.
	Dir string `json:"dir"`
	// Env holds every DAPR_* and DAPRD_* variable that was set, and CI; values of names
	// containing PASSWORD, TOKEN or SECRET are replaced by "<redacted>".
	Env map[string]string `json:"env,omitempty"`
}

// interruptHooks are what Interrupted runs, in the order registered.
var interruptHooks struct {
	sync.Mutex
	fns []func(os.Signal)
}

// OnInterrupt registers fn to run when a platform's signal handler calls Interrupted: the
// runner registers the writing of its open result files, so that a run cut short by a signal
// keeps what it measured.
func OnInterrupt(fn func(os.Signal)) {
	interruptHooks.Lock()
	defer interruptHooks.Unlock()
	interruptHooks.fns = append(interruptHooks.fns, fn)
}

// Interrupted runs every hook registered with OnInterrupt for sig. A platform's signal handler
// calls it before stopping its processes (package local does); without one the process dies
// of the signal and the result files keep their last phase, also marked incomplete.
func Interrupted(sig os.Signal) {
	interruptHooks.Lock()
	fns := slices.Clone(interruptHooks.fns)
	interruptHooks.Unlock()
	for _, fn := range fns {
		fn(sig)
	}
}
