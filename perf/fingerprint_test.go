package perf_test

import (
	"encoding/json"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// An environment written before daprperfCommit keeps its commit, read from gitCommit; one
// written after it reads its own name, and writes only that one.
func TestEnvironmentCommitNames(t *testing.T) {
	var old perf.Environment
	if err := json.Unmarshal([]byte(`{"daprVersion":"1.16.5","gitCommit":"abc123","cpus":2}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.DaprperfCommit != "abc123" || old.DaprVersion != "1.16.5" || old.CPUs != 2 {
		t.Errorf("old file: %+v, want daprperfCommit abc123 from gitCommit", old)
	}
	var cur perf.Environment
	if err := json.Unmarshal([]byte(`{"daprperfCommit":"def456","hostMemoryBytes":8589934592,"kernelRelease":"6.8.0"}`), &cur); err != nil {
		t.Fatal(err)
	}
	if cur.DaprperfCommit != "def456" || cur.HostMemoryBytes != 8589934592 || cur.KernelRelease != "6.8.0" {
		t.Errorf("new file: %+v", cur)
	}
	b, err := json.Marshal(cur)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	if _, ok := fields["gitCommit"]; ok || fields["daprperfCommit"] != "def456" {
		t.Errorf("written as %s: want daprperfCommit and no gitCommit", b)
	}
}

// The fingerprint's hash is the same for the same four facts and differs when any one does; a
// fingerprint without memory or kernel is not complete.
func TestFingerprint(t *testing.T) {
	base := perf.Environment{CPUModel: "Intel(R) Xeon(R) Processor", CPUs: 2, HostMemoryBytes: 8 << 30, KernelRelease: "6.8.0-45-generic"}
	f := base.Fingerprint()
	if len(f.Hash) != 12 || !f.Complete() {
		t.Fatalf("fingerprint %+v: want a 12-digit hash, complete", f)
	}
	again := base
	again.DaprVersion, again.GoVersion = "1.17.5", "go1.26.8" // not part of the machine
	if again.Fingerprint().Hash != f.Hash {
		t.Errorf("the daprd and Go versions changed the machine's hash")
	}
	for name, change := range map[string]func(*perf.Environment){
		"CPU model": func(e *perf.Environment) { e.CPUModel = "AMD EPYC 7763" },
		"CPUs":      func(e *perf.Environment) { e.CPUs = 4 },
		"memory":    func(e *perf.Environment) { e.HostMemoryBytes = 16 << 30 },
		"kernel":    func(e *perf.Environment) { e.KernelRelease = "6.11.0" },
	} {
		e := base
		change(&e)
		if e.Fingerprint().Hash == f.Hash {
			t.Errorf("another %s gives the same hash %s", name, f.Hash)
		}
	}
	old := base
	old.HostMemoryBytes, old.KernelRelease = 0, ""
	if old.Fingerprint().Complete() || old.Fingerprint().Hash == f.Hash {
		t.Errorf("a fingerprint without memory and kernel: %+v, want incomplete and its own hash", old.Fingerprint())
	}
}
