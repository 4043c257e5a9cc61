package charts

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	stdimage "image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// embedded matches every reference an HTML page could load something through.
var embedded = regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"]*)"|url\(|@import|<link|<iframe|<object`)

func TestHTMLReportStandsAlone(t *testing.T) {
	root := fixtureTree(t, reportsFixtures)
	if err := generate(root, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, class, word string
		charts           int
		must             []string
	}{
		{grpcDir, "verdict invalid", "FAIL (invalid)", 7, []string{
			"round 2 main: 2.00 % of the schedule not kept (1,200 of 60,000 slots skipped)",
			"<li>errors = 3, at most 0 (Dapr v1.17 perf suite): FAIL</li>",
			`<td class="r">+1.950 ms [+1.920, +2.020]</td>`,
		}},
		{httpDir, "verdict pass", "pass", 7, []string{
			"<li>overhead.p90 = 1.480 ms, at most 2.000 ms (Dapr v1.17 perf suite): pass</li>",
			"Valid: the load kept to its schedule in every phase.",
		}},
		{growthDir, "verdict pass", "pass", 1, []string{"<h2>Memory growth</h2>", ">growing</td>"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			page := readFile(t, filepath.Join(root, tc.dir, reportHTMLFile))
			if !strings.Contains(page, `<header id="verdict" class="`+tc.class+`">`+"\n"+`<p class="word">`+tc.word+`</p>`) {
				t.Errorf("no %q banner saying %q", tc.class, tc.word)
			}
			for _, s := range tc.must {
				if !strings.Contains(page, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			// Nothing is loaded from anywhere: every src is an embedded SVG (the chart's twin of
			// its PNG, as wide) with no reference outside itself, and there is no href, style
			// sheet or frame.
			imgs := 0
			for _, m := range embedded.FindAllStringSubmatch(page, -1) {
				if strings.EqualFold(m[1], "src") && strings.HasPrefix(m[2], "data:image/svg+xml;base64,") {
					imgs++
					b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(m[2], "data:image/svg+xml;base64,"))
					if err != nil {
						t.Fatalf("chart %d: %v", imgs, err)
					}
					var svg struct {
						Width string `xml:"width,attr"`
					}
					if err := xml.Unmarshal(b, &svg); err != nil || svg.Width != fmt.Sprintf("%dpt", chartWidth*72/dpi) {
						t.Errorf("chart %d: %v, width %q", imgs, err, svg.Width)
					}
					if bytes.Contains(b, []byte("href=")) {
						t.Errorf("chart %d refers to something outside itself", imgs)
					}
					continue
				}
				t.Errorf("page refers to something outside itself: %q", m[0])
			}
			if imgs != tc.charts {
				t.Errorf("%d embedded charts, want %d", imgs, tc.charts)
			}
			// Verdicts, validity and charts come before the detailed tables.
			v, c, l := strings.Index(page, "<h2>Verdicts</h2>"), strings.Index(page, "<h2>Charts</h2>"), strings.Index(page, "<h2>Environment</h2>")
			if v < 0 || c < v || l < c {
				t.Errorf("sections at verdicts %d, charts %d, environment %d: want in that order", v, c, l)
			}
		})
	}
}

func TestMarkdownHTML(t *testing.T) {
	md := "# A <b> & c\n\nText with **bold**, `code` and [a link](x/README.md).\nSame paragraph.\n\n" +
		"| a | b \\| c |\n|---|---:|\n| 1 | 2 |\n\n- one\n- two\n\n![chart](x.png)\n![missing](y.png)\n"
	got := markdownHTML(md, map[string]string{"x.png": "data:image/png;base64,AA=="})
	for _, want := range []string{
		"<h1>A &lt;b&gt; &amp; c</h1>",
		"<p>Text with <strong>bold</strong>, <code>code</code> and a link. Same paragraph.</p>",
		`<thead><tr><th>a</th><th class="r">b | c</th></tr></thead>`,
		`<tr><td>1</td><td class="r">2</td></tr>`,
		"<ul>\n<li>one</li>\n<li>two</li>\n</ul>",
		`<figure><img src="data:image/png;base64,AA==" alt="chart"><figcaption>chart</figcaption></figure>`,
		"<p>(chart missing not embedded)</p>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// chromiumBinary finds Debian's chromium, or skips the test (fails it when CI is set).
func chromiumBinary(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH: apt-get install -y chromium (make test installs it)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set, so a missing browser is a failure)")
	}
	t.Skip(msg)
	return ""
}

// runChromium runs headless chromium on url with args, in its own process group and a private
// profile, bounded to 60 s; the whole group is killed afterwards, so no renderer outlives the
// test. It returns stdout and stderr.
func runChromium(t *testing.T, bin, url string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr",
	}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, url)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.Process != nil {
		if kerr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
			t.Errorf("kill chromium's process group %d: %v", cmd.Process.Pid, kerr)
		}
	}
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleLines are the page's console messages in chromium's log ("CONSOLE" lines carry
// every console call and every uncaught error).
func consoleLines(log string) []string {
	var out []string
	for line := range strings.Lines(log) {
		if strings.Contains(line, ":CONSOLE") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// colourShare is the share of img's pixels within 12 of c in each channel.
func colourShare(img stdimage.Image, c color.NRGBA) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if absDiff(uint8(r>>8), c.R) <= 12 && absDiff(uint8(g>>8), c.G) <= 12 && absDiff(uint8(bl>>8), c.B) <= 12 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestHTMLReportInChromium opens the invalid gRPC fixture's report in a real headless Chromium:
// the page must load without a console message, every chart must decode, and the screenshot
// must show the verdict banner and the charts' colours. The screenshot is kept as an artifact
// (go test ./charts -run InChromium -artifacts).
func TestHTMLReportInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	root := fixtureTree(t, reportsFixtures)
	if err := generate(root, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	page, err := filepath.Abs(filepath.Join(root, grpcDir, reportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	dom, log := runChromium(t, bin, url, "--dump-dom")
	if msgs := consoleLines(log); len(msgs) > 0 {
		t.Errorf("console messages while loading the report:\n%s", strings.Join(msgs, "\n"))
	}
	if !strings.Contains(dom, `data-charts="7/7"`) {
		m := regexp.MustCompile(`data-charts="[^"]*"`).FindString(dom)
		t.Errorf("charts decoded: %s, want 7/7", m)
	}
	for _, s := range []string{"FAIL (invalid)", "<h2>Verdicts</h2>", "qps.ratio = 0.9800, above 0.9900 (Dapr v1.17 perf suite): FAIL"} {
		if !strings.Contains(dom, s) {
			t.Errorf("rendered page lacks %q", s)
		}
	}

	shot := filepath.Join(t.ArtifactDir(), "report-grpc.png")
	_, log = runChromium(t, bin, url, "--screenshot="+shot, "--window-size=1280,4200", "--hide-scrollbars")
	if msgs := consoleLines(log); len(msgs) > 0 {
		t.Errorf("console messages while taking the screenshot:\n%s", strings.Join(msgs, "\n"))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 4200 {
		t.Fatalf("screenshot %v, want 1280x4200", b)
	}
	banner := img.(interface {
		SubImage(stdimage.Rectangle) stdimage.Image
	}).SubImage(stdimage.Rect(0, 0, 1280, 60))
	if s := colourShare(banner, color.NRGBA{0xb3, 0x47, 0x00, 0xff}); s < 0.5 {
		t.Errorf("the top of the page is %.0f %% banner colour, want the FAIL banner (at least 50 %%)", 100*s)
	}
	// The charts' main-phase orange and baseline blue (Okabe-Ito) appear once the PNGs rendered.
	for name, c := range map[string]color.NRGBA{"orange": okabeIto[1], "blue": okabeIto[0]} {
		if s := colourShare(img, c); s < 0.001 {
			t.Errorf("%s (%v) covers %.4f %% of the screenshot: the charts did not render", name, c, 100*s)
		}
	}
	t.Logf("screenshot: %s", shot)
}

// A run that passed but missed a warn-only bound gets the amber banner, the counted word and
// the missed bound with its value; one that failed keeps the FAIL banner.
func TestHTMLBannerWarnOnly(t *testing.T) {
	missed := perf.Verdict{Threshold: perf.Threshold{Figure: "overhead.p90", Op: perf.AtMost, Limit: 0.002,
		Source: "Dapr v1.17 perf suite", WarnOnly: true}, Got: 0.00248, Measured: true}
	kept := perf.Verdict{Threshold: perf.Threshold{Figure: "errors", Op: perf.AtMost, Limit: 0, Source: "Dapr v1.17 perf suite"},
		Measured: true, Pass: true}
	rep := &perf.Report{Test: "service_invocation", Transport: perf.HTTP, Pass: true, Validity: perf.Validity{Valid: true},
		Verdicts: []perf.Verdict{kept, missed}}
	page := scenarioHTML("# t\n", summaryOf(rep), nil)
	for _, s := range []string{
		`<header id="verdict" class="verdict warn">` + "\n" + `<p class="word">pass, 1 of Dapr&#39;s bounds missed (warn only)</p>`,
		"<li>overhead.p90 = 2.480 ms, at most 2.000 ms (Dapr v1.17 perf suite): MISSED (warn only)</li>",
		".verdict.warn { background: #e69f00;",
	} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if got := resultWord(rep); got != "pass, 1 of Dapr's bounds missed (warn only)" {
		t.Errorf("resultWord = %q", got)
	}

	rep.Pass = false
	page = scenarioHTML("# t\n", summaryOf(rep), nil)
	if !strings.Contains(page, `<header id="verdict" class="verdict fail">`+"\n"+`<p class="word">FAIL</p>`) || strings.Contains(page, "<li>overhead.p90") {
		t.Errorf("a failed run's banner is not plain FAIL:\n%s", page[:min(len(page), 2000)])
	}
	rep.Pass, rep.Verdicts = true, []perf.Verdict{kept}
	if page = scenarioHTML("# t\n", summaryOf(rep), nil); !strings.Contains(page, `class="verdict pass">`+"\n"+`<p class="word">pass</p>`) {
		t.Error("a clean pass has no green pass banner")
	}
}

// kindFixtures are one committed result file of each plan kind, as <test> to its path.
var kindFixtures = map[string]string{
	"service_invocation":       "../reports/v1.17.5/service_invocation/http/result.json",         // overhead
	"memory_growth":            "testdata/reports/v1.17.5/memory_growth/http/result.json",        // growth
	"pubsub_publish":           "testdata/loads/pubsub_publish/http/result.json",                 // stages
	"workflow_constant_vus":    "testdata/loads/workflow_constant_vus_inmemory/http/result.json", // iterations
	"pubsub_subscribe_redis":   "testdata/loads/pubsub_subscribe_redis/http/result.json",         // delivery
	"jobs_triggering":          "testdata/loads/jobs_triggering/http/result.json",                // jobs
	"actor_reminder":           "testdata/loads/actor_reminder/http/result.json",                 // reminders
	"actor_double_activation":  "testdata/loads/actor_double_activation/http/result.json",        // faults
	"service_invocation_curve": "testdata/loads/service_invocation_curve/http/result.json",       // curve
}

// TestRunReportInChromium draws a run holding one result of each plan kind (charts report) and
// opens its index and every scenario page in a real headless Chromium: each page loads without
// a console message, every image on it decodes (data-charts n/n), and a full-page screenshot of
// each is kept as an artifact (go test ./charts -run RunReportInChromium -artifacts).
func TestRunReportInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	root := t.TempDir()
	dir := filepath.Join(root, "runs", "every-kind")
	kinds := map[string]bool{}
	for test, src := range kindFixtures {
		rep, err := report.ReadReport(src)
		if err != nil {
			t.Fatal(err)
		}
		kinds[report.KindOf(rep).Name()] = true
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, test, "http", resultFile)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range report.Kinds() {
		if !kinds[k] {
			t.Errorf("kindFixtures has no result of kind %s", k)
		}
	}
	if err := runReport(root, dir, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{"index": filepath.Join(dir, runIndexFile)}
	for test := range kindFixtures {
		pages[test] = filepath.Join(dir, test, "http", reportHTMLFile)
	}
	charts := regexp.MustCompile(`data-charts="(\d+)/(\d+)"`)
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			url := "file://" + page
			dom, log := runChromium(t, bin, url, "--dump-dom")
			if msgs := consoleLines(log); len(msgs) > 0 {
				t.Errorf("console messages while loading %s:\n%s", page, strings.Join(msgs, "\n"))
			}
			m := charts.FindStringSubmatch(dom)
			switch {
			case m == nil:
				t.Fatalf("%s: no data-charts count: the page's check did not run", page)
			case m[1] != m[2]:
				t.Errorf("%s: %s of %s images decoded", page, m[1], m[2])
			case name != "index" && m[2] == "0":
				t.Errorf("%s: a scenario page without a chart", page)
			}
			shot := filepath.Join(t.ArtifactDir(), name+".png")
			runChromium(t, bin, url, "--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars")
			f, err := os.Open(shot)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := png.Decode(f); err != nil {
				t.Errorf("screenshot %s: %v", shot, err)
			}
			t.Logf("%s: %s charts decoded; screenshot %s", name, m[1], shot)
		})
	}
}
