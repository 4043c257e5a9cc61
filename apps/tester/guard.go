package tester

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/grpc/resolver"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/driver"
)

// AllowList is the set of targets a tester may load, as normalised host:port addresses
// (NormalizeAddr), and where the set came from. The zero value allows nothing.
type AllowList struct {
	addrs  map[string]bool
	source string
}

// NewAllowList parses entries, each a host:port or a comma-separated list of them, into an
// AllowList whose Source is source (such as "flag -allow"). An entry that is not a host:port
// with a port from 1 to 65535 is an error naming it and source.
func NewAllowList(source string, entries ...string) (AllowList, error) {
	a := AllowList{addrs: map[string]bool{}, source: source}
	for _, e := range entries {
		for part := range strings.SplitSeq(e, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			n, err := NormalizeAddr(part)
			if err != nil {
				return AllowList{}, fmt.Errorf("allow-list (%s): entry %q: %w", source, part, err)
			}
			a.addrs[n] = true
		}
	}
	return a, nil
}

// Source says where the allow-list came from: "flag -allow", "env DAPRPERF_TESTER_ALLOW".
func (a AllowList) Source() string {
	if a.source == "" {
		return "none given"
	}
	return a.source
}

// Len is the number of distinct addresses allowed.
func (a AllowList) Len() int { return len(a.addrs) }

// Addrs are the allowed addresses, normalised and sorted.
func (a AllowList) Addrs() []string {
	out := make([]string, 0, len(a.addrs))
	for k := range a.addrs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Check returns nil when p's target, and the subscriber of p.Await, are in the allow-list, a
// *TargetError otherwise. The
// target's host:port is what is compared: the URL's host and port for HTTP (80 or 443 when
// the URL has none), the whole target for gRPC.
func (a AllowList) Check(p perf.Params) error {
	addr, err := TargetAddr(p)
	if err != nil {
		return &TargetError{Target: p.Target, Err: err}
	}
	if !a.addrs[addr] {
		return &TargetError{Target: p.Target, Addr: addr, Source: a.Source(), Allowed: len(a.addrs)}
	}
	if p.Await != nil { // the subscriber each iteration asks (await.go)
		q := perf.Params{Protocol: perf.HTTP, Target: p.Await.URL}
		addr, err := TargetAddr(q)
		if err != nil {
			return &TargetError{Target: p.Await.URL, Err: err}
		}
		if !a.addrs[addr] {
			return &TargetError{Target: p.Await.URL, Addr: addr, Source: a.Source(), Allowed: len(a.addrs)}
		}
	}
	return nil
}

// TargetError is a target the tester refuses: outside its allow-list (Err nil), or not an
// address it can compare (Err set). The handler answers it with 403.
type TargetError struct {
	Target  string // as the request gave it
	Addr    string // its normalised host:port; "" when Err is set
	Source  string // where the allow-list came from
	Allowed int    // how many addresses the allow-list has
	Err     error
}

func (e *TargetError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("tester: target %q refused: %v", e.Target, e.Err)
	}
	return fmt.Sprintf("tester: target %q (%s) is not in the allow-list (%s; %d addresses, set by the platform at start-up and logged by the tester)",
		e.Target, e.Addr, e.Source, e.Allowed)
}

func (e *TargetError) Unwrap() error { return e.Err }

// TargetAddr is the normalised host:port p's load would connect to. HTTP targets must be
// http:// or https:// URLs; gRPC targets a plain host:port, with no gRPC resolver scheme
// ("dns:", "unix:", "passthrough:"): any other form is an error. A direct-to-store phase
// (Operation.Direct set) has a plain host:port target whatever the protocol.
func TargetAddr(p perf.Params) (string, error) {
	if p.Operation.Direct != "" {
		if strings.Contains(p.Target, "/") {
			return "", fmt.Errorf("must be a plain host:port for a direct-to-store phase (operation.direct %s)", p.Operation.Direct)
		}
		return NormalizeAddr(p.Target)
	}
	switch p.Protocol {
	case perf.HTTP:
		u, err := url.Parse(p.Target)
		if err != nil {
			return "", fmt.Errorf("not a URL: %w", err)
		}
		var port string
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		default:
			return "", fmt.Errorf("scheme %q: must be http or https", u.Scheme)
		}
		if u.Hostname() == "" {
			return "", errors.New("the URL has no host")
		}
		if u.Port() != "" {
			port = u.Port()
		}
		return NormalizeAddr(net.JoinHostPort(u.Hostname(), port))
	case perf.GRPC:
		// grpc.NewClient reads "scheme:rest" as a resolver scheme when one is registered
		// under that name ("dns:evil:80", "unix:sock"), so such a target would not connect to
		// the host:port it seems to name.
		if scheme, _, ok := strings.Cut(p.Target, ":"); ok && resolver.Get(strings.ToLower(scheme)) != nil {
			return "", fmt.Errorf("gRPC resolver scheme %q: must be a plain host:port", scheme)
		}
		if strings.Contains(p.Target, "/") {
			return "", errors.New("must be a plain host:port for protocol grpc")
		}
		return NormalizeAddr(p.Target)
	default:
		return "", fmt.Errorf("protocol %q: must be http or grpc", p.Protocol)
	}
}

// NormalizeAddr returns host:port in one spelling: an IP address in its canonical form
// (IPv4-mapped IPv6 as IPv4, IPv6 compressed, in brackets), a host name in lower case without
// a trailing dot, the port in decimal without leading zeros. Names are not resolved: two
// names for one address are two entries. It is an error when addr is not host:port or the
// port is not from 1 to 65535.
func NormalizeAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("not host:port: %w", err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q: must be from 1 to 65535", port)
	}
	if host == "" {
		return "", errors.New("empty host")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.Unmap().String()
	} else {
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if host == "" || strings.ContainsAny(host, " /@%[]") {
			return "", fmt.Errorf("host %q: not an IP address or a host name", addr)
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// Limits are the bounds a tester enforces on every POST /test, with where each came from
// ("flag -max-qps", "env DAPRPERF_TESTER_MAX_QPS", "default").
type Limits struct {
	perf.TesterLimits
	QPSSource, ConnectionsSource, DurationSource string
	IterationsSource                             string
}

// DefaultLimits are the absolute limits of perf.Params, the bounds of a tester whose platform
// gave none.
func DefaultLimits() Limits {
	return Limits{
		TesterLimits:      perf.TesterLimits{MaxQPS: perf.MaxQPS, MaxConnections: perf.MaxConnections, MaxDuration: perf.MaxDuration, MaxIterations: driver.MaxIterations},
		QPSSource:         "default",
		ConnectionsSource: "default",
		DurationSource:    "default",
		IterationsSource:  "default",
	}
}

// Check returns an error naming every bound p exceeds, with its value and its source; nil
// when p is within all of them. A load with an executor (perf/driver) is bounded by its own
// figures: its arrival rate by max QPS, its VUs by max connections (one connection each), its
// schedule plus graceful stop by max duration, its planned iterations (shared iterations,
// rate x duration) by max iterations.
func (l Limits) Check(p perf.Params) error {
	if p.HasExecutor() {
		return l.checkExecutor(p)
	}
	var errs []error
	if p.MaxRate && l.MaxQPS < perf.MaxQPS {
		errs = append(errs, fmt.Errorf("maxRate = true: an unbounded rate exceeds the bound max QPS = %d (%s)", l.MaxQPS, l.QPSSource))
	} else if !p.MaxRate && p.QPS > l.MaxQPS {
		errs = append(errs, fmt.Errorf("qps = %d exceeds the bound max QPS = %d (%s)", p.QPS, l.MaxQPS, l.QPSSource))
	}
	if p.Connections > l.MaxConnections {
		errs = append(errs, fmt.Errorf("connections = %d exceeds the bound max connections = %d (%s)", p.Connections, l.MaxConnections, l.ConnectionsSource))
	}
	if p.Duration > l.MaxDuration {
		errs = append(errs, fmt.Errorf("duration = %v exceeds the bound max duration = %v (%s)", p.Duration, l.MaxDuration, l.DurationSource))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("tester: load beyond this deployment's bounds: %w", err)
	}
	return nil
}

// checkExecutor is Check for a load with an executor.
func (l Limits) checkExecutor(p perf.Params) error {
	var errs []error
	ex := p.Executor
	if ex.Rate > l.MaxQPS {
		errs = append(errs, fmt.Errorf("executor.rate = %d exceeds the bound max QPS = %d (%s)", ex.Rate, l.MaxQPS, l.QPSSource))
	}
	if n := ex.PeakVUs(); n > l.MaxConnections {
		errs = append(errs, fmt.Errorf("executor (%s): %d VUs exceed the bound max connections = %d (%s), one connection per VU", ex.Kind, n, l.MaxConnections, l.ConnectionsSource))
	}
	if d := p.RunDuration(); d > l.MaxDuration {
		errs = append(errs, fmt.Errorf("executor (%s): schedule plus graceful stop = %v exceeds the bound max duration = %v (%s)", ex.Kind, d, l.MaxDuration, l.DurationSource))
	}
	maxIter := l.MaxIterations
	if maxIter == 0 {
		maxIter, l.IterationsSource = driver.MaxIterations, "default"
	}
	if n := ex.PlannedIterations(); n > maxIter {
		errs = append(errs, fmt.Errorf("executor (%s): %d planned iterations exceed the bound max iterations = %d (%s)", ex.Kind, n, maxIter, l.IterationsSource))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("tester: load beyond this deployment's bounds: %w", err)
	}
	return nil
}

// authorized says whether r carries "Authorization: Bearer <token>"; the comparison takes
// the same time whatever the header holds.
func authorized(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// IsLoopback says whether host, the address a tester listens on, is a loopback IP address
// (127.0.0.0/8, ::1). "" is the default host, loopback; anything else is not.
func IsLoopback(host string) bool {
	if host == "" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
