package local

import (
	"encoding/json"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolverTemplate(t *testing.T) {
	tmpl := resolverTemplate(map[string]int{"b": 5678, "a": 1234, `odd"id`: 42})
	assert.Equal(t, `{{if eq .ID "a"}}127.0.0.1:1234{{else if eq .ID "b"}}127.0.0.1:5678{{else if eq .ID "odd\"id"}}127.0.0.1:42{{end}}`, tmpl)

	// It evaluates as daprd's resolver does: with the target's id in .ID.
	parsed, err := template.New("t").Parse(tmpl)
	require.NoError(t, err)
	for id, want := range map[string]string{"a": "127.0.0.1:1234", "b": "127.0.0.1:5678", `odd"id`: "127.0.0.1:42", "zzz": ""} {
		var got strings.Builder
		require.NoError(t, parsed.Execute(&got, struct{ ID string }{id}))
		assert.Equal(t, want, got.String(), id)
	}
	assert.Empty(t, resolverTemplate(nil))
}

func TestSidecarConfigMerge(t *testing.T) {
	type http struct {
		IncreasedCardinality bool `json:"increasedCardinality"`
	}
	extra := map[string]any{
		"metric":  map[string]any{"http": http{IncreasedCardinality: false}},
		"tracing": map[string]string{"samplingRate": "0"},
		// Deep merge: a key next to the platform's keeps them.
		"nameResolution": map[string]any{"configuration": map[string]any{"clusterDomain": "local"}},
	}
	b, err := sidecarConfig("callee", map[string]int{"callee": 1}, extra)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "dapr.io/v1alpha1", got["apiVersion"])
	assert.Equal(t, "Configuration", got["kind"])
	assert.Equal(t, map[string]any{"name": "callee-config"}, got["metadata"])
	spec := got["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"http": map[string]any{"increasedCardinality": false}}, spec["metric"])
	assert.Equal(t, map[string]any{"samplingRate": "0"}, spec["tracing"])
	assert.Equal(t, map[string]any{
		"component": "kubernetes",
		"configuration": map[string]any{
			"template":      `{{if eq .ID "callee"}}127.0.0.1:1{{end}}`,
			"clusterDomain": "local",
		},
	}, spec["nameResolution"])

	_, err = sidecarConfig("bad", nil, map[string]any{"f": func() {}})
	assert.ErrorContains(t, err, "bad")
}
