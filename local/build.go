package local

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/daprperf/daprperf/perf"
)

// builds remembers each app build of this test binary, keyed by repo root and kind.
var builds = struct {
	sync.Mutex
	m map[string]*appBuild
}{m: map[string]*appBuild{}}

// appBuild is one kind's build, run once per test binary. It is a sync.Once that does not
// keep a build cut short by its caller's context: the next caller tries again.
type appBuild struct {
	mu   sync.Mutex
	done bool
	path string
	err  error
}

// appBinary returns <root>/.bin/<kind>, built with `go build` from ./apps/<kind>/cmd/<kind>
// the first time a test binary asks for it (go's build cache makes a rebuild of unchanged
// sources cheap). A failed build is not retried, unless ctx ended it.
func appBinary(ctx context.Context, root string, kind perf.AppKind) (string, error) {
	key := root + "\x00" + string(kind)
	builds.Lock()
	b, ok := builds.m[key]
	if !ok {
		b = &appBuild{}
		builds.m[key] = b
	}
	builds.Unlock()

	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return b.path, b.err
	}
	path, err := buildApp(ctx, root, kind)
	if err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("%w (%w)", err, context.Cause(ctx))
	}
	b.done, b.path, b.err = true, path, err
	return path, err
}

// buildApp runs `go build -o <root>/.bin/<kind> ./apps/<kind>/cmd/<kind>` in root.
func buildApp(ctx context.Context, root string, kind perf.AppKind) (string, error) {
	out := filepath.Join(root, ".bin", string(kind))
	pkg := "./" + filepath.ToSlash(filepath.Join("apps", string(kind), "cmd", string(kind)))
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", fmt.Errorf("build %s: %w", kind, err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = os.Environ()
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: go build -o %s %s (in %s): %w\n%s",
			kind, out, pkg, root, err, bytes.TrimSpace(output.Bytes()))
	}
	return out, nil
}
