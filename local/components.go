package local

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/daprperf/daprperf/perf"
)

// writeComponents writes one Dapr Component resource per component name into the resources
// folder every daprd loads (<name>.yaml), scoped to the apps whose sidecars name it, and
// pointed at the backend planBackends took ports for. validateComponents has made sure a name
// has one definition.
func (d *Deployment) writeComponents(apps []perf.App) error {
	defs := map[string]perf.Component{}
	scopes := map[string][]string{}
	for _, a := range apps {
		if a.Sidecar == nil {
			continue
		}
		for _, c := range a.Sidecar.Components {
			defs[c.Name] = c
			scopes[c.Name] = append(scopes[c.Name], a.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		c := defs[name]
		var conn map[string]string
		if be := c.Backend(); be != perf.NoBackend {
			b := d.backend(be)
			if b == nil {
				return fmt.Errorf("component %s: no %s backend planned", name, be)
			}
			conn = b.kind.metadata(b)
		}
		doc, err := componentResource(c, conn, scopes[name])
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d.resourcesDir(), name+".yaml"), doc, 0o644); err != nil {
			return fmt.Errorf("component %s: %w", name, err)
		}
	}
	return nil
}

// backend is the planned backend of kind be, or nil.
func (d *Deployment) backend(be perf.Backend) *backendServer {
	for _, b := range d.backends {
		if b.backend == be {
			return b
		}
	}
	return nil
}

// componentResource is c as a Dapr Component resource, in JSON (which daprd reads as YAML):
// spec.type, spec.version, spec.metadata (conn, the platform's connection keys, then
// c.Metadata, each sorted by name) and scopes, the app ids allowed to load it.
func componentResource(c perf.Component, conn map[string]string, scopes []string) ([]byte, error) {
	type item struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	md := []item{}
	for _, m := range []map[string]string{conn, c.Metadata} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			md = append(md, item{k, m[k]})
		}
	}
	res := map[string]any{
		"apiVersion": "dapr.io/v1alpha1",
		"kind":       "Component",
		"metadata":   map[string]any{"name": c.Name},
		"spec": map[string]any{
			"type":     string(c.Type),
			"version":  c.SpecVersion(),
			"metadata": md,
		},
		"scopes": slices.Sorted(slices.Values(scopes)),
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("component %s: %w", c.Name, err)
	}
	return append(b, '\n'), nil
}
