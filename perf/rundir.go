package perf

import (
	"path/filepath"
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
