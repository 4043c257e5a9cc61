package charts

import (
	"bytes"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

const (
	httpDir   = "v1.17.5/service_invocation/http"
	grpcDir   = "v1.17.5/service_invocation/grpc"
	growthDir = "v1.17.5/memory_growth/http"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./charts -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output; run go test ./charts -update and review the diff.\n--- got:\n%s", path, got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// row returns the cells of the first table row under the heading section (a "#" line
// starting with it; "" for the whole document) whose first cell is first.
func row(t *testing.T, md, section, first string) []string {
	t.Helper()
	in := section == ""
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "#") {
			in = section == "" || strings.HasPrefix(strings.TrimLeft(line, "# "), section)
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if cells[0] == first {
			return cells
		}
	}
	t.Fatalf("no row %q under %q in:\n%s", first, section, md)
	return nil
}

func TestGenerate(t *testing.T) {
	root := fixtureTree(t, reportsFixtures)
	var out bytes.Buffer
	if err := generate(root, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		filepath.Join(root, grpcDir, "README.md") + " (7 charts)",
		filepath.Join(root, httpDir, "README.md") + " (7 charts)",
		filepath.Join(root, growthDir, "README.md") + " (1 charts)",
		filepath.Join(root, "v1.17.5", "README.md") + " (3 scenarios), index.html",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	httpMD := readFile(t, filepath.Join(root, httpDir, "README.md"))
	grpcMD := readFile(t, filepath.Join(root, grpcDir, "README.md"))
	growthMD := readFile(t, filepath.Join(root, growthDir, "README.md"))
	versionMD := readFile(t, filepath.Join(root, "v1.17.5", "README.md"))
	golden(t, "http.golden.md", httpMD)
	golden(t, "grpc.golden.md", grpcMD)
	golden(t, "growth.golden.md", growthMD)
	golden(t, "version.golden.md", versionMD)
	// The version's HTML index says what its README says, its links going to the pages.
	index := readFile(t, filepath.Join(root, "v1.17.5", versionIndexFile))
	for _, want := range []string{"<title>Dapr v1.17.5: performance reports</title>", `href="service_invocation/http/report.html"`, `src="data:image/png;base64,`} {
		if !strings.Contains(index, want) {
			t.Errorf("%s lacks %q", versionIndexFile, want)
		}
	}
	if strings.Contains(index, "README.md") {
		t.Errorf("%s links a README.md, not the page", versionIndexFile)
	}

	t.Run("http cells", func(t *testing.T) {
		// Dapr's published v1.17.0 HTTP figures, as the fixture holds them.
		assertCells(t, row(t, httpMD, "Latency", "main (through both sidecars)"),
			"main (through both sidecars)", "1.590 ms", "2.380 ms", "3.890 ms", "6.610 ms")
		assertCells(t, row(t, httpMD, "Latency", "baseline (tester → app)"),
			"baseline (tester → app)", "0.530 ms", "0.900 ms", "0.990 ms", "1.200 ms")
		assertCells(t, row(t, httpMD, "Latency", "overhead (single run: no interval)"),
			"overhead (single run: no interval)", "+1.060 ms", "+1.480 ms", "+2.900 ms", "+5.410 ms")
		sum := row(t, httpMD, "", "http")
		assertCell(t, sum, 1, "pass") // the result first
		assertCell(t, sum, 6, "+1.060 / +1.480 / +2.900 ms")
		assertCell(t, sum, 7, "202 mCPU / 51.0 MiB")
		assertCell(t, sum, 8, "230 mCPU / 46.0 MiB")
		assertCell(t, sum, 9, "60,000")
		assertCell(t, sum, 10, "100 %")
		assertCell(t, sum, 11, "999.94")
		assertCells(t, row(t, httpMD, "Environment", "CPU"), "CPU", "AMD EPYC 7763 64-Core Processor × 2")
		assertCells(t, row(t, httpMD, "Environment", "date"), "date", "2026-05-01 12:00:00 UTC")
		for _, im := range []string{"latency", "overhead", "histogram", "qps", "cpu", "rss"} {
			if !strings.Contains(httpMD, "]("+im+".png)") {
				t.Errorf("README does not embed %s.png", im)
			}
		}
		if !strings.Contains(httpMD, "- overhead.p90 = 1.480 ms, at most 2.000 ms (Dapr v1.17 perf suite): pass\n") {
			t.Error("README lacks the p90 verdict")
		}
	})
	t.Run("grpc cells", func(t *testing.T) {
		// Medians over three rounds; the overhead has an interval.
		assertCells(t, row(t, grpcMD, "Latency", "main (through both sidecars)"),
			"main (through both sidecars)", "2.280 ms", "2.970 ms", "4.590 ms", "8.000 ms")
		ov := row(t, grpcMD, "Latency", "overhead [75 % interval (range)]")
		assertCell(t, ov, 2, "+1.950 ms [+1.920, +2.020]")
		sum := row(t, grpcMD, "", "grpc")
		assertCell(t, sum, 1, "FAIL (invalid)")
		assertCell(t, sum, 9, "180,000")
		assertCell(t, sum, 10, "99.998 %")
		assertCell(t, sum, 11, "980.00")
		assertCells(t, row(t, grpcMD, "Rounds", "2"), "2", "0.620 / 1.050 / 1.500 ms", "2.300 / 3.000 / 4.700 ms",
			"60,000", "3", "999.95 / 980.00", "2.00 %", "INVALID (main)")
		assertCell(t, row(t, grpcMD, "Rounds", "1"), 7, "valid")
		if n := strings.Count(grpcMD, "**INVALID RUN**: not measured on schedule"); n != 4 {
			t.Errorf("%d table sections of the invalid run say INVALID RUN, want 4 (latency, load, rounds, resources)", n)
		}
		if strings.Contains(httpMD, "INVALID") {
			t.Error("the valid run's README says INVALID")
		}
		if !strings.Contains(grpcMD, "- errors = 3, at most 0 (Dapr v1.17 perf suite): FAIL\n") {
			t.Error("README lacks the failed errors verdict")
		}
	})
	t.Run("growth cells", func(t *testing.T) {
		assertCells(t, row(t, growthMD, "Memory growth", "unique"), "unique", "caller-sidecar",
			"19.0 → 47.0 → 69.0 → 80.0", "80.0", "120 → 9,124", "6997 (R² 0.97)", "5632", "growing")
		fixed := row(t, growthMD, "Memory growth", "fixed")
		assertCell(t, fixed, 2, "19.0 → 25.0 → 25.0 → 25.0")
		assertCell(t, fixed, 7, "retained")
		if strings.Contains(growthMD, "## Latency") {
			t.Error("a report without rounds has a latency section")
		}
		if !strings.Contains(growthMD, "](growth.png)") {
			t.Error("README does not embed growth.png")
		}
	})
	t.Run("version cells", func(t *testing.T) {
		r := row(t, versionMD, "", "[service_invocation/http](service_invocation/http/README.md)")
		assertCell(t, r, 1, "pass") // the result first
		assertCell(t, r, 2, "1.590 ms")
		row(t, versionMD, "", "[service_invocation/grpc](service_invocation/grpc/README.md)")
		g := row(t, versionMD, "Memory growth", "[memory_growth/http](memory_growth/http/README.md)")
		assertCells(t, g, g[0], "fixed", "caller-sidecar", "19.0 → 25.0", "614", "retained")
	})
	t.Run("png", func(t *testing.T) {
		n := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || filepath.Ext(path) != ".png" {
				return err
			}
			n++
			h := chartHeight
			switch {
			case filepath.Base(filepath.Dir(path)) == "v1.17.5": // the version's cost chart
				h = 900
			case filepath.Base(path) == "cost.png": // two panels
				h += 150
			}
			assertPNG(t, path, chartWidth, h)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 16 {
			t.Errorf("%d PNGs, want 7 per service-invocation scenario, 1 for memory growth and the version's cost chart", n)
		}
	})
}

func assertCells(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("row %q, want %q", got, want)
	}
}

func assertCell(t *testing.T, cells []string, i int, want string) {
	t.Helper()
	if i >= len(cells) || cells[i] != want {
		t.Errorf("cell %d of %q, want %q", i, cells, want)
	}
}

// assertPNG checks that path is a PNG w pixels wide and at least h high: the legend, drawn
// below the panels, adds its height.
func assertPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() < h {
		t.Errorf("%s: %dx%d, want %d wide and at least %d high", path, b.Dx(), b.Dy(), w, h)
	}
}

func readFixture(t *testing.T, dir string) *perf.Report {
	t.Helper()
	rep, err := report.ReadReport(filepath.Join(reportsFixtures, dir, resultFile))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
