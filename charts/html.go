package charts

import (
	"encoding/base64"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
)

// reportHTMLFile is the name of a run's self-contained HTML report, next to its result file.
const reportHTMLFile = "report.html"

// scenarioHTML is one run's report as a single HTML page that needs nothing else: the verdict
// and validity first, then the same tables and text as its README.md (converted from that
// Markdown, so the two never disagree), with every chart embedded as a base64 PNG. No script,
// style sheet, font or image is loaded from anywhere; a small inline script only checks, once
// the page has loaded, that every chart decoded (data-charts on <html>, and a console error
// naming any that did not).
func scenarioHTML(md string, rep reportSummary, images []image) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\" data-charts=\"pending\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(rep.Title))
	b.WriteString("<style>\n" + reportCSS + "</style>\n</head>\n<body>\n")

	cls := "pass"
	switch {
	case rep.Invalid:
		cls = "invalid"
	case !rep.Pass:
		cls = "fail"
	case len(rep.Missed) > 0: // passed, but a warn-only bound was missed: never plain green
		cls = "warn"
	}
	fmt.Fprintf(&b, "<header id=\"verdict\" class=\"verdict %s\">\n<p class=\"word\">%s</p>\n<p>%s</p>\n",
		cls, html.EscapeString(rep.Word), html.EscapeString(rep.Sentence))
	if cls == "warn" {
		b.WriteString("<p>Missed, warn only (reported, not failing the run):</p>\n<ul>\n")
		for _, m := range rep.Missed {
			fmt.Fprintf(&b, "<li>%s</li>\n", html.EscapeString(m))
		}
		b.WriteString("</ul>\n")
	}
	if rep.Invalid {
		b.WriteString("<p><strong>Invalid run</strong>: its figures were not measured on schedule and cannot pass.</p>\n<ul>\n")
		for _, r := range rep.Reasons {
			fmt.Fprintf(&b, "<li>%s</li>\n", html.EscapeString(r))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</header>\n<main>\n")

	srcs := make(map[string]string, len(images))
	for _, im := range images {
		if im.SVG != nil {
			srcs[im.File] = "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(im.SVG)
			continue
		}
		srcs[im.File] = "data:image/png;base64," + base64.StdEncoding.EncodeToString(im.PNG)
	}
	b.WriteString(markdownHTML(reorderSections(md, "Verdicts", "Validity", "Charts"), srcs))
	b.WriteString("</main>\n<script>\n" + reportScript + "</script>\n</body>\n</html>\n")
	return b.String()
}

// reorderSections moves the "## " sections named first (in that order) right after the text
// before the first section, keeping the others in their order: the report shows verdicts,
// validity and charts before the detailed tables.
func reorderSections(md string, first ...string) string {
	parts := strings.Split(md, "\n## ")
	if len(parts) < 2 {
		return md
	}
	head, rest := parts[0], parts[1:]
	title := func(sec string) string { t, _, _ := strings.Cut(sec, "\n"); return strings.TrimSpace(t) }
	var front, back []string
	for _, name := range first {
		for _, sec := range rest {
			if title(sec) == name {
				front = append(front, sec)
			}
		}
	}
	for _, sec := range rest {
		if !slices.Contains(first, title(sec)) {
			back = append(back, sec)
		}
	}
	var b strings.Builder
	b.WriteString(head)
	for _, sec := range append(front, back...) {
		b.WriteString("\n## " + strings.TrimRight(sec, "\n") + "\n")
	}
	return b.String()
}

// reportSummary is what the HTML header states about a run.
type reportSummary struct {
	Title, Word, Sentence string
	Pass, Invalid         bool
	Reasons               []string
	// Missed are the warn-only bounds the run missed (perf.Verdict.String each): a run that
	// passed with any gets the amber banner.
	Missed []string
}

// reportCSS styles the report: readable tables, charts at their width, and the verdict banner
// in Okabe-Ito colours (bluish green for pass, orange (amber) with dark text for a pass that
// missed a warn-only bound, vermillion for a failed or invalid run).
const reportCSS = `body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 0; color: #1a1a1a; background: #fff; }
main { max-width: 1120px; margin: 0 auto; padding: 0 24px 48px; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; display: block; max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 3px 8px; vertical-align: top; }
th { background: #f2f2f2; } td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
code { background: #f4f4f4; padding: 0 3px; }
figure { margin: 1em 0; overflow-x: auto; } figure img { border: 1px solid #ddd; }
figcaption { font-size: 0.85em; color: #444; }
.verdict { padding: 14px 24px; color: #fff; }
.verdict p { max-width: 1120px; margin: 0.3em auto; } .verdict ul { max-width: 1070px; margin: 0.3em auto; }
.verdict .word { font-size: 2em; font-weight: bold; }
.verdict.pass { background: #00785a; } .verdict.fail, .verdict.invalid { background: #b34700; }
.verdict.warn { background: #e69f00; color: #1a1a1a; }
`

// reportScript checks that every chart decoded; it loads nothing.
const reportScript = `window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("img"), ok = 0;
  for (var i = 0; i < imgs.length; i++) {
    if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; } else { console.error("chart did not decode: " + imgs[i].alt); }
  }
  document.documentElement.setAttribute("data-charts", ok + "/" + imgs.length);
});
`

// Inline Markdown of the README writers: images, links, bold and code.
var (
	mdImage = regexp.MustCompile(`^!\[([^\]]*)\]\(([^)]+)\)$`)
	mdLink  = regexp.MustCompile(`\[([^\]]+)\]\(([^)]+)\)`)
	mdBold  = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdCode  = regexp.MustCompile("`([^`]+)`")
)

// markdownHTML converts the Markdown the README writers produce (headings, paragraphs, pipe
// tables with an alignment row, "- " lists, images on a line of their own, links, bold, code)
// to HTML. Images whose file is in srcs take that source (a data URI); others are left out
// with a note, so the page never refers to a file beside it.
func markdownHTML(md string, srcs map[string]string) string {
	return markdownHTMLLinking(md, srcs, false)
}

// markdownHTMLLinking is markdownHTML that, when links is set, keeps each Markdown link as a
// link (a page of pages, the version index) rather than its text alone.
func markdownHTMLLinking(md string, srcs map[string]string, links bool) string {
	inline := func(s string) string { return inlineHTML(s, links) }
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(md, "\n"), "\n")
	var para []string
	flush := func() {
		if len(para) > 0 {
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(strings.Join(para, " ")))
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case strings.HasPrefix(line, "#"):
			flush()
			level := len(line) - len(strings.TrimLeft(line, "#"))
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, inline(strings.TrimSpace(line[level:])), level)
		case strings.HasPrefix(line, "| "):
			flush()
			var rows []string
			for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				rows = append(rows, lines[i])
			}
			i--
			b.WriteString(tableHTML(rows, links))
		case strings.HasPrefix(line, "- "):
			flush()
			b.WriteString("<ul>\n")
			for ; i < len(lines) && strings.HasPrefix(lines[i], "- "); i++ {
				fmt.Fprintf(&b, "<li>%s</li>\n", inline(lines[i][2:]))
			}
			i--
			b.WriteString("</ul>\n")
		case mdImage.MatchString(line):
			flush()
			m := mdImage.FindStringSubmatch(line)
			alt := html.EscapeString(m[1])
			if src, ok := srcs[m[2]]; ok {
				fmt.Fprintf(&b, "<figure><img src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>\n", src, alt, alt)
			} else {
				fmt.Fprintf(&b, "<p>(chart %s not embedded)</p>\n", alt)
			}
		default:
			para = append(para, strings.TrimSpace(line))
		}
	}
	flush()
	return b.String()
}

// tableHTML converts a pipe table: header, alignment row ("---:" is right-aligned), body.
func tableHTML(rows []string, links bool) string {
	split := func(r string) []string {
		r = strings.TrimSpace(r)
		r = strings.TrimSuffix(strings.TrimPrefix(r, "|"), "|")
		// A cell's own pipes are escaped as \|.
		r = strings.ReplaceAll(r, `\|`, "\x00")
		cells := strings.Split(r, "|")
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(c), "\x00", "|")
		}
		return cells
	}
	var b strings.Builder
	b.WriteString("<table>\n")
	var right []bool
	if len(rows) > 1 {
		for _, a := range split(rows[1]) {
			right = append(right, strings.HasSuffix(a, ":") && !strings.HasPrefix(a, ":"))
		}
	}
	cls := func(i int) string {
		if i < len(right) && right[i] {
			return ` class="r"`
		}
		return ""
	}
	b.WriteString("<thead><tr>")
	for i, c := range split(rows[0]) {
		fmt.Fprintf(&b, "<th%s>%s</th>", cls(i), inlineHTML(c, links))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows[min(2, len(rows)):] {
		b.WriteString("<tr>")
		for i, c := range split(r) {
			fmt.Fprintf(&b, "<td%s>%s</td>", cls(i), inlineHTML(c, links))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	return b.String()
}

// inlineHTML escapes s and converts its bold, code and links. A link keeps its text only, so
// that a report stands alone, unless links is set (the version index, a page of pages).
func inlineHTML(s string, links bool) string {
	s = html.EscapeString(s)
	s = mdCode.ReplaceAllString(s, "<code>$1</code>")
	s = mdBold.ReplaceAllString(s, "<strong>$1</strong>")
	if links {
		return mdLink.ReplaceAllString(s, `<a href="$2">$1</a>`)
	}
	s = mdLink.ReplaceAllString(s, "$1")
	return s
}
