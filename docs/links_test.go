// Package docs_test checks the repository's Markdown pages: every relative link in README.md,
// CHANGELOG.md, reports/measurements.md and docs/ names a file or folder that exists and, when it
// has a #fragment, a heading of that file as GitHub anchors it.
package docs_test

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository root: go test runs in the package's folder, docs/.
const root = ".."

// pages are the hand-written Markdown pages whose links are checked: the front page, the
// changelog, the measurements, and everything under docs/. The READMEs that charts writes under
// reports/ are generated and tested there.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{"README.md", "CHANGELOG.md", filepath.Join("reports", "measurements.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk docs: %v", err)
	}
	return out
}

func TestMarkdownLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{} // page (relative to root) -> its heading anchors
	anchorsOf := func(page string) (map[string]bool, error) {
		if a, ok := anchors[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(b))
		anchors[page] = a
		return a, nil
	}
	checked := 0
	for _, page := range pages(t) {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		for _, l := range links(string(b)) {
			target, fragment, _ := strings.Cut(l.target, "#")
			if isExternal(target) {
				continue
			}
			checked++
			dest := page // a bare #fragment points into the page itself
			if target != "" {
				p, err := url.PathUnescape(target)
				if err != nil {
					t.Errorf("%s:%d: link %q: %v", page, l.line, l.target, err)
					continue
				}
				dest = filepath.Clean(filepath.Join(filepath.Dir(page), filepath.FromSlash(p)))
				if dest == ".." || strings.HasPrefix(dest, ".."+string(filepath.Separator)) {
					t.Errorf("%s:%d: link %q leaves the repository", page, l.line, l.target)
					continue
				}
				st, err := os.Stat(filepath.Join(root, dest))
				if err != nil {
					t.Errorf("%s:%d: link %q: no such file or folder %s", page, l.line, l.target, filepath.ToSlash(dest))
					continue
				}
				if st.IsDir() {
					if fragment != "" {
						t.Errorf("%s:%d: link %q: a #fragment on a folder", page, l.line, l.target)
					}
					continue
				}
			}
			if fragment == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s:%d: link %q: a #fragment on a file that is not Markdown", page, l.line, l.target)
				continue
			}
			a, err := anchorsOf(dest)
			if err != nil {
				t.Errorf("%s:%d: link %q: %v", page, l.line, l.target, err)
				continue
			}
			if !a[fragment] {
				t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", page, l.line, l.target, filepath.ToSlash(dest), fragment)
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link checked: the pages or the link pattern are wrong")
	}
}

// GitHub's anchors: lower case, punctuation dropped but for '-' and '_', spaces made '-', and
// -1, -2, ... after a repeated heading.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Quick start":                                          "quick-start",
		"CI (`.ci/run`)":                                       "ci-cirun",
		"A/B: two daprd builds in one run":                     "ab-two-daprd-builds-in-one-run",
		"Dapr's perf tests and what mirrors them":              "daprs-perf-tests-and-what-mirrors-them",
		"The load a machine keeps: preflight and step-down":    "the-load-a-machine-keeps-preflight-and-step-down",
		"make test":                                            "make-test",
		"Service time, response time and coordinated omission": "service-time-response-time-and-coordinated-omission",
		"DAPR_PERF_QPS and friends":                            "dapr_perf_qps-and-friends",
		"Measured (daprd 1.17.5, 2 cores)":                     "measured-daprd-1175-2-cores",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
	a := headingAnchors("# A\n\n## Setup\n\n```sh\n# not a heading\n```\n\n## Setup\n### Setup\n")
	for _, want := range []string{"a", "setup", "setup-1", "setup-2"} {
		if !a[want] {
			t.Errorf("anchors %v lack %q", a, want)
		}
	}
	if a["not-a-heading"] {
		t.Error("a comment in a code block was taken for a heading")
	}
}

type link struct {
	target string
	line   int
}

var (
	// linkRE matches an inline link or image, [text](target) or ![alt](target), with an optional
	// title after the target.
	linkRE    = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	codeRE    = regexp.MustCompile("`+[^`]*`+")
	headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	fenceRE   = regexp.MustCompile("^ {0,3}(```|~~~)")
)

// links returns the inline links of a Markdown text, outside fenced code blocks and code spans.
func links(md string) []link {
	var out []link
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		if fenceRE.MatchString(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, link{target: m[1], line: i + 1})
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives the ATX headings of a Markdown text.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if fenceRE.MatchString(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading's text: lower case; letters, digits, '-' and '_' kept,
// spaces made '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isExternal(target string) bool {
	u, err := url.Parse(target)
	return err == nil && u.Scheme != ""
}
