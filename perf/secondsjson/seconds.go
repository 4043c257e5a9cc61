// Package secondsjson writes the time.Duration fields of a struct to JSON as seconds, a number,
// under the field's name with "Seconds" after it, and reads either that or the bare name in
// integer nanoseconds, as encoding/json writes a time.Duration.
//
// A result file (perf.Report) is read by people, by scripts and by Grafana: a number whose
// unit is in its name needs no Go to read. Schema 2 files write "durationSeconds": 60; schema 1
// files wrote "duration": 60000000000, which every reader still takes.
//
// The struct types that use it call Marshal and Unmarshal from their MarshalJSON and
// UnmarshalJSON methods with a value of a local type of the same fields and no methods (type
// plain T), so that encoding/json does the rest. Only the struct's own fields are renamed, not
// those of embedded structs (which are written by their own methods).
package secondsjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Suffix is what a duration field's JSON name gets in seconds.
const Suffix = "Seconds"

var durationType = reflect.TypeFor[time.Duration]()

// fieldsOf caches the JSON names of each struct type's own time.Duration fields.
var fieldsOf sync.Map // reflect.Type -> map[string]bool

// durationNames are the JSON names of t's own exported time.Duration fields (the tag's name,
// else the Go name); t is a struct type.
func durationNames(t reflect.Type) map[string]bool {
	if v, ok := fieldsOf.Load(t); ok {
		return v.(map[string]bool)
	}
	names := map[string]bool{}
	for f := range t.Fields() {
		if !f.IsExported() || f.Anonymous || f.Type != durationType {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
	}
	fieldsOf.Store(t, names)
	return names
}

// Marshal is json.Marshal of v, a struct (not a pointer), with each of its own time.Duration
// fields written as seconds under <name>Seconds, in the field's place. The seconds are the
// shortest decimal that reads back as the same float64; nanoseconds up to 2^53 (104 days)
// come back exact.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	names := durationNames(reflect.TypeOf(v))
	if len(names) == 0 {
		return b, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("secondsjson: %T is not written as a JSON object", v)
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if names[key] {
			ns, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("secondsjson: %T.%s: %w", v, key, err)
			}
			key += Suffix
			raw = strconv.AppendFloat(nil, time.Duration(ns).Seconds(), 'g', -1, 64)
		}
		if i > 0 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(raw)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// Unmarshal is json.Unmarshal into v, a pointer to a struct, reading each of its own
// time.Duration fields from <name>Seconds (seconds) or, in files written before, from <name>
// (integer nanoseconds). Seconds are rounded to the nanosecond; a value outside time.Duration's
// range is an error naming the field.
func Unmarshal(b []byte, v any) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	names := durationNames(reflect.TypeOf(v).Elem())
	written := false // whether b may hold a field in seconds: else it reads as it is
	for name := range names {
		written = written || bytes.Contains(b, []byte(`"`+name+Suffix+`"`))
	}
	if !written {
		return json.Unmarshal(b, v)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for name := range names {
		raw, ok := m[name+Suffix]
		if !ok {
			continue
		}
		delete(m, name+Suffix)
		if string(raw) == "null" {
			continue
		}
		var s float64
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("secondsjson: %s%s: %w", name, Suffix, err)
		}
		ns := math.Round(s * 1e9)
		if math.IsNaN(ns) || ns >= math.MaxInt64 || ns < math.MinInt64 {
			return fmt.Errorf("secondsjson: %s%s = %g: outside a time.Duration's ±292 years", name, Suffix, s)
		}
		m[name] = json.RawMessage(strconv.FormatInt(int64(ns), 10))
	}
	rebuilt, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(rebuilt, v)
}
