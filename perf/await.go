package perf

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

// Await makes each iteration of a closed-loop load wait, after its request succeeded, until
// the subscriber app has received every message the request stamped: Dapr's subscribe tests,
// whose k6 iteration bulk-publishes 100 messages and then waits on a WebSocket for the app to
// say it received them (up to 60 s), and its configuration-subscribe tests, whose iteration
// updates a key and waits for the notification. Here the tester asks the subscriber
// (GET <URL>/await?run=&from=&count=&timeout=) for the exact sequence numbers it stamped,
// not for "any 100 more" as Dapr's app counts them.
//
// An iteration whose messages do not all arrive within Timeout fails with code
// CodeDeliveryTimeout (Dapr's error_counter{errType:timeout}); its request was still accepted,
// so its messages count as sent.
type Await struct {
	// URL is the subscriber's base URL as the tester reaches it (perf.AppHTTP); it must be in
	// the tester's allow-list.
	URL string `json:"url"`
	// Run is the load's nonce, as stamped in each message (DeliveryPayload).
	Run string `json:"run"`
	// Timeout bounds the wait of one iteration, from MinAwaitTimeout to MaxAwaitTimeout.
	Timeout time.Duration `json:"timeout"`
	// Timed says what an iteration's service time is: false, the request alone (Dapr's
	// subscribe bound is on k6's http_req_duration of the publish; the wait is a WebSocket's);
	// true, the request and the wait (Dapr's configuration-subscribe iteration is one HTTP
	// call to an app that updates and waits).
	Timed bool `json:"timed,omitempty"`
}

// AwaitPath is the subscriber's long poll an awaiting iteration calls, at Await.URL: GET
// ?run=<nonce>&from=<first>&count=<n>&timeout=<Go duration> answers 200 once every sequence
// number from first to first+n-1 of that load has arrived, 504 when the timeout passes first,
// 409 when the subscriber counts another load.
const AwaitPath = "/await"

// Bounds of Await.Timeout. DaprAwaitTimeout is Dapr's: pubsub_subscribe_http's k6 script closes
// the WebSocket and counts a timeout after 60 s (testTimeoutMs).
const (
	MinAwaitTimeout  = time.Second
	MaxAwaitTimeout  = 10 * time.Minute
	DaprAwaitTimeout = 60 * time.Second
)

// EnvAwaitTimeout overrides Await.Timeout for the scenarios that wait (Env.AwaitTimeout).
const EnvAwaitTimeout = "DAPR_PERF_AWAIT_TIMEOUT"

// CodeDeliveryTimeout is the code of an iteration whose request succeeded but whose messages
// did not all reach the subscriber within Await.Timeout. It is not 2xx, so it counts in
// Result.Errors.
const CodeDeliveryTimeout = "delivery-timeout"

// awaitKinds are the operations whose requests stamp messages a subscriber counts: a publish
// or bulk publish through daprd (HTTP), and a configuration update written to the store.
var awaitKinds = []OperationKind{OpPublish, OpPublishBulk, OpConfigurationSet}

// awaitProblems are the errors of p.Await, each named "await.<field>".
func (p Params) awaitProblems() []error {
	a := p.Await
	if a == nil {
		return nil
	}
	var errs []error
	bad := func(field string, value any, accepts string) {
		errs = append(errs, fmt.Errorf("await.%s = %v: must be %s", field, value, accepts))
	}
	if u, err := url.Parse(a.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("url", fmt.Sprintf("%q", a.URL), "the subscriber's http:// base URL")
	}
	if a.Run == "" {
		bad("run", `""`, "the load's nonce, as stamped in its messages")
	}
	if a.Timeout < MinAwaitTimeout || a.Timeout > MaxAwaitTimeout {
		bad("timeout", a.Timeout, fmt.Sprintf("from %v to %v", MinAwaitTimeout, MaxAwaitTimeout))
	}
	if !p.HasExecutor() {
		errs = append(errs, fmt.Errorf("await: needs an executor: only a closed loop's iterations can wait for their messages"))
	}
	if !slices.Contains(awaitKinds, p.Operation.Kind) {
		errs = append(errs, fmt.Errorf("await: operation.kind %q: must be one that stamps messages (%v)", p.Operation.Kind, awaitKinds))
	}
	if p.Protocol != HTTP && p.Operation.Direct == "" {
		errs = append(errs, fmt.Errorf("await: protocol %q: the tester stamps messages over %q (or in a store's own client)", p.Protocol, HTTP))
	}
	return errs
}

// CodeAwaitPrefix starts the code of an iteration whose request succeeded but whose wait
// failed otherwise: "await-" and the subscriber's HTTP status, or "-1" when it could not be
// reached. Not 2xx, so it counts in Result.Errors.
const CodeAwaitPrefix = "await-"

// AwaitTimeouts is how many of r's iterations timed out waiting for their messages.
func (r *Result) AwaitTimeouts() int64 { return r.RetCodes[CodeDeliveryTimeout] }

// AwaitFailures is how many of r's iterations had their request accepted and then failed in
// the wait: timed out (AwaitTimeouts), or the subscriber not answering (CodeAwaitPrefix).
func (r *Result) AwaitFailures() int64 {
	n := r.AwaitTimeouts()
	for code, c := range r.RetCodes {
		if strings.HasPrefix(code, CodeAwaitPrefix) {
			n += c
		}
	}
	return n
}

// MarshalJSON writes Await with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (a Await) MarshalJSON() ([]byte, error) {
	type plain Await
	return secondsjson.Marshal(plain(a))
}

// UnmarshalJSON reads Await's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (a *Await) UnmarshalJSON(b []byte) error {
	type plain Await
	return secondsjson.Unmarshal(b, (*plain)(a))
}
