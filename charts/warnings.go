package charts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/daprperf/daprperf/perf"
)

// warningNumber finds the numbers of a warning; warningRound its round, when it starts with one.
var (
	warningNumber = regexp.MustCompile(`\d+(?:\.\d+)?`)
	warningRound  = regexp.MustCompile(`^round (\d+) `)
)

// groupWarnings folds warnings that differ only in their numbers into one line each, in the
// order their first one came: the rounds they came from as a list of ranges ("rounds 1–6"), and
// each other number as the range it took ("1.352 to 1.504 ms"). A warning alike no other is
// kept as it is.
func groupWarnings(ws []string) []string {
	type group struct {
		rounds []int
		parts  []string    // the text between the numbers, the same for every member
		nums   [][]float64 // per number slot, every member's value
		texts  [][]string  // and how each was written
		count  int
	}
	var order []string
	groups := map[string]*group{}
	for _, w := range ws {
		round := -1
		rest := w
		if m := warningRound.FindStringSubmatch(w); m != nil {
			round, _ = strconv.Atoi(m[1])
			rest = w[len(m[0]):]
		}
		parts := warningNumber.Split(rest, -1)
		nums := warningNumber.FindAllString(rest, -1)
		key := fmt.Sprintf("%t|%s", round >= 0, strings.Join(parts, "#"))
		g, ok := groups[key]
		if !ok {
			g = &group{parts: parts, nums: make([][]float64, len(nums)), texts: make([][]string, len(nums))}
			groups[key] = g
			order = append(order, key)
		}
		g.count++
		if round >= 0 {
			g.rounds = append(g.rounds, round)
		}
		for i, n := range nums {
			v, _ := strconv.ParseFloat(n, 64)
			g.nums[i], g.texts[i] = append(g.nums[i], v), append(g.texts[i], n)
		}
	}
	var out []string
	for _, key := range order {
		g := groups[key]
		var b strings.Builder
		switch {
		case len(g.rounds) == 1:
			fmt.Fprintf(&b, "round %d ", g.rounds[0])
		case len(g.rounds) > 1:
			fmt.Fprintf(&b, "rounds %s ", intRanges(g.rounds))
		}
		for i, p := range g.parts {
			b.WriteString(p)
			if i < len(g.nums) {
				lo, hi := 0, 0
				for k, v := range g.nums[i] {
					if v < g.nums[i][lo] {
						lo = k
					}
					if v > g.nums[i][hi] {
						hi = k
					}
				}
				b.WriteString(g.texts[i][lo])
				if g.nums[i][hi] != g.nums[i][lo] {
					b.WriteString(" to " + g.texts[i][hi])
				}
			}
		}
		if g.count > 1 && len(g.rounds) == 0 {
			fmt.Fprintf(&b, " (%d alike)", g.count)
		}
		out = append(out, b.String())
	}
	return out
}

// intRanges writes sorted-or-not round numbers as ranges: "1–3, 5".
func intRanges(xs []int) string {
	seen := map[int]bool{}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		seen[x], lo, hi = true, min(lo, x), max(hi, x)
	}
	var parts []string
	for x := lo; x <= hi; x++ {
		if !seen[x] {
			continue
		}
		end := x
		for seen[end+1] {
			end++
		}
		if end > x {
			parts = append(parts, fmt.Sprintf("%d–%d", x, end))
		} else {
			parts = append(parts, strconv.Itoa(x))
		}
		x = end
	}
	return strings.Join(parts, ", ")
}

// writeWarnings writes the result's warnings, grouped (groupWarnings), or says there are none.
func writeWarnings(b *strings.Builder, rep *perf.Report) {
	b.WriteString("\n## Warnings\n\n")
	if len(rep.Warnings) == 0 {
		b.WriteString("None.\n")
		return
	}
	lines := groupWarnings(rep.Warnings)
	fmt.Fprintf(b, "%d warning(s) of the result, alike ones on one line with the range of their figures:\n\n", len(rep.Warnings))
	for _, l := range lines {
		fmt.Fprintf(b, "- %s\n", l)
	}
}
