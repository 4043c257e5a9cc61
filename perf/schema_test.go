package perf_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/secondsjson"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite docs/result.schema.json from perf.Report")

// resultSchema is the JSON Schema of a result file, derived from perf.Report's Go types and
// JSON tags (github.com/invopop/jsonschema). No field is required, since files written before
// a field existed lack it; types, formats and nesting are what it checks.
func resultSchema(t *testing.T) []byte {
	t.Helper()
	r := jsonschema.Reflector{RequiredFromJSONSchemaTags: true, AllowAdditionalProperties: true,
		// Types of different packages share names (perf.Report, growth.Report): the package
		// names each definition.
		Namer: func(t reflect.Type) string {
			if t.PkgPath() == "" {
				return t.Name()
			}
			return path.Base(t.PkgPath()) + "." + t.Name()
		},
		// A time.Duration field is written in seconds under its name with "Seconds" after it
		// (schema 2, package secondsjson); files of schema 1 hold integer nanoseconds under
		// the bare name. Marked here, both named by secondsProperties below.
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeFor[time.Duration]() {
				return &jsonschema.Schema{Type: "integer", Format: durationMark}
			}
			return nil
		}}
	s := r.Reflect(&perf.Report{})
	s.ID = "https://github.com/daprperf/daprperf/docs/result.schema.json"
	s.Title = "daprperf result file (result.json)"
	s.Description = "One scenario's run as perf.Report writes it; generated from perf.Report by go test ./perf -run TestResultSchema -update-schema."
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	// Go writes a nil slice, map or pointer as null: every array and object may be null.
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	allowNull(doc)
	secondsProperties(doc)
	if b, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// durationMark marks a time.Duration property until secondsProperties names it.
const durationMark = "time.Duration"

// secondsProperties gives every object of the schema v whose property p is a time.Duration the
// property pSeconds, a number, and says p is the nanoseconds of files of schema 1.
func secondsProperties(v any) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for name, p := range props {
				if p, ok := p.(map[string]any); ok && p["format"] == durationMark {
					delete(p, "format")
					p["description"] = "Nanoseconds: result files of schema 1; schema 2 writes " + name + secondsjson.Suffix + "."
					props[name+secondsjson.Suffix] = map[string]any{"type": "number", "description": "Seconds (schema 2)."}
				}
			}
		}
		for _, c := range x {
			secondsProperties(c)
		}
	case []any:
		for _, c := range x {
			secondsProperties(c)
		}
	}
}

// allowNull turns every "type": "array" or "object" in the schema v into [type, "null"].
func allowNull(v any) {
	switch x := v.(type) {
	case map[string]any:
		if ty, ok := x["type"].(string); ok && (ty == "array" || ty == "object") {
			x["type"] = []any{ty, "null"}
		}
		for _, c := range x {
			allowNull(c)
		}
	case []any:
		for _, c := range x {
			allowNull(c)
		}
	}
}

// TestResultSchema keeps docs/result.schema.json equal to perf.Report's schema, and checks
// every committed result file (the published references and runs under reports/, and the
// fixtures) against it: an old file that no longer reads as the types say fails here.
func TestResultSchema(t *testing.T) {
	root, err := perf.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "result.schema.json")
	want := resultSchema(t)
	if *updateSchema {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from perf.Report's schema: go test ./perf -run TestResultSchema -update-schema", path)
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("result.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{"rounds": "three"}`, `{"environment": {"startTime": 5}}`, `{"verdicts": [{"limit": "2 ms"}]}`, `{"params": {"durationSeconds": "ten"}}`} {
		v, err := validator.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("the schema takes %s", bad)
		}
	}
	n := 0
	for _, dir := range []string{filepath.Join(root, "reports"), filepath.Join(root, "charts", "testdata")} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p == filepath.Join(root, "reports", perf.RunsDir) {
				return fs.SkipDir // unpublished runs, not committed
			}
			if d.IsDir() || d.Name() != "result.json" || strings.Contains(p, "malformed") {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			v, err := validator.UnmarshalJSON(f)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				return nil
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s: %v", p, err)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 100 {
		t.Errorf("%d committed result files checked, expected the references and fixtures", n)
	}
	t.Logf("%d committed result files valid against docs/result.schema.json", n)
}
