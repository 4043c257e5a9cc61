package growth

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Expectation is one row of an expected-verdicts table: the verdict a daprd version
// gave one variant's sidecar when it was recorded, with that run's slope.
type Expectation struct {
	// Version is daprd's version as `daprd --version` prints it ("1.17.5").
	Version string `json:"version"`
	Variant string `json:"variant"`
	// Sidecar is the sidecar's role: "caller-sidecar" or "callee-sidecar".
	Sidecar string  `json:"sidecar"`
	Verdict Verdict `json:"verdict"`
	// SlopeKiBPer1000 is the recorded run's RSS slope, in KiB per 1,000 requests, and Run its
	// run id (or where the figure comes from).
	SlopeKiBPer1000 float64 `json:"slopeKiBPer1000"`
	Run             string  `json:"run"`
}

// expectationHeader is the header row an expected-verdicts table must start with.
var expectationHeader = []string{"version", "variant", "sidecar", "verdict", "slope", "run"}

// ReadExpectations reads an expected-verdicts table: CSV with the header
// "version,variant,sidecar,verdict,slope,run", lines starting with '#' ignored, one row per
// daprd version, variant and sidecar role. verdict is flat, growing or retained; slope a
// number (KiB of RSS per 1,000 requests). An error names the file, the line and the field.
func ReadExpectations(path string) ([]Expectation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("perf: expected verdicts: %w", err)
	}
	defer f.Close()
	rows, err := parseExpectations(f)
	if err != nil {
		return nil, fmt.Errorf("perf: expected verdicts %s: %w", path, err)
	}
	return rows, nil
}

func parseExpectations(in io.Reader) ([]Expectation, error) {
	r := csv.NewReader(in)
	r.Comment = '#'
	r.FieldsPerRecord = -1 // checked below, with a message naming the fields
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if !slices.Equal(head, expectationHeader) {
		return nil, fmt.Errorf("header %q: must be %q", strings.Join(head, ","), strings.Join(expectationHeader, ","))
	}
	var out []Expectation
	seen := map[[3]string]int{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(expectationHeader) {
			return nil, fmt.Errorf("line %d: %d fields: must be %d (%s)", line, len(rec), len(expectationHeader), strings.Join(expectationHeader, ","))
		}
		e := Expectation{Version: rec[0], Variant: rec[1], Sidecar: rec[2], Verdict: Verdict(rec[3]), Run: rec[5]}
		var errs []error
		for i, v := range []string{e.Version, e.Variant, e.Sidecar} {
			if v == "" {
				errs = append(errs, fmt.Errorf("%s is empty", expectationHeader[i]))
			}
		}
		if !slices.Contains([]Verdict{Flat, Growing, Retained}, e.Verdict) {
			errs = append(errs, fmt.Errorf("verdict %q: must be %s, %s or %s", rec[3], Flat, Growing, Retained))
		}
		if e.SlopeKiBPer1000, err = strconv.ParseFloat(rec[4], 64); err != nil || math.IsNaN(e.SlopeKiBPer1000) || math.IsInf(e.SlopeKiBPer1000, 0) {
			errs = append(errs, fmt.Errorf("slope %q: must be a number (KiB of RSS per 1,000 requests)", rec[4]))
		}
		key := [3]string{e.Version, e.Variant, e.Sidecar}
		if prev, dup := seen[key]; dup {
			errs = append(errs, fmt.Errorf("version %s, variant %s, sidecar %s: already on line %d", e.Version, e.Variant, e.Sidecar, prev))
		}
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		seen[key] = line
		out = append(out, e)
	}
}

// CSV is e as a row of the expected-verdicts table.
func (e Expectation) CSV() string {
	return strings.Join([]string{e.Version, e.Variant, e.Sidecar, string(e.Verdict), strconv.FormatFloat(e.SlopeKiBPer1000, 'f', -1, 64), e.Run}, ",")
}

// VerdictChange is a measured verdict that differs from the expected-verdicts table.
type VerdictChange struct {
	Variant string `json:"variant"`
	Sidecar string `json:"sidecar"`
	// Expected, ExpectedSlopeKiBPer1000 and ExpectedRun are the table's row; Got and
	// GotSlopeKiBPer1000 this run's.
	Expected                Verdict `json:"expected"`
	ExpectedSlopeKiBPer1000 float64 `json:"expectedSlopeKiBPer1000"`
	ExpectedRun             string  `json:"expectedRun"`
	Got                     Verdict `json:"got"`
	GotSlopeKiBPer1000      float64 `json:"gotSlopeKiBPer1000"`
}

// String reads like "b-unique caller-sidecar: growing (2731 KiB/1000, run X) -> flat (140)".
func (c VerdictChange) String() string {
	return fmt.Sprintf("%s %s: %s (%.0f KiB/1000 requests, %s) -> %s (%.0f)",
		c.Variant, c.Sidecar, c.Expected, c.ExpectedSlopeKiBPer1000, c.ExpectedRun, c.Got, c.GotSlopeKiBPer1000)
}

// ExpectationCheck is the comparison of a run's verdicts with the expected-verdicts table.
type ExpectationCheck struct {
	// Table is the table's path; Version the daprd version looked up in it.
	Table   string `json:"table"`
	Version string `json:"version"`
	// Matched counts the measured sidecars whose verdict equals the table's; Changes are those
	// whose verdict differs; New are the rows the table lacks for the measured sidecars (all of
	// them for a version it does not know), as this run would record them.
	Matched int             `json:"matched"`
	Changes []VerdictChange `json:"changes"`
	New     []Expectation   `json:"new"`
}

// Compare compares the verdicts of the variants that ran in g with the rows of table for
// version; runID names this run in the New rows. Variants that did not run are not compared.
func Compare(g *Report, table []Expectation, version, runID string) ExpectationCheck {
	c := ExpectationCheck{Version: version, Changes: []VerdictChange{}, New: []Expectation{}}
	for _, v := range g.Variants {
		for _, s := range v.Sidecars {
			i := slices.IndexFunc(table, func(e Expectation) bool {
				return e.Version == version && e.Variant == v.Name && e.Sidecar == s.Role
			})
			switch {
			case i < 0:
				c.New = append(c.New, Expectation{Version: version, Variant: v.Name, Sidecar: s.Role,
					Verdict: s.Growth.Verdict, SlopeKiBPer1000: math.Round(s.Growth.SlopeKiBPer1000), Run: runID})
			case table[i].Verdict == s.Growth.Verdict:
				c.Matched++
			default:
				e := table[i]
				c.Changes = append(c.Changes, VerdictChange{Variant: v.Name, Sidecar: s.Role,
					Expected: e.Verdict, ExpectedSlopeKiBPer1000: e.SlopeKiBPer1000, ExpectedRun: e.Run,
					Got: s.Growth.Verdict, GotSlopeKiBPer1000: s.Growth.SlopeKiBPer1000})
			}
		}
	}
	return c
}
