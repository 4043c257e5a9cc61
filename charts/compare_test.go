package charts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
)

func TestBadInput(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(reportsFixtures, httpDir, resultFile))
	if err != nil {
		t.Fatal(err)
	}
	schema3 := bytes.Replace(good, []byte(`"schema": 2,`), []byte(`"schema": 3,`), 1)
	if bytes.Equal(schema3, good) {
		t.Fatal("fixture has no schema field to change")
	}
	for _, tc := range []struct {
		name, content, want string
	}{
		{"malformed", `{"schema": 1, "test": `, "malformed"},
		{"schema 3", string(schema3), "schema 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fixtureTree(t, reportsFixtures)
			bad := filepath.Join(root, "v1.17.5", "broken", "http", resultFile)
			if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bad, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := generate(root, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %s and saying %q", err, bad, tc.want)
			}
			// Nothing is written when a file is bad, not even for the good ones.
			if _, err := os.Stat(filepath.Join(root, httpDir, "README.md")); !os.IsNotExist(err) {
				t.Errorf("README written despite a bad result file (stat: %v)", err)
			}
		})
	}
	t.Run("missing directory", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope")
		err := generate(missing, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), missing) {
			t.Fatalf("error %v, want one naming %s", err, missing)
		}
	})
	t.Run("no result files", func(t *testing.T) {
		empty := t.TempDir()
		err := generate(empty, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), empty) {
			t.Fatalf("error %v, want one naming %s", err, empty)
		}
	})
	t.Run("missing version", func(t *testing.T) {
		root := fixtureTree(t, compareFixtures)
		opts := defaultCompareOptions()
		opts.Reports = root
		code, err := compare(opts, "v1.16.5", "v9.9.9", &bytes.Buffer{})
		if want := filepath.Join(root, "v9.9.9"); code != exitBadInput || err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one naming %s", err, want)
		}
	})
}

func TestCompare(t *testing.T) {
	root := fixtureTree(t, compareFixtures)
	var out bytes.Buffer
	opts := defaultCompareOptions()
	opts.Reports, opts.Out = root, filepath.Join(root, "README.md")
	code, err := compare(opts, "v1.16.5", "v1.17.5", &out)
	if err != nil || code != exitNoRegression {
		t.Fatalf("compare: exit %d, %v", code, err)
	}
	md := readFile(t, filepath.Join(root, "README.md"))
	golden(t, "compare.golden.md", md)

	// 3 rounds against 3: the Mann-Whitney U cannot go below 2/C(6,3) = 0.1, so no 99 %
	// interval exists and no change can be called regressed, not even +20 % with the rounds
	// fully apart: undecided, its widest interval shown at 90 %. Figures equal in every round
	// are same: their widest interval, [0, 0] at exactly 90 %, is within the margin.
	grpc := row(t, md, "service_invocation/grpc", "overhead p90")
	assertCells(t, grpc, "overhead p90", "+1.000 ms", "+1.200 ms", "+20.0 %", "[+5.0 %, +35.0 %] 90.0 % (widest)", "p=0.100 n=3+3", perf.VerdictUndecided)
	http := row(t, md, "service_invocation/http", "overhead p90")
	assertCell(t, http, 3, "+5.0 %")
	assertCell(t, http, 6, perf.VerdictUndecided)
	single := row(t, md, "single_run/http", "overhead p90")
	assertCell(t, single, 3, "+10.0 %")
	assertCell(t, single, 5, "p=1.000 n=1+1")
	assertCell(t, single, 6, perf.VerdictUndecided)
	assertCells(t, row(t, md, "service_invocation/grpc", "callee sidecar CPU"),
		"callee sidecar CPU", "200 mCPU", "220 mCPU", "+10.0 %", "[+10.0 %, +10.0 %] 90.0 % (widest)", "p=0.100 n=3+3", perf.VerdictUndecided)
	assertCells(t, row(t, md, "service_invocation/grpc", "caller sidecar memory"),
		"caller sidecar memory", "36.0 MiB", "36.0 MiB", "+0.0 %", "[+0.0 %, +0.0 %] 90.0 % (widest)", "p=1.000 n=3+3", perf.VerdictSame)
	if !strings.Contains(md, "No gating figure regressed (99 % interval, minimum change 5 %, margin ± 5 %). 30 figures undecided") {
		t.Errorf("no verdict line in:\n%s", md)
	}

	chart := filepath.Join(root, "compare-v1.16.5-v1.17.5.png")
	if !strings.Contains(out.String(), chart) {
		t.Errorf("output %q does not name the chart", out.String())
	}
	if !strings.Contains(md, "](compare-v1.16.5-v1.17.5.png)") {
		t.Error("README does not embed the chart")
	}
	// 3 scenarios × p50/p90/p99.
	assertPNG(t, chart, 90*9+160, chartHeight)

	c, err := loadComparison(opts, "v1.16.5", "v1.17.5")
	if err != nil {
		t.Fatal(err)
	}
	fig, err := compareChart(c)
	if err != nil {
		t.Fatal(err)
	}
	// Two scenarios have intervals in both versions: 2 × 3 bars per version.
	eb := errorBars(fig)
	if len(eb) != 2 || len(eb[0].YErrors) != 6 || len(eb[1].YErrors) != 6 {
		t.Errorf("compare chart interval plotters %v, want 2 of 6 bars", eb)
	}
}

func TestCommandLine(t *testing.T) {
	root := fixtureTree(t, compareFixtures)
	out := filepath.Join(t.TempDir(), "cmp", "COMPARE.md")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"-reports", root, "compare", "-out", out, "v1.16.5", "v1.17.5"}, &stdout, &stderr); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr.String())
	}
	md := readFile(t, out)
	// Links to the scenarios (their result files: no README is drawn yet) are relative to the
	// output file.
	rel, _ := filepath.Rel(filepath.Dir(out), filepath.Join(root, "v1.16.5", "service_invocation", "grpc", "result.json"))
	if !strings.Contains(md, "[v1.16.5]("+filepath.ToSlash(rel)+")") {
		t.Errorf("no link to %s in:\n%s", rel, md)
	}
	assertPNG(t, filepath.Join(filepath.Dir(out), "compare-v1.16.5-v1.17.5.png"), 90*9+160, chartHeight)

	if code := Run([]string{"-reports", root}, &stdout, &stderr); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(root, "v1.17.5", "README.md")); err != nil {
		t.Error(err)
	}

	for _, args := range [][]string{{"frobnicate"}, {"compare", "a", "b", "c"}, {"-nope"}, {"compare", "-nope", "a", "b"}} {
		stderr.Reset()
		if code := Run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if !strings.Contains(stderr.String(), "usage:") {
			t.Errorf("%q: no usage in %q", args, stderr.String())
		}
	}
	stderr.Reset()
	if code := Run([]string{"-reports", filepath.Join(root, "nope")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "nope") {
		t.Errorf("missing reports: exit %d, stderr %q", code, stderr.String())
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if got, ok := phaseQuantile(&perf.Report{}, perf.PhaseMain, 50); ok || got != 0 {
		t.Errorf("no results: %v, %v", got, ok)
	}
}

func TestGrowthComparisonSetsVerdictsSideBySide(t *testing.T) {
	g := growthReport().Growth
	var b strings.Builder
	writeGrowthComparison(&b, "v1.16.5", "v1.17.5", g, g)
	out := b.String()
	for _, want := range []string{
		"| variant | sidecar | v1.16.5 slope | v1.16.5 verdict | v1.17.5 slope | v1.17.5 verdict |",
		"| unique | caller-sidecar | 6997 | growing | 6997 | growing |",
		"| fixed | callee-sidecar |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("growth comparison lacks %q:\n%s", want, out)
		}
	}
}

func TestWrapTitle(t *testing.T) {
	got := wrapTitle("service_invocation over gRPC: sidecar overhead per percentile, 3 rounds, median and bootstrap interval (older result file)", 60)
	// Broken after the last ", " or ": " that fits.
	want := "service_invocation over gRPC:\nsidecar overhead per percentile, 3 rounds,\nmedian and bootstrap interval (older result file)"
	if got != want {
		t.Errorf("wrapTitle:\n%s\nwant\n%s", got, want)
	}
	if got := wrapTitle("short\nlines", 60); got != "short\nlines" {
		t.Errorf("short lines changed: %q", got)
	}
}

// writeHeapPair writes two heap profiles of this process to dir, the second after allocating
// with a function of its own, and returns their names (for SidecarProfiles.Files).
func writeHeapPair(t *testing.T, dir string, alloc func()) map[string]string {
	t.Helper()
	write := func(name string) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	write("d.heap-start.pb.gz")
	alloc()
	write("d.heap-end.pb.gz")
	return map[string]string{"heap-start": "d.heap-start.pb.gz", "heap-end": "d.heap-end.pb.gz"}
}

var profileSink [][]byte

//go:noinline
func allocateInA() {
	for range 400 {
		profileSink = append(profileSink, make([]byte, 64<<10))
	}
}

//go:noinline
func allocateInB() {
	for range 400 {
		profileSink = append(profileSink, make([]byte, 64<<10))
	}
}

// With profiles on both sides, compare adds each role's profile difference under the
// scenario's table: here the bytes allocated moved from one function to another.
func TestCompareProfiles(t *testing.T) {
	root := fixtureTree(t, compareFixtures)
	for v, alloc := range map[string]func(){"v1.16.5": allocateInA, "v1.17.5": allocateInB} {
		dir := filepath.Join(root, v, "service_invocation", "http")
		files := writeHeapPair(t, dir, alloc)
		path := filepath.Join(dir, "result.json")
		var raw map[string]any
		if err := json.Unmarshal([]byte(readFile(t, path)), &raw); err != nil {
			t.Fatal(err)
		}
		raw["profiles"] = []perf.SidecarProfiles{{Process: "testapp-daprd", Role: perf.RoleCalleeSidecar, During: "round 1", Files: files}}
		b, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	profileSink = nil
	opts := defaultCompareOptions()
	opts.Reports = root
	var out bytes.Buffer
	if _, err := compare(opts, "v1.16.5", "v1.17.5", &out); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{"Profiles, v1.17.5 against v1.16.5", "profile diff, callee-sidecar's bytes allocated, B - A",
		"allocateInB +", "allocateInA -"} {
		if !strings.Contains(md, want) {
			t.Errorf("compare does not say %q:\n%s", want, md)
		}
	}
}

// The compare page's banner names the first regressions in plain text and counts the rest.
func TestBannerLineNamesTheFirstRegressions(t *testing.T) {
	regs := []string{"a (+10 %)", "b (+9 %)", "c (+8 %)", "d (+7 %)", "e (+6 %)"}
	got := bannerLine(regs, 2, defaultCompareOptions())
	want := "5 figures regressed (99 % interval, minimum change 5 %, margin ± 5 %): a (+10 %); b (+9 %); c (+8 %); and 2 more (every one in the tables below). 2 figures undecided: more rounds may decide."
	if got != want {
		t.Errorf("bannerLine = %q\nwant          %q", got, want)
	}
	if got := bannerLine(regs[:1], 0, defaultCompareOptions()); got != "1 figure regressed (99 % interval, minimum change 5 %, margin ± 5 %): a (+10 %)." {
		t.Errorf("one regression: %q", got)
	}
}
