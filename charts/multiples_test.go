package charts

import (
	"bytes"
	"fmt"
	"image/png"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Up to maxOverlaid processes share one panel, each in a colour of its own; past it every
// process gets a panel of its own on the same axes, coloured by role, and the legend names
// the roles.
func TestResourceChartDrawsSmallMultiplesPastEightProcesses(t *testing.T) {
	rep := readFixture(t, httpDir)
	rd := &rep.Rounds[len(rep.Rounds)-1]
	n := len(rd.Resources)
	require.LessOrEqual(t, n, maxOverlaid)
	fig, err := cpuChart(rep)
	require.NoError(t, err)
	require.NotNil(t, fig)
	assert.Nil(t, fig.multiples, "%d processes share one panel", n)
	assert.Len(t, fig.entries, n, "a legend entry per process")

	base := slices.Clone(rd.Resources)
	for k := 0; len(rd.Resources) < 13; k++ { // 13 processes: four rows, the last with one panel
		s := base[k%len(base)]
		s.Process = fmt.Sprintf("%s-%d", s.Process, k+2)
		rd.Resources = append(rd.Resources, s)
	}
	fig, err = rssChart(rep)
	require.NoError(t, err)
	require.Len(t, fig.multiples, 4, "13 panels, %d a row", multipleCols)
	panels := fig.plots()[1:]
	require.Len(t, panels, 13)
	for _, p := range panels {
		assert.Equal(t, panels[0].Y.Max, p.Y.Max, "%s: the same y axis as the first panel", p.Title.Text)
		assert.Equal(t, panels[0].X.Max, p.X.Max)
		assert.Zero(t, p.Y.Min)
	}
	assert.Equal(t, rd.Resources[12].Process, panels[12].Title.Text, "each panel titled with its process")
	var roles []string
	for _, s := range rd.Resources {
		if !slices.Contains(roles, orNone(s.Role)) {
			roles = append(roles, orNone(s.Role))
		}
	}
	var names []string
	for _, e := range fig.entries {
		names = append(names, e.name)
	}
	assert.Equal(t, roles, names, "the legend names the roles, each once")
	assert.Contains(t, fig.Plot.Title.Text, "13 processes, one panel each on the same axes")

	img, err := fig.render()
	require.NoError(t, err)
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	require.NoError(t, err)
	assert.Equal(t, chartWidth, cfg.Width)
	assert.Greater(t, cfg.Height, 4*multipleHeight, "the rows, the title above them and the legend below")
	svg, err := fig.renderSVG()
	require.NoError(t, err)
	assert.Contains(t, string(svg), rd.Resources[12].Process)
}
