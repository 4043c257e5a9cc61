package perf

import (
	"bytes"
	"context"
	"strings"
)

// logsDirKey is the context key of WithLogsDir.
type logsDirKey struct{}

// WithLogsDir returns ctx carrying dir, the folder where a platform keeps a deployment's logs
// when its test fails. The runner passes it to Platform.Start: <result dir>/logs/<name>, beside
// the run's result file, so a failed run's logs stay with its figures and nothing is left in
// the system's temporary folder.
func WithLogsDir(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, logsDirKey{}, dir)
}

// LogsDir is the folder WithLogsDir put in ctx, or "" when none was given. A platform given
// none keeps no logs of a failed test: it writes the last lines of each into the test's output
// (LogTailLines) and removes them with the rest of the deployment.
func LogsDir(ctx context.Context) string {
	dir, _ := ctx.Value(logsDirKey{}).(string)
	return dir
}

// LogTailLines is how many of a log's last lines a platform writes into a failed test's output:
// enough for a process's fatal line and the few before it.
const LogTailLines = 20

// LastLines is the last n lines of b, without its final newline: all of b when it has at most n.
func LastLines(b []byte, n int) string {
	b = bytes.TrimRight(b, "\n")
	i := len(b)
	for range n {
		j := bytes.LastIndexByte(b[:i], '\n')
		if j < 0 {
			return string(b)
		}
		i = j
	}
	return strings.TrimPrefix(string(b[i:]), "\n")
}
