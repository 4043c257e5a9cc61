package runner

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// TestMachineFingerprintFilled checks the fingerprint's host facts on this machine: MemTotal
// above 0 and the kernel release uname(2) gives.
func TestMachineFingerprintFilled(t *testing.T) {
	if m := hostMemoryBytes(); m < 1<<20 {
		t.Errorf("hostMemoryBytes = %d, want the host's MemTotal (at least 1 MiB)", m)
	}
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var release strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		release.WriteByte(byte(c))
	}
	if got := kernelRelease(); got == "" || got != release.String() {
		t.Errorf("kernelRelease = %q, want uname's %q", got, release.String())
	}
}

// The build information is read from a real Go binary (testdata/buildinfo, built here; a test
// binary records no dependencies): a module it links has the version go.mod requires and a
// go.sum hash, and its commit comes from the module cache's Origin when the cache has one, and
// not otherwise.
func TestReadDaprdBuild(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary with")
	}
	exe := filepath.Join(t.TempDir(), "buildinfo")
	// -buildvcs=false: built as make daprd builds daprd, from a module and not a checkout, so that
	// no vcs.revision is stamped (this repository's commit would be, in a git checkout).
	if out, err := exec.Command(goBin, "build", "-buildvcs=false", "-o", exe, "./testdata/buildinfo").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/buildinfo: %v\n%s", err, out)
	}
	const mod, version = "github.com/prometheus/procfs", "v0.23.0" // as go.mod requires it
	cache := t.TempDir()
	b, err := readDaprdBuild(exe, mod, cache)
	if err != nil {
		t.Fatal(err)
	}
	if b.Module != mod || b.ModuleVersion != version || !strings.HasPrefix(b.ModuleSum, "h1:") {
		t.Errorf("module = %s %s %s, want %s %s h1:...", b.Module, b.ModuleVersion, b.ModuleSum, mod, version)
	}
	if b.MainPackage == "" || !strings.HasPrefix(b.GoVersion, "go1.") || b.Path != exe {
		t.Errorf("main package %q, Go %q, path %q: want the test binary's", b.MainPackage, b.GoVersion, b.Path)
	}
	if b.Commit != "" || b.CommitSource != "" {
		t.Errorf("commit %q (%s) with an empty module cache, want none", b.Commit, b.CommitSource)
	}

	const hash = "3974797d4325124650f3a6c9bf220ba327f84e6c"
	dir := filepath.Join(cache, "cache", "download", "github.com", "prometheus", "procfs", "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	info := `{"Version":"v0.23.0","Origin":{"VCS":"git","URL":"https://github.com/prometheus/procfs","Hash":"` + hash + `","Ref":"refs/tags/v0.23.0"}}`
	if err := os.WriteFile(filepath.Join(dir, version+".info"), []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err = readDaprdBuild(exe, mod, cache)
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit != hash || b.CommitSource != "module cache origin of v0.23.0" {
		t.Errorf("commit %q (%s), want %s from the module cache", b.Commit, b.CommitSource, hash)
	}
	if len(b.ChangedModules) != 0 {
		t.Errorf("changed modules %v with no go.mod of procfs in the cache, want none", b.ChangedModules)
	}

	// A go.mod of procfs that requires golang.org/x/sys at v0.1.0, lower than this module builds
	// it at, and golang.org/x/sync replaced at the version built: x/sys alone is changed.
	var sys, sync string
	for _, d := range readDeps(t, exe) {
		switch d.Path {
		case "golang.org/x/sys":
			sys = d.Version
		case "golang.org/x/sync":
			sync = d.Version
		}
	}
	goMod := "module github.com/prometheus/procfs\n\nrequire golang.org/x/sys v0.1.0\n"
	if sync != "" {
		goMod += "require golang.org/x/sync v0.0.1\nreplace golang.org/x/sync => golang.org/x/sync " + sync + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, version+".mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err = readDaprdBuild(exe, mod, cache)
	if err != nil {
		t.Fatal(err)
	}
	want := []perf.ModuleChange{{Path: "golang.org/x/sys", Required: "v0.1.0", Built: sys}}
	if sys == "" || !reflect.DeepEqual(b.ChangedModules, want) {
		t.Errorf("changed modules %v, want %v", b.ChangedModules, want)
	}
	// The go.mod's own replace directive is what it asks for: x/sys replaced by the version built.
	goMod = "module github.com/prometheus/procfs\n\nrequire golang.org/x/sys v0.1.0\n\nreplace golang.org/x/sys v0.1.0 => golang.org/x/sys " + sys + "\n"
	if err := os.WriteFile(filepath.Join(dir, version+".mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err = readDaprdBuild(exe, mod, cache); err != nil {
		t.Fatal(err)
	}
	if len(b.ChangedModules) != 0 {
		t.Errorf("changed modules %v where the go.mod replaces x/sys by the version built, want none", b.ChangedModules)
	}

	notGo := filepath.Join(t.TempDir(), "daprd")
	if err := os.WriteFile(notGo, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := readDaprdBuild(notGo, mod, cache); err == nil || !strings.Contains(err.Error(), notGo) {
		t.Errorf("a file that is no Go binary: error %v, want one naming %s", err, notGo)
	}
}

// readDeps is the dependencies recorded in the Go binary at path.
func readDeps(t *testing.T, path string) []*debug.Module {
	t.Helper()
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bi.Deps
}

func TestEscapeModulePath(t *testing.T) {
	if got := escapeModulePath("github.com/BurntSushi/toml"); got != "github.com/!burnt!sushi/toml" {
		t.Errorf("escapeModulePath = %q", got)
	}
}

// A dependency built from another module than the one daprd's go.mod puts in its place names
// both modules; one built as required is left out.
func TestChangedModulesNameAReplacingModule(t *testing.T) {
	req := map[string]string{
		"github.com/apache/pulsar-client-go": moduleVersion("github.com/apache/pulsar-client-go", "github.com/twmb/pulsar-client-go", "v0.20.1"),
		"github.com/dapr/kit":                "v0.18.3",
		"github.com/dapr/durabletask-go":     "v0.12.4",
	}
	deps := []*debug.Module{
		{Path: "github.com/apache/pulsar-client-go", Version: "v0.18.0", Replace: &debug.Module{Path: "github.com/apache/pulsar-client-go", Version: "v0.19.0"}},
		{Path: "github.com/dapr/durabletask-go", Version: "v0.12.4", Replace: &debug.Module{Path: "github.com/dapr/durabletask-go", Version: "v0.12.1"}},
		{Path: "github.com/dapr/kit", Version: "v0.18.3"},
		{Path: "github.com/other/module", Version: "v1.0.0"},
	}
	want := []perf.ModuleChange{
		{Path: "github.com/apache/pulsar-client-go", Required: "github.com/twmb/pulsar-client-go v0.20.1", Built: "v0.19.0"},
		{Path: "github.com/dapr/durabletask-go", Required: "v0.12.4", Built: "v0.12.1"},
	}
	if got := changedModules(req, deps); !reflect.DeepEqual(got, want) {
		t.Errorf("changedModules = %v, want %v", got, want)
	}
}
