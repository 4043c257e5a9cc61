package runner

import (
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"unicode"

	"github.com/prometheus/procfs"
	"golang.org/x/mod/modfile"

	"github.com/daprperf/daprperf/perf"
)

// hostMemoryBytes is MemTotal from /proc/meminfo, in bytes (0 when unknown).
func hostMemoryBytes() uint64 {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0
	}
	mi, err := fs.Meminfo()
	if err != nil || mi.MemTotalBytes == nil {
		return 0
	}
	return *mi.MemTotalBytes
}

// kernelRelease is the running kernel's release, as uname -r prints it, from
// /proc/sys/kernel/osrelease ("" when unknown).
func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// daprdModule is the module that holds daprd's main package.
const daprdModule = "github.com/dapr/dapr"

// readDaprdBuild reads how the binary at path was built (perf.DaprdBuild) from the build
// information Go stores in it. module is the module whose version and commit are wanted
// (daprdModule for daprd); modCache is the go command's module cache (moduleCache), where
// the commit of a version built from the module proxy is looked up; "" skips that lookup. It
// is an error naming path when the file cannot be read or holds no Go build information.
func readDaprdBuild(path, module, modCache string) (*perf.DaprdBuild, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("daprd build information of %s: %w", path, err)
	}
	b := &perf.DaprdBuild{Path: path, MainPackage: bi.Path, GoVersion: bi.GoVersion}
	mod := &bi.Main
	if mod.Path != module {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == module {
				mod = d
				break
			}
		}
	}
	if mod != nil {
		if mod.Replace != nil { // a replaced module is built from its replacement
			mod = mod.Replace
		}
		b.Module, b.ModuleVersion, b.ModuleSum = mod.Path, mod.Version, mod.Sum
	}
	var revision string
	for _, s := range bi.Settings {
		b.Settings = append(b.Settings, s.Key+"="+s.Value)
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			b.VCSModified = s.Value == "true"
		}
	}
	switch {
	case revision != "":
		b.Commit, b.CommitSource = revision, "vcs.revision"
	case modCache != "" && b.Module != "" && strings.HasPrefix(b.ModuleVersion, "v"):
		if c, err := originCommit(modCache, b.Module, b.ModuleVersion); err == nil && c != "" {
			b.Commit, b.CommitSource = c, "module cache origin of "+b.ModuleVersion
		}
		if req, err := requiredVersions(modCache, b.Module, b.ModuleVersion); err == nil {
			b.ChangedModules = changedModules(req, bi.Deps)
		}
	}
	return b, nil
}

// requiredVersions reads the go.mod of version of module from the module cache
// (<modCache>/cache/download/<escaped module>/@v/<version>.mod, which the go command writes on
// download) and returns what it asks for each module it requires, by module path: the version
// its require line names, or the module and version its own replace directive puts in its
// place (build-daprd.sh repeats those), as moduleVersion formats them.
func requiredVersions(modCache, module, version string) (map[string]string, error) {
	p := filepath.Join(modCache, "cache", "download", filepath.FromSlash(escapeModulePath(module)), "@v", escapeModulePath(version)+".mod")
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	f, err := modfile.Parse(p, raw, nil) // not ParseLax, which skips replace directives
	if err != nil {
		return nil, err
	}
	req := make(map[string]string, len(f.Require))
	versions := make(map[string]string, len(f.Require))
	for _, r := range f.Require {
		req[r.Mod.Path], versions[r.Mod.Path] = r.Mod.Version, r.Mod.Version
	}
	for _, r := range f.Replace {
		if v, ok := versions[r.Old.Path]; ok && r.New.Version != "" && (r.Old.Version == "" || r.Old.Version == v) {
			req[r.Old.Path] = moduleVersion(r.Old.Path, r.New.Path, r.New.Version)
		}
	}
	return req, nil
}

// moduleVersion writes what stands for the module path: its version, or the module and version
// of another module put in its place ("github.com/twmb/pulsar-client-go v0.20.1-...").
func moduleVersion(path, replacement, version string) string {
	if replacement == path {
		return version
	}
	return replacement + " " + version
}

// changedModules are the deps built at another module or version than req names for them (a
// replaced dep is built from its replacement), sorted by path as deps are.
func changedModules(req map[string]string, deps []*debug.Module) []perf.ModuleChange {
	var out []perf.ModuleChange
	for _, d := range deps {
		want, ok := req[d.Path]
		if !ok {
			continue
		}
		built := d.Version
		if d.Replace != nil {
			built = moduleVersion(d.Path, d.Replace.Path, d.Replace.Version)
		}
		if built != want {
			out = append(out, perf.ModuleChange{Path: d.Path, Required: want, Built: built})
		}
	}
	return out
}

// originCommit reads the commit that version of module named when the module proxy served it:
// Origin.Hash of <modCache>/cache/download/<escaped module>/@v/<version>.info, which the go
// command writes on download.
func originCommit(modCache, module, version string) (string, error) {
	p := filepath.Join(modCache, "cache", "download", filepath.FromSlash(escapeModulePath(module)), "@v", escapeModulePath(version)+".info")
	raw, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	var info struct {
		Origin *struct {
			VCS, Hash, Ref string
		}
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if info.Origin == nil || info.Origin.VCS != "git" {
		return "", errors.New(p + ": no git origin")
	}
	return info.Origin.Hash, nil
}

// escapeModulePath is the module cache's case encoding of a module path or version: each
// upper-case letter becomes "!" and its lower case (golang.org/x/mod/module.EscapePath,
// without its validity checks).
func escapeModulePath(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// moduleCache is the go command's module cache as `go env GOMODCACHE` resolves it without
// running go: $GOMODCACHE, else the first entry of $GOPATH followed by /pkg/mod, else
// $HOME/go/pkg/mod; "" when none can be named.
func moduleCache() string {
	if c := os.Getenv("GOMODCACHE"); c != "" {
		return c
	}
	if gp := filepath.SplitList(os.Getenv("GOPATH")); len(gp) > 0 && gp[0] != "" {
		return filepath.Join(gp[0], "pkg", "mod")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}
