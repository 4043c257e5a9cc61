package report

import (
	"fmt"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// ChangedModulesText says which of daprd's dependencies were built at another version than its
// go.mod requires (perf.DaprdBuild.ChangedModules), for a summary line or a table cell:
// "github.com/dapr/durabletask-go v0.12.4 → v0.12.1". "" for a nil build or none changed.
func ChangedModulesText(b *perf.DaprdBuild) string {
	if b == nil || len(b.ChangedModules) == 0 {
		return ""
	}
	parts := make([]string, len(b.ChangedModules))
	for i, m := range b.ChangedModules {
		parts[i] = fmt.Sprintf("%s %s → %s", m.Path, m.Required, m.Built)
	}
	return strings.Join(parts, ", ")
}
