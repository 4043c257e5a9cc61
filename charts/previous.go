package charts

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
)

// versionDir matches a published version's folder name: "v1.17.5".
var versionDir = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)$`)

// previousVersion finds, for a published scenario (<root>/v<version>/<test>/<transport>/), the
// same scenario under the newest published version below its own: that version's name and
// report. ok is false for a scenario outside a version folder, or with no earlier version of it.
func previousVersion(sc scenario) (name string, rep *perf.Report, ok bool) {
	verDir := filepath.Dir(filepath.Dir(sc.Dir))
	own := versionDir.FindStringSubmatch(filepath.Base(verDir))
	if own == nil {
		return "", nil, false
	}
	entries, err := os.ReadDir(filepath.Dir(verDir))
	if err != nil {
		return "", nil, false
	}
	rel, err := filepath.Rel(verDir, sc.Path)
	if err != nil {
		return "", nil, false
	}
	var best []int
	for _, e := range entries {
		m := versionDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() || compareVersions(m, own) >= 0 {
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(verDir), e.Name(), rel)); err != nil {
			continue
		}
		if best == nil || compareVersions(m, versionStrings(best)) > 0 {
			best = versionInts(m)
		}
	}
	if best == nil {
		return "", nil, false
	}
	name = fmt.Sprintf("v%d.%d.%d", best[0], best[1], best[2])
	r, err := report.ReadReport(filepath.Join(filepath.Dir(verDir), name, rel))
	if err != nil {
		return "", nil, false
	}
	return name, r, true
}

func versionInts(m []string) []int {
	out := make([]int, 3)
	for i := range 3 {
		out[i], _ = strconv.Atoi(m[i+1])
	}
	return out
}

func versionStrings(v []int) []string {
	return []string{"", strconv.Itoa(v[0]), strconv.Itoa(v[1]), strconv.Itoa(v[2])}
}

// compareVersions orders two versionDir matches.
func compareVersions(a, b []string) int { return slices.Compare(versionInts(a), versionInts(b)) }

// writeAgainstPrevious writes the section that sets this version's scenario beside the same
// scenario of the version published before it: every figure charts compare has, each side's
// median, the change, the Mann-Whitney test's p and the verdict with its interval. Nothing
// when there is no earlier version of it.
func writeAgainstPrevious(b *strings.Builder, rep *perf.Report, prevName string, prev *perf.Report) {
	if prev == nil {
		return
	}
	fmt.Fprintf(b, "\n## Against %s\n\n", prevName)
	fmt.Fprintf(b, "The same scenario published for daprd %s, figure by figure (as `charts compare %s v%s`): each side's median over its rounds, the change, the Mann-Whitney U test and the verdict of the two samples with the interval of the change. The two were measured in different sittings, so the machine's drift between them is in every change; an A/B run of the two builds in one sitting, their rounds interleaved, is what decides a change between versions ([Results](../../../../docs/results.md#comparing)).\n\n",
		orNone(prev.Environment.DaprVersion), prevName, strings.TrimPrefix(orNone(rep.Environment.DaprVersion), "v"))
	var rows [][]string
	for _, r := range compareRows(prev, rep, defaultCompareOptions()) {
		if r.A == "n/a" && r.B == "n/a" {
			continue
		}
		v := r.Verdict
		if v == perf.VerdictRegressed || v == perf.VerdictImproved {
			v = "**" + v + "**"
		}
		rows = append(rows, []string{r.Figure, r.A, r.B, r.Change, r.Interval, r.Test, v})
	}
	writeTable(b, []string{"figure", prevName, "this", "change", "interval", "U test", "verdict"}, "lrrrrrl", rows)
}
