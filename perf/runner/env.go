package runner

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/kelseyhightower/envconfig"
)

// LoadEnv reads every variable of perf.Env through envconfig and checks each set one against
// its range. Run calls it once per run and passes the result down in perf.RunConfig.Env: the
// plans, the report, the push, the platforms and the scenarios read no environment. The error names each bad variable, its value and what it accepts (the accepts tag),
// all of them at once; the Env returned with an error has the good fields set.
func LoadEnv() (perf.Env, error) {
	var env perf.Env
	if err := envconfig.Process("", &env); err != nil {
		// envconfig stops at the first bad value: parse and check every variable to name them all.
		errs := check(&env, true)
		if len(errs) == 0 {
			errs = []error{envError(err)}
		}
		return env, fmt.Errorf("perf: env: %w", errors.Join(errs...))
	}
	if errs := check(&env, false); len(errs) > 0 {
		return env, fmt.Errorf("perf: env: %w", errors.Join(errs...))
	}
	return env, nil
}

// check returns one error per set field whose value is out of its range. With parse (envconfig
// stopped at a bad value and set none of the fields after it) it first parses each set
// variable itself, so that every bad one is named, leaving the fields it could parse set.
func check(e *perf.Env, parse bool) []error {
	var errs []error
	v := reflect.ValueOf(e).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		name := f.Tag.Get("envconfig")
		raw, set := os.LookupEnv(name)
		if !set {
			fv.SetZero()
			continue
		}
		bad := func() { errs = append(errs, fmt.Errorf("%s=%q: must be %s", name, raw, f.Tag.Get("accepts"))) }
		if parse {
			p := reflect.New(f.Type.Elem())
			if !parseInto(p.Elem(), raw) {
				bad()
				fv.SetZero() // envconfig may have allocated it before its parse failed
				continue
			}
			fv.Set(p)
		}
		if fv.IsNil() || raw == "" && f.Type.Elem().Kind() == reflect.String {
			continue // a set but empty text variable counts as unset (Val)
		}
		if !inRange(fv.Elem(), f.Tag) {
			bad()
		}
	}
	return errs
}

// parseInto parses raw into dst (an int, float64, time.Duration or string).
func parseInto(dst reflect.Value, raw string) bool {
	switch dst.Interface().(type) {
	case time.Duration:
		d, err := time.ParseDuration(raw)
		dst.SetInt(int64(d))
		return err == nil
	case int:
		n, err := strconv.Atoi(raw)
		dst.SetInt(int64(n))
		return err == nil
	case float64:
		x, err := strconv.ParseFloat(raw, 64)
		dst.SetFloat(x)
		return err == nil
	case string:
		dst.SetString(raw)
		return true
	}
	return false
}

// inRange checks x against the tags min, max, gt (numbers and durations), maxlen and oneof
// (strings).
func inRange(x reflect.Value, tag reflect.StructTag) bool {
	num := func(s string) float64 {
		if d, err := time.ParseDuration(s); err == nil && strings.ContainsAny(s, "hms") {
			return float64(d)
		}
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	var val float64
	switch x.Kind() {
	case reflect.Int, reflect.Int64:
		val = float64(x.Int())
	case reflect.Float64:
		val = x.Float()
		if val != val { // NaN
			return false
		}
	case reflect.String:
		s := x.String()
		if m := tag.Get("maxlen"); m != "" && float64(len(s)) > num(m) {
			return false
		}
		if o := tag.Get("oneof"); o != "" {
			for _, w := range strings.Fields(o) {
				if s == w {
					return true
				}
			}
			return false
		}
		return true
	}
	if m, ok := tag.Lookup("min"); ok && val < num(m) {
		return false
	}
	if m, ok := tag.Lookup("max"); ok && val > num(m) {
		return false
	}
	if m, ok := tag.Lookup("gt"); ok && val <= num(m) {
		return false
	}
	return true
}

// envError rewrites envconfig's parse error so that it names the variable, the value and the
// expected type, without envconfig's Go field names.
func envError(err error) error {
	var pe *envconfig.ParseError
	if errors.As(err, &pe) {
		typ := strings.TrimPrefix(pe.TypeName, "*")
		accepts := map[string]string{"int": "an integer", "time.Duration": "a Go duration such as 30s or 1m"}[typ]
		if accepts == "" {
			accepts = "a value of type " + typ
		}
		return fmt.Errorf("%s=%q: must be %s (%v)", pe.KeyName, pe.Value, accepts, pe.Err)
	}
	return err
}

// EnvFor is LoadEnv for a test that sets variables with t.Setenv and hands the result on as a
// run would (a platform's WithEnv, a plan's RunConfig.Env): a bad value fails t.
func EnvFor(t perf.TB) perf.Env {
	t.Helper()
	env, err := LoadEnv()
	if err != nil {
		t.Fatal(err)
	}
	return env
}
