package local

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// sidecarConfig returns the Dapr Configuration resource of app's daprd, as JSON (which is
// valid YAML, the format daprd reads). Its spec resolves names with the kubernetes resolver
// and a template mapping each app id in internalGRPC to 127.0.0.1:<that internal gRPC port>;
// then extra (perf.Sidecar.Config) is deep-merged into the spec, so a scenario may add
// keys such as metric.http.increasedCardinality or override any of the platform's.
func sidecarConfig(app string, internalGRPC map[string]int, extra map[string]any) ([]byte, error) {
	spec := map[string]any{
		"nameResolution": map[string]any{
			"component": "kubernetes",
			"configuration": map[string]any{
				"template": resolverTemplate(internalGRPC),
			},
		},
	}
	if len(extra) > 0 {
		// A JSON round trip turns any map or struct types the scenario used into map[string]any.
		b, err := json.Marshal(extra)
		if err != nil {
			return nil, fmt.Errorf("config of %s: sidecar config: %w", app, err)
		}
		var norm map[string]any
		if err := json.Unmarshal(b, &norm); err != nil {
			return nil, fmt.Errorf("config of %s: sidecar config: %w", app, err)
		}
		deepMerge(spec, norm)
	}
	cfg := map[string]any{
		"apiVersion": "dapr.io/v1alpha1",
		"kind":       "Configuration",
		"metadata":   map[string]any{"name": app + "-config"},
		"spec":       spec,
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("config of %s: %w", app, err)
	}
	return append(b, '\n'), nil
}

// resolverTemplate returns the Go template the kubernetes name resolver evaluates with the
// target's app id as .ID, e.g.
//
//	{{if eq .ID "a"}}127.0.0.1:1234{{else if eq .ID "b"}}127.0.0.1:5678{{end}}
//
// An id not in internalGRPC resolves to "", which daprd reports as a failed resolution.
func resolverTemplate(internalGRPC map[string]int) string {
	var b strings.Builder
	for i, id := range slices.Sorted(maps.Keys(internalGRPC)) {
		if i == 0 {
			b.WriteString("{{if eq .ID ")
		} else {
			b.WriteString("{{else if eq .ID ")
		}
		// A Go-quoted string is a valid template string literal, whatever the id holds.
		fmt.Fprintf(&b, "%s}}127.0.0.1:%d", strconv.Quote(id), internalGRPC[id])
	}
	if len(internalGRPC) > 0 {
		b.WriteString("{{end}}")
	}
	return b.String()
}

// deepMerge merges src into dst: a key whose values are maps on both sides is merged
// recursively; any other value from src replaces dst's.
func deepMerge(dst, src map[string]any) {
	for k, sv := range src {
		sm, sIsMap := sv.(map[string]any)
		dm, dIsMap := dst[k].(map[string]any)
		if sIsMap && dIsMap {
			deepMerge(dm, sm)
			continue
		}
		dst[k] = sv
	}
}
