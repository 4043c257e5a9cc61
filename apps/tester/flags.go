package tester

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/apps/internal/serve"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// MinTokenLength is the shortest token the tester accepts: perf.NewTesterToken makes 26
// characters; 16 rules out a placeholder such as "test" or "changeme".
const MinTokenLength = 16

// Flags is the tester's command line and environment, parsed.
type Flags struct {
	Port   int    // -port: TCP port, 0 picks a free one
	Config Config // -host, the allow-list, the limits and the token
}

// ParseFlags reads the tester's flags from args (without the program name) and its
// environment through lookupEnv (os.LookupEnv):
//
//	-port N, -host IP
//	-allow host:port[,host:port...] (repeatable)  or env DAPRPERF_TESTER_ALLOW
//	-max-qps N                                     or env DAPRPERF_TESTER_MAX_QPS
//	-max-connections N                             or env DAPRPERF_TESTER_MAX_CONNECTIONS
//	-max-duration D                                or env DAPRPERF_TESTER_MAX_DURATION
//	-max-iterations N                              or env DAPRPERF_TESTER_MAX_ITERATIONS
//	env DAPRPERF_TESTER_TOKEN                      (no flag: ps would show it)
//
// Each setting comes from its flag or its variable; both at once is an error, so that the
// source a refusal names is the only one. A bad value is an error naming the flag or the
// variable and what it accepts; the error has been written to stderr. flag.ErrHelp is
// returned for -h.
func ParseFlags(args []string, lookupEnv func(string) (string, bool), stderr io.Writer) (Flags, error) {
	var f Flags
	var allow []string
	fs := flag.NewFlagSet("tester", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var((*serve.Port)(&f.Port), "port", "TCP `port` on "+serve.Host+" (0 picks a free port)")
	fs.StringVar(&f.Config.Host, "host", serve.Host, "IP `address` to listen on; 0.0.0.0 serves every interface (in a pod), and then needs env "+perf.EnvTesterToken)
	fs.Func(perf.TesterFlagAllow, "targets POST /test may load, comma-separated `host:port` (repeatable; or env "+perf.EnvTesterAllow+")",
		func(s string) error { allow = append(allow, s); return nil })
	maxQPS := fs.String(perf.TesterFlagMaxQPS, "", fmt.Sprintf("highest target `rate` accepted, requests/s (default %d; or env %s)", perf.MaxQPS, perf.EnvTesterMaxQPS))
	maxConns := fs.String(perf.TesterFlagMaxConnections, "", fmt.Sprintf("most `connections` accepted (default %d; or env %s)", perf.MaxConnections, perf.EnvTesterMaxConnections))
	maxDur := fs.String(perf.TesterFlagMaxDuration, "", fmt.Sprintf("longest run accepted, a Go `duration` (default %v; or env %s)", perf.MaxDuration, perf.EnvTesterMaxDuration))
	maxIter := fs.String(perf.TesterFlagMaxIterations, "", fmt.Sprintf("most `iterations` an executor may plan (default %d; or env %s)", int64(driver.MaxIterations), perf.EnvTesterMaxIterations))
	if err := fs.Parse(args); err != nil {
		return Flags{}, err
	}
	fail := func(err error) (Flags, error) {
		_, _ = fmt.Fprintf(stderr, "tester: %v\n", err)
		return Flags{}, err
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q: tester takes flags only", fs.Arg(0)))
	}
	if err := serve.CheckHost(f.Config.Host); err != nil {
		return fail(fmt.Errorf("-host %q: %w", f.Config.Host, err))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	// pick returns the flag's value or the variable's, and its source; "" when neither is set.
	pick := func(name, env, flagValue string) (value, source string, err error) {
		v, inEnv := lookupEnv(env)
		switch {
		case set[name] && inEnv:
			return "", "", fmt.Errorf("-%s and env %s are both set: set one", name, env)
		case set[name]:
			return flagValue, "flag -" + name, nil
		case inEnv:
			return v, "env " + env, nil
		}
		return "", "", nil
	}
	var errs []error
	v, src, err := pick(perf.TesterFlagAllow, perf.EnvTesterAllow, strings.Join(allow, ","))
	errs = append(errs, err)
	if err == nil {
		f.Config.Allow, err = NewAllowList(src, v)
		errs = append(errs, err)
	}
	l := &f.Config.Limits
	positive := func(name, env, flagValue string, hi int, dst *int, srcDst *string) {
		v, src, err := pick(name, env, flagValue)
		if err != nil || src == "" {
			errs = append(errs, err)
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > hi {
			errs = append(errs, fmt.Errorf("%s = %q: must be an integer from 1 to %d", src, v, hi))
			return
		}
		*dst, *srcDst = n, src
	}
	positive(perf.TesterFlagMaxQPS, perf.EnvTesterMaxQPS, *maxQPS, perf.MaxQPS, &l.MaxQPS, &l.QPSSource)
	positive(perf.TesterFlagMaxConnections, perf.EnvTesterMaxConnections, *maxConns, perf.MaxConnections, &l.MaxConnections, &l.ConnectionsSource)
	if v, src, err := pick(perf.TesterFlagMaxDuration, perf.EnvTesterMaxDuration, *maxDur); err != nil {
		errs = append(errs, err)
	} else if src != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < perf.MinDuration || d > perf.MaxDuration {
			errs = append(errs, fmt.Errorf("%s = %q: must be a Go duration from %v to %v, such as 2m", src, v, perf.MinDuration, perf.MaxDuration))
		} else {
			l.MaxDuration, l.DurationSource = d, src
		}
	}
	if v, src, err := pick(perf.TesterFlagMaxIterations, perf.EnvTesterMaxIterations, *maxIter); err != nil {
		errs = append(errs, err)
	} else if src != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 || n > driver.MaxIterations {
			errs = append(errs, fmt.Errorf("%s = %q: must be an integer from 1 to %d", src, v, int64(driver.MaxIterations)))
		} else {
			l.MaxIterations, l.IterationsSource = n, src
		}
	}
	if token, ok := lookupEnv(perf.EnvTesterToken); ok {
		if len(token) < MinTokenLength || strings.TrimSpace(token) != token {
			errs = append(errs, fmt.Errorf("env %s: must be at least %d characters without surrounding spaces (perf.NewTesterToken makes one)", perf.EnvTesterToken, MinTokenLength))
		}
		f.Config.Token = token
	}
	if !IsLoopback(f.Config.Host) && f.Config.Token == "" {
		errs = append(errs, fmt.Errorf("-host %s is not loopback: env %s must be set, or POST /test is open to the network", f.Config.Host, perf.EnvTesterToken))
	}
	if err := errors.Join(errs...); err != nil {
		return fail(err)
	}
	return f, nil
}

// Describe is the configuration in one line for the tester's log: the allow-list with its
// source, the bounds with theirs, and whether a token is required. It never shows the token.
func (c Config) Describe() string {
	l := withDefaults(c.Limits)
	allow := "none: every POST /test is refused"
	if c.Allow.Len() > 0 {
		allow = strings.Join(c.Allow.Addrs(), ", ")
	}
	token := "not required (loopback)"
	if c.Token != "" {
		token = "required"
	}
	return fmt.Sprintf("allow-list (%s): %s; bounds: max QPS %d (%s), max connections %d (%s), max duration %v (%s), max iterations %d (%s); token: %s",
		c.Allow.Source(), allow, l.MaxQPS, l.QPSSource, l.MaxConnections, l.ConnectionsSource, l.MaxDuration, l.DurationSource, l.MaxIterations, l.IterationsSource, token)
}
