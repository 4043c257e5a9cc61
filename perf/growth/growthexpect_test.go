package growth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const expectHead = "version,variant,sidecar,verdict,slope,run\n"

func TestReadGrowthExpectations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "expected.csv")
	require.NoError(t, os.WriteFile(path, []byte("# a comment\n"+expectHead+
		"1.17.5,b-unique,caller-sidecar,growing,2731,run-1\n"+
		"1.17.5, a-fixed, caller-sidecar, flat, 101.5, run-1\n"), 0o644))
	rows, err := ReadExpectations(path)
	require.NoError(t, err)
	assert.Equal(t, []Expectation{
		{Version: "1.17.5", Variant: "b-unique", Sidecar: "caller-sidecar", Verdict: Growing, SlopeKiBPer1000: 2731, Run: "run-1"},
		{Version: "1.17.5", Variant: "a-fixed", Sidecar: "caller-sidecar", Verdict: Flat, SlopeKiBPer1000: 101.5, Run: "run-1"},
	}, rows)
	assert.Equal(t, "1.17.5,a-fixed,caller-sidecar,flat,101.5,run-1", rows[1].CSV())
}

func TestReadGrowthExpectationsErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"version,variant,verdict\n", `must be "version,variant,sidecar,verdict,slope,run"`},
		{expectHead + "1.17.5,b,caller-sidecar,leaking,1,r\n", `line 2: verdict "leaking": must be flat, growing or retained`},
		{expectHead + "1.17.5,b,caller-sidecar,flat,fast,r\n", `line 2: slope "fast": must be a number`},
		{expectHead + ",b,caller-sidecar,flat,1,r\n", "line 2: version is empty"},
		{expectHead + "1.17.5,b,caller-sidecar,flat,1,r\n1.17.5,b,caller-sidecar,growing,9,r\n", "line 3: version 1.17.5, variant b, sidecar caller-sidecar: already on line 2"},
		{expectHead + "1.17.5,b,flat\n", "line 2: 3 fields: must be 6"},
	} {
		path := filepath.Join(t.TempDir(), "expected.csv")
		require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
		_, err := ReadExpectations(path)
		require.Error(t, err, tc.text)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), path)
	}
	_, err := ReadExpectations(filepath.Join(t.TempDir(), "missing.csv"))
	require.Error(t, err)
}

func sidecarWith(role string, verdict Verdict, slope float64) Sidecar {
	return Sidecar{Role: role, Growth: Classification{Verdict: verdict, SlopeKiBPer1000: slope}}
}

func TestCompareGrowth(t *testing.T) {
	table := []Expectation{
		{Version: "1.17.5", Variant: "a-fixed", Sidecar: "caller-sidecar", Verdict: Flat, SlopeKiBPer1000: 101, Run: "old"},
		{Version: "1.17.5", Variant: "b-unique", Sidecar: "caller-sidecar", Verdict: Growing, SlopeKiBPer1000: 2731, Run: "old"},
		{Version: "1.17.5", Variant: "c-unique", Sidecar: "caller-sidecar", Verdict: Growing, SlopeKiBPer1000: 2435, Run: "old"},
		{Version: "1.16.5", Variant: "b-unique", Sidecar: "callee-sidecar", Verdict: Growing, SlopeKiBPer1000: 2891, Run: "old"},
	}
	g := &Report{Variants: []Variant{
		{Name: "a-fixed", Sidecars: []Sidecar{sidecarWith("caller-sidecar", Flat, 90)}},
		// A release that fixed the growth: reported with both slopes.
		{Name: "b-unique", Sidecars: []Sidecar{sidecarWith("caller-sidecar", Flat, 120.4), sidecarWith("callee-sidecar", Growing, 3000.4)}},
		// c-unique did not run: not compared.
	}}
	c := Compare(g, table, "1.17.5", "new-run")
	assert.Equal(t, 1, c.Matched)
	require.Len(t, c.Changes, 1)
	assert.Equal(t, VerdictChange{Variant: "b-unique", Sidecar: "caller-sidecar", Expected: Growing, ExpectedSlopeKiBPer1000: 2731,
		ExpectedRun: "old", Got: Flat, GotSlopeKiBPer1000: 120.4}, c.Changes[0])
	assert.Equal(t, "b-unique caller-sidecar: growing (2731 KiB/1000 requests, old) -> flat (120)", c.Changes[0].String())
	assert.Equal(t, []Expectation{{Version: "1.17.5", Variant: "b-unique", Sidecar: "callee-sidecar", Verdict: Growing,
		SlopeKiBPer1000: 3000, Run: "new-run"}}, c.New)

	unknown := Compare(g, table, "1.18.0", "new-run")
	assert.Zero(t, unknown.Matched)
	assert.Empty(t, unknown.Changes)
	assert.Len(t, unknown.New, 3)
}

// readings makes load readings every 3,000 requests with the given series counts (-1: off)
// and a last idle reading with the last count.
func readings(series ...int) []Reading {
	var out []Reading
	for i, s := range series {
		out = append(out, Reading{Label: "r", Requests: int64(3000 * i), Series: s})
	}
	last := out[len(out)-1]
	last.Label = "idle"
	return append(out, last)
}

func TestCheckGrowth(t *testing.T) {
	sidecar := func(role string, verdict Verdict, slope float64, series ...int) Sidecar {
		s := sidecarWith(role, verdict, slope)
		s.Readings = readings(series...)
		if first, second, last := series[0], series[1], series[len(series)-1]; first >= 0 {
			s.SeriesPerRequest = float64(last-first) / float64(3000*(len(series)-1))
			s.SeriesTailPerRequest = float64(last-second) / float64(3000*(len(series)-2))
		}
		return s
	}
	g := &Report{ThresholdKiBPer1000: 512, Variants: []Variant{
		{Name: "a-fixed", Control: true, Sidecars: []Sidecar{
			sidecar("caller-sidecar", Flat, 101, 263, 263, 263, 263),
			sidecar("callee-sidecar", Retained, 300, 242, 242, 242, 242),
		}},
		{Name: "b-unique", UniquePath: true, Sidecars: []Sidecar{
			sidecar("caller-sidecar", Growing, 2731, 263, 117263, 234263, 351263), // 39 per request
			sidecar("callee-sidecar", Flat, 300, 242, 162242, 324242, 486242),     // 54 per request, RSS flat
		}},
		{Name: "c-unique-enable-metrics-false", UniquePath: true, Sidecars: []Sidecar{
			sidecar("caller-sidecar", Growing, 2435, -1, -1, -1, -1),
		}},
		{Name: "g-leak", UniquePath: true, Sidecars: []Sidecar{
			sidecar("caller-sidecar", Growing, 2000, 263, 263, 263, 263), // RSS grows, series flat
			sidecar("callee-sidecar", Flat, 50, 242, 250, 260, 270),      // a few series: not asserted
		}},
		{Name: "h-stepped", UniquePath: true, Sidecars: []Sidecar{
			sidecar("caller-sidecar", Growing, 2000, 263, 302, 302, 302), // one new label set, then flat
		}},
	}}
	var got []string
	for _, c := range RunChecks(g) {
		got = append(got, c.String())
	}
	want := []string{
		"control flat, a-fixed caller-sidecar: pass (flat, slope 101, tail 0 KiB/1000 requests)",
		"series agree with RSS, a-fixed caller-sidecar: pass",
		"control flat, a-fixed callee-sidecar: FAIL (retained, slope 300",
		"series agree with RSS, a-fixed callee-sidecar: pass",
		"series agree with RSS, b-unique caller-sidecar: pass (series +39.000 per request, +39.000 after round 1 (at least 1904 KiB/1000 requests of RSS); RSS growing",
		"series agree with RSS, b-unique callee-sidecar: FAIL (series +54.000 per request, +54.000 after round 1 (at least 2637 KiB/1000 requests of RSS); RSS flat with slope 300: the series grow past the threshold (512) but RSS does not)",
		"series agree with RSS, c-unique-enable-metrics-false caller-sidecar: pass (no /metrics endpoint: nothing to compare)",
		"series agree with RSS, g-leak caller-sidecar: FAIL (series +0.000 per request, +0.000 after round 1 (at least 0 KiB/1000 requests of RSS); RSS growing with slope 2000: RSS grows but the series do not)",
		"series agree with RSS, g-leak callee-sidecar: pass",
		"series agree with RSS, h-stepped caller-sidecar: FAIL (series +0.004 per request, +0.000 after round 1",
	}
	require.Len(t, got, len(want))
	for i := range want {
		assert.True(t, strings.HasPrefix(got[i], want[i]), "got  %s\nwant %s", got[i], want[i])
	}
}
