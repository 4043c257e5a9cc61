package secondsjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// UnknownField returns the first member of the JSON value b, at any depth, that no field of
// type t takes, as "executor.stages[2].tagret"; "" when every member is known (or b is not
// JSON, which the decoder reports). json.Decoder.DisallowUnknownFields stops at a type with
// its own UnmarshalJSON, as the types that write their durations here have, so a strict reader
// (the tester app's POST /test) checks with this too. A struct's fields are the ones
// encoding/json takes, those of embedded structs included, matched without regard to case; a
// time.Duration field also takes its name with Suffix. A type that reads itself from text
// (time.Time) and an interface are not looked into.
func UnknownField(b []byte, t reflect.Type) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return ""
	}
	return unknownIn(v, t, "")
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func unknownIn(v any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[time.Time]() || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return ""
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		fields := map[string]reflect.Type{}
		jsonFields(t, fields)
		for key, member := range obj {
			ft, ok := fields[strings.ToLower(key)]
			if !ok {
				return join(path, key)
			}
			if f := unknownIn(member, ft, join(path, key)); f != "" {
				return f
			}
		}
	case reflect.Slice, reflect.Array:
		if list, ok := v.([]any); ok {
			for i, e := range list {
				if f := unknownIn(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); f != "" {
					return f
				}
			}
		}
	case reflect.Map:
		if obj, ok := v.(map[string]any); ok {
			for key, e := range obj {
				if f := unknownIn(e, t.Elem(), join(path, key)); f != "" {
					return f
				}
			}
		}
	}
	return ""
}

// jsonFields adds t's JSON member names, lower-cased, with each one's type, to out: the
// exported fields and those of embedded structs (untagged), a duration's name with Suffix too.
func jsonFields(t reflect.Type, out map[string]reflect.Type) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && !strings.HasPrefix(tag, "-,") {
			continue
		}
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				jsonFields(et, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = ft
		if ft == durationType {
			out[strings.ToLower(name+Suffix)] = ft
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
