package local

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// Environment variables that choose the daprd binary; see Daprd.
const (
	// EnvDaprd names a daprd binary to use instead of a built or installed one.
	EnvDaprd = "DAPR_PERF_DAPRD"
	// EnvDaprVersion overrides the version pinned in the Makefile ("v1.17.5") when looking
	// for a built daprd under <repo root>/.daprd/<version>/daprd.
	EnvDaprVersion = "DAPR_VERSION"
)

// ErrDaprdNotFound is wrapped by the error of Daprd (and New) when no daprd binary exists
// where Daprd looks and DAPR_PERF_DAPRD is not set.
var ErrDaprdNotFound = errors.New("daprd not found")

// versionTimeout bounds `daprd --version`.
const versionTimeout = 10 * time.Second

// Daprd returns the path of the daprd binary the platform runs under env, the first of:
//
//  1. $DAPR_PERF_DAPRD: it must name an executable file, or Daprd fails naming the variable;
//  2. <repo root>/.daprd/<version>/daprd, where version is $DAPR_VERSION or else the value of
//     the line "DAPR_VERSION ?= v1.18.3" in <repo root>/Makefile (what `make daprd` builds);
//  3. ~/.dapr/bin/daprd (where `dapr init --slim` installs it).
//
// The repo root is the nearest directory, from the working directory up, whose go.mod
// declares module perf.ModulePath. When none of them exists the error says to run `make daprd`.
func Daprd(env perf.Env) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find daprd: %w", err)
	}
	home, _ := os.UserHomeDir() // "" only skips ~/.dapr/bin
	return findDaprd(envLookup(map[string]*string{EnvDaprd: env.Daprd, EnvDaprVersion: env.DaprVersion}), wd, home)
}

// envLookup answers findDaprd's lookups from the run's variables: set and not empty.
func envLookup(vars map[string]*string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v := perf.Val(vars[name])
		return v, v != ""
	}
}

// findDaprd is Daprd with its inputs made explicit, for tests.
func findDaprd(lookupEnv func(string) (string, bool), wd, home string) (string, error) {
	if p, ok := lookupEnv(EnvDaprd); ok && p != "" {
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvDaprd, p, err)
		}
		return p, nil
	}
	var tried []string
	built := "<repo root>/.daprd/<version>/daprd"
	if root, err := perf.RepoRootFrom(wd); err == nil {
		version, ok := lookupEnv(EnvDaprVersion)
		if !ok || version == "" {
			version, _ = makefileVersion(filepath.Join(root, "Makefile"))
		}
		if version != "" {
			built = filepath.Join(root, ".daprd", normalizeVersion(version), "daprd")
			if checkExecutable(built) == nil {
				return built, nil
			}
			tried = append(tried, built)
		} else {
			tried = append(tried, fmt.Sprintf("%s/.daprd/<version>/daprd (no %s and no Makefile pin)", root, EnvDaprVersion))
		}
	}
	if home != "" {
		slim := filepath.Join(home, ".dapr", "bin", "daprd")
		if checkExecutable(slim) == nil {
			return slim, nil
		}
		tried = append(tried, slim)
	}
	return "", fmt.Errorf("%w (looked at %s): run `make daprd` to build %s, or set %s=/path/to/daprd",
		ErrDaprdNotFound, strings.Join(tried, ", "), built, EnvDaprd)
}

// checkExecutable returns an error unless path is a regular file with an execute bit set.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err // names the path: "stat /x/daprd: no such file or directory"
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (mode %v)", path, fi.Mode())
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// normalizeVersion returns v with a leading "v", the form of the .daprd folder names.
func normalizeVersion(v string) string {
	if strings.HasPrefix(v, "v") {
		return v
	}
	return "v" + v
}

// makefileVar matches the line that pins the Dapr version in the Makefile.
var makefileVar = regexp.MustCompile(`^\s*DAPR_VERSION\s*[?:]?=\s*(\S+)`)

// makefileVersion reads the value of "DAPR_VERSION ?= vX.Y.Z" from the Makefile at path.
func makefileVersion(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if m := makefileVar.FindStringSubmatch(sc.Text()); m != nil {
			return m[1], nil
		}
	}
	return "", fmt.Errorf("%s: no DAPR_VERSION line", path)
}

// daprdVersion runs `daprd --version` and returns what it prints ("1.17.5").
func daprdVersion(ctx context.Context, daprd string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, daprd, "--version")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s --version: %w: %s", daprd, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var last string
	for line := range strings.Lines(stdout.String()) {
		if s := strings.TrimSpace(line); s != "" {
			last = s
		}
	}
	if last == "" {
		return "", errors.New(daprd + " --version: printed nothing")
	}
	return last, nil
}
