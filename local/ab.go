package local

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// EnvDaprdB names a second daprd build for an A/B run: a path to a binary, or a version
// ("v1.16.5"), meaning <repo root>/.daprd/<version>/daprd (make perf builds it when missing).
// With it, every sidecar gets a twin of build B on its own ports, beside the same app, and
// runner.Run interleaves rounds of the two builds (perf.SideB).
const EnvDaprdB = "DAPR_PERF_DAPRD_B"

// versionPattern is a daprd release tag, with or without its "v".
var versionPattern = regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// buildB resolves the second build: named (WithDaprdB) or from DAPR_PERF_DAPRD_B; nil when
// neither is set. The binary must exist, be executable and tell its version.
func buildB(env perf.Env, named, root string) (*build, error) {
	raw, from := named, "WithDaprdB"
	if raw == "" {
		raw, from = perf.Val(env.DaprdB), EnvDaprdB
	}
	if raw == "" {
		return nil, nil
	}
	path := raw
	if versionPattern.MatchString(raw) && !strings.ContainsRune(raw, filepath.Separator) {
		path = filepath.Join(root, ".daprd", normalizeVersion(raw), "daprd")
		if err := checkExecutable(path); err != nil {
			return nil, fmt.Errorf("%s=%s: %w: build it with `make daprd DAPR_VERSION=%s` (make perf does when %s names a version), or name a binary",
				from, raw, err, normalizeVersion(raw), EnvDaprdB)
		}
	} else if err := checkExecutable(path); err != nil {
		return nil, fmt.Errorf("%s=%s: must be a daprd binary or a version such as v1.16.5: %w", from, raw, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", from, raw, err)
	}
	version, err := daprdVersion(context.Background(), abs)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: daprd version: %w", from, raw, err)
	}
	return &build{path: abs, version: version}, nil
}

// sidecarNameB is the process name of app's build-B daprd: "<app>-daprd-b".
func sidecarNameB(app string) string { return perf.SidecarName(app) + "-b" }

// SideB returns the deployment seen through build B's sidecars (perf.SideBDeployment): the
// same apps; SidecarHTTP, SidecarGRPC, SidecarMetrics and SidecarProfile are build B's, and
// Usage reports B's sidecars under the names of A's ("<app>-daprd"), so that a phase through B
// is recorded with the same roles. Exits are the whole deployment's (B's sidecars appear as
// "<app>-daprd-b"). ok is false when the platform runs no second build.
func (d *Deployment) SideB() (perf.Deployment, bool) {
	if d.b == nil {
		return nil, false
	}
	return sideB{d}, true
}

// sideB is a Deployment's build-B view; see Deployment.SideB.
type sideB struct{ d *Deployment }

func (s sideB) Endpoint(app string, e perf.Endpoint) (string, error) {
	return s.d.endpoint(app, e, true)
}
func (s sideB) Processes() []string                            { return s.d.Processes() }
func (s sideB) Exits(ctx context.Context) ([]perf.Exit, error) { return s.d.Exits(ctx) }
func (s sideB) DaprVersion() string                            { return s.d.b.version }
func (s sideB) DaprdPath() string                              { return s.d.b.path }
func (s sideB) TesterToken(app string) (string, error)         { return s.d.TesterToken(app) }

// Usage is Deployment.Usage with build B's sidecars in place of A's.
func (s sideB) Usage(ctx context.Context) (map[string]perf.Usage, error) {
	all, err := s.d.Usage(ctx)
	out := make(map[string]perf.Usage, len(all))
	for _, da := range s.d.apps {
		if u, ok := all[da.app.Name]; ok {
			out[da.app.Name] = u
		}
		if da.daprdB != nil {
			if u, ok := all[da.daprdB.name]; ok {
				out[perf.SidecarName(da.app.Name)] = u
			}
		}
	}
	return out, err
}
