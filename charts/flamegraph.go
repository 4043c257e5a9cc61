package charts

import (
	"errors"
	"fmt"
	"hash/fnv"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/profile"
)

// The flame graph's geometry, in pixels: its width, a frame's height, the title's band, and
// the width of one character of the frames' labels (11 px monospace).
const (
	flameWidth      = 1200
	flameFrame      = 16
	flameTitle      = 24
	flameCharWidth  = 6.6
	flameMaxDepth   = 64
	flameMinPixels  = 0.5
	flameLabelInset = 3
)

// flameFile is where the flame graph of a profile's CPU file goes: beside it, .svg for .pb.gz.
func flameFile(cpu string) string { return strings.TrimSuffix(cpu, ".pb.gz") + ".svg" }

// writeFlameGraphs draws a CPU flame graph for each of sc's profiles that has a CPU file, as
// an SVG beside it (flameFile), and returns them for the HTML page to embed. A profile file
// that cannot be read is an error.
func writeFlameGraphs(sc scenario) ([]image, error) {
	var out []image
	for _, p := range sc.Report.Profiles {
		cpu, ok := p.Files["cpu"]
		if !ok {
			continue
		}
		pr, err := profile.Load(filepath.Join(sc.Dir, filepath.FromSlash(cpu)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a result file copied without its profiles: its page lists them, with no graph
		}
		if err != nil {
			return nil, fmt.Errorf("charts: flame graph: %w", err)
		}
		i := profile.SampleTypeIndex(pr, "cpu")
		if i < 0 {
			return nil, fmt.Errorf("charts: flame graph: %s: not a CPU profile", cpu)
		}
		title := fmt.Sprintf("CPU of %s (%s) during %s: %.2f s sampled", p.Process, p.Role, p.During, p.CPUSampleSeconds)
		svg := flameSVG(profile.Tree(pr, i), title)
		if err := os.WriteFile(filepath.Join(sc.Dir, filepath.FromSlash(flameFile(cpu))), []byte(svg), 0o644); err != nil {
			return nil, fmt.Errorf("charts: flame graph: %w", err)
		}
		out = append(out, image{File: flameFile(cpu), Title: title, SVG: []byte(svg)})
	}
	return out, nil
}

// flameSVG draws tree as a flame graph: the root at the bottom, each frame as wide as its
// share of the root's value, callees above their caller in name order; a frame narrower
// than half a pixel, or deeper than flameMaxDepth, is left out. Each frame's tooltip gives its
// function and its share; its label is the function, cut to fit.
func flameSVG(tree *profile.Node, title string) string {
	depth := 0
	var measure func(n *profile.Node, d int)
	measure = func(n *profile.Node, d int) {
		depth = max(depth, min(d, flameMaxDepth))
		for _, c := range n.Children {
			if float64(c.Value)/float64(max(tree.Value, 1))*flameWidth >= flameMinPixels {
				measure(c, d+1)
			}
		}
	}
	measure(tree, 1)
	height := flameTitle + depth*flameFrame
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="11">`+"\n",
		flameWidth, height, flameWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fdfdf8"/><text x="4" y="16" font-size="13">%s</text>`+"\n", html.EscapeString(title))
	var draw func(n *profile.Node, x float64, d int)
	draw = func(n *profile.Node, x float64, d int) {
		if d > flameMaxDepth || tree.Value == 0 {
			return
		}
		w := float64(n.Value) / float64(tree.Value) * flameWidth
		if w < flameMinPixels {
			return
		}
		y := height - d*flameFrame
		share := 100 * float64(n.Value) / float64(tree.Value)
		fmt.Fprintf(&b, `<g><title>%s (%.2f %%)</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" stroke="#fdfdf8" stroke-width="0.5"/>`,
			html.EscapeString(n.Function), share, x, y, w, flameFrame, flameColor(n.Function))
		if chars := int((w - 2*flameLabelInset) / flameCharWidth); chars >= 3 {
			label := n.Function
			if len(label) > chars { // the package path goes first: the function's own name says most
				label = label[strings.LastIndex(label, "/")+1:]
			}
			if len(label) > chars {
				label = label[:chars-2] + ".."
			}
			fmt.Fprintf(&b, `<text x="%.2f" y="%d">%s</text>`, x+flameLabelInset, y+flameFrame-4, html.EscapeString(label))
		}
		b.WriteString("</g>\n")
		cx := x
		for _, c := range n.Children {
			draw(c, cx, d+1)
			cx += float64(c.Value) / float64(tree.Value) * flameWidth
		}
	}
	draw(tree, 0, 1)
	b.WriteString("</svg>\n")
	return b.String()
}

// flameColor is a frame's fill: daprd's own code red to orange, the Go runtime blue, any other
// code yellow, each function's shade fixed by a hash of its name so that two graphs agree.
func flameColor(function string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(function))
	v := int(h.Sum32() % 40)
	switch {
	case strings.HasPrefix(function, "github.com/dapr/"):
		return fmt.Sprintf("hsl(%d, 80%%, 62%%)", 5+v/2)
	case strings.HasPrefix(function, "runtime.") || strings.HasPrefix(function, "internal/runtime/") || function == "all":
		return fmt.Sprintf("hsl(%d, 55%%, 72%%)", 200+v/2)
	default:
		return fmt.Sprintf("hsl(%d, 85%%, 60%%)", 40+v/2)
	}
}

// writeFlameLink links the flame graph of profiles p, when it has a CPU file.
func writeFlameLink(b *strings.Builder, p perf.SidecarProfiles) {
	if cpu, ok := p.Files["cpu"]; ok {
		fmt.Fprintf(b, "\n![CPU flame graph of %s](%s)\n", p.Process, flameFile(cpu))
	}
}
