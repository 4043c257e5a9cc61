package charts

import (
	"encoding/base64"
	"html"
	"strings"
)

// versionIndexFile is a version directory's HTML index, beside its README.md.
const versionIndexFile = "index.html"

// versionHTML is a version directory's index as one HTML page that needs nothing else: its
// README.md (md) converted, each scenario's link going to its report.html instead of its
// README.md, and the version's cost chart (costPNG, nil for none) embedded.
func versionHTML(title, md string, costPNG []byte) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\" data-charts=\"pending\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + html.EscapeString(title) + "</title>\n")
	b.WriteString("<style>\n" + reportCSS + "</style>\n</head>\n<body>\n<main>\n")
	srcs := map[string]string{}
	if costPNG != nil {
		srcs[versionCostFile] = "data:image/png;base64," + base64.StdEncoding.EncodeToString(costPNG)
	}
	b.WriteString(markdownHTMLLinking(strings.ReplaceAll(md, "/README.md)", "/"+reportHTMLFile+")"), srcs, true))
	b.WriteString("</main>\n<script>\n" + reportScript + "</script>\n</body>\n</html>\n")
	return b.String()
}
