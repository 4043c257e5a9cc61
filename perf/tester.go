package perf

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf/driver"
)

// TesterSlack is how much longer than the load's duration a POST /test may take: connection
// set-up, the tester's warm-up request per connection, and encoding the result. The client
// gives up after Duration + TesterSlack; the tester ends its run by then too.
const TesterSlack = 2 * time.Minute

// The tester's start-up contract, shared by the tester (apps/tester) and the platforms that
// start it (local, kube): each flag has an environment variable of the same meaning. The
// token has only the variable: a flag would show it to every local user in ps.
const (
	// TesterFlagAllow lists the targets the tester may load, comma-separated host:port
	// ("127.0.0.1:3500,testapp.ns.svc:3000"); it may be repeated.
	TesterFlagAllow = "allow"
	// TesterFlagMaxQPS, TesterFlagMaxConnections and TesterFlagMaxDuration are the bounds of
	// TesterLimits.
	TesterFlagMaxQPS         = "max-qps"
	TesterFlagMaxConnections = "max-connections"
	TesterFlagMaxDuration    = "max-duration"
	// TesterFlagMaxIterations bounds the planned iterations of a load (TesterLimits).
	TesterFlagMaxIterations = "max-iterations"

	EnvTesterAllow          = "DAPRPERF_TESTER_ALLOW"
	EnvTesterMaxQPS         = "DAPRPERF_TESTER_MAX_QPS"
	EnvTesterMaxConnections = "DAPRPERF_TESTER_MAX_CONNECTIONS"
	EnvTesterMaxDuration    = "DAPRPERF_TESTER_MAX_DURATION"
	EnvTesterMaxIterations  = "DAPRPERF_TESTER_MAX_ITERATIONS"
	// EnvTesterToken is the per-run secret POST /test requires, as "Authorization: Bearer
	// <token>". A tester bound to anything but loopback refuses to start without it.
	EnvTesterToken = "DAPRPERF_TESTER_TOKEN"
)

// TesterLoadMargin is the factor TesterLimitsFor puts on a scenario's own load. The runner
// never asks for more than the scenario's load (×1); the bound exists to cap misuse, not to
// shape the run. 2 leaves room for a person probing the same deployment by hand, and for
// integer rounding, while keeping whatever the tester can be made to send within the same
// order of magnitude as what the run itself sends to the same, allow-listed, apps.
const TesterLoadMargin = 2

// TesterLimits are the bounds of one tester, set by its platform at start-up: a POST /test
// beyond any of them is refused with 400 naming the bound. Zero fields mean the absolute
// limits of Params (MaxQPS, MaxConnections, MaxDuration).
type TesterLimits struct {
	// MaxQPS is the highest target rate accepted, in requests/s. A max-rate run (no
	// schedule) is accepted only when MaxQPS is the absolute MaxQPS.
	MaxQPS int `json:"maxQPS"`
	// MaxConnections is the most concurrent connections accepted.
	MaxConnections int `json:"maxConnections"`
	// MaxDuration is the longest run accepted (Params.RunDuration: an executor's schedule
	// and graceful stop).
	MaxDuration time.Duration `json:"maxDuration"`
	// MaxIterations is the most requests a load may plan (Params.PlannedRequests: QPS x
	// duration, an executor's shared iterations or rate x duration); 0 means
	// driver.MaxIterations. An executor's VUs count as connections (MaxConnections), its
	// rate as QPS (MaxQPS).
	MaxIterations int64 `json:"maxIterations,omitempty"`
}

// TesterLimitsFor is TesterLoadMargin times the largest rate, connection count, duration and
// planned requests of loads, capped at the absolute limits of Params. A max-rate load lifts
// MaxQPS to the absolute MaxQPS. A load with an executor counts its rate (arrival rate) as
// QPS, its VUs as connections, its RunDuration as duration and its planned iterations as
// requests.
func TesterLimitsFor(loads ...Params) TesterLimits {
	var l TesterLimits
	for _, p := range loads {
		qps, conns := p.QPS, p.Connections
		if p.MaxRate {
			qps = MaxQPS
		}
		if p.HasExecutor() {
			qps, conns = max(p.Executor.Rate, 1), p.Executor.PeakVUs()
		}
		l.MaxQPS = max(l.MaxQPS, min(TesterLoadMargin*qps, MaxQPS))
		l.MaxConnections = max(l.MaxConnections, min(TesterLoadMargin*conns, MaxConnections))
		l.MaxDuration = max(l.MaxDuration, min(TesterLoadMargin*p.RunDuration(), MaxDuration))
		l.MaxIterations = max(l.MaxIterations, min(TesterLoadMargin*p.PlannedRequests(), driver.MaxIterations))
	}
	return l
}

// PlannedRequests is the number of requests p's load plans in advance: ExpectedRequests for
// fortio's load, the executor's planned iterations for the driver's (0 for its VU loops,
// whose count only their pace decides).
func (p Params) PlannedRequests() int64 {
	if p.HasExecutor() {
		return p.Executor.PlannedIterations()
	}
	return p.ExpectedRequests()
}

// Validate returns an error naming each bound out of range: 0 (unset) or within the
// absolute limits of Params.
func (l TesterLimits) Validate() error {
	var errs []error
	if l.MaxQPS < 0 || l.MaxQPS > MaxQPS {
		errs = append(errs, fmt.Errorf("maxQPS = %d: must be from 1 to %d requests/s, or 0 for %d", l.MaxQPS, MaxQPS, MaxQPS))
	}
	if l.MaxConnections < 0 || l.MaxConnections > MaxConnections {
		errs = append(errs, fmt.Errorf("maxConnections = %d: must be from 1 to %d, or 0 for %d", l.MaxConnections, MaxConnections, MaxConnections))
	}
	if l.MaxDuration != 0 && (l.MaxDuration < MinDuration || l.MaxDuration > MaxDuration) {
		errs = append(errs, fmt.Errorf("maxDuration = %v: must be from %v to %v, or 0 for %v", l.MaxDuration, MinDuration, MaxDuration, MaxDuration))
	}
	if l.MaxIterations < 0 || l.MaxIterations > driver.MaxIterations {
		errs = append(errs, fmt.Errorf("maxIterations = %d: must be from 1 to %d, or 0 for %d", l.MaxIterations, int64(driver.MaxIterations), int64(driver.MaxIterations)))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("perf: tester limits: %w", err)
	}
	return nil
}

// TesterArgs is the tester's command line for allow (host:port entries) and l: -allow with
// the entries comma-separated (none when allow is empty), then each bound of l that is set.
func TesterArgs(allow []string, l TesterLimits) []string {
	var args []string
	if len(allow) > 0 {
		args = append(args, "-"+TesterFlagAllow+"="+strings.Join(allow, ","))
	}
	if l.MaxQPS > 0 {
		args = append(args, "-"+TesterFlagMaxQPS+"="+strconv.Itoa(l.MaxQPS))
	}
	if l.MaxConnections > 0 {
		args = append(args, "-"+TesterFlagMaxConnections+"="+strconv.Itoa(l.MaxConnections))
	}
	if l.MaxDuration > 0 {
		args = append(args, "-"+TesterFlagMaxDuration+"="+l.MaxDuration.String())
	}
	if l.MaxIterations > 0 {
		args = append(args, "-"+TesterFlagMaxIterations+"="+strconv.FormatInt(l.MaxIterations, 10))
	}
	return args
}

// NewTesterToken returns a fresh per-run token: 26 characters of base32, 130 random bits from
// crypto/rand.
func NewTesterToken() string { return rand.Text() }
