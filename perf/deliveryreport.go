package perf

import (
	"context"
	"time"
)

// DeliveryReport is what a delivery run measured (Report.Delivery). Counts are messages;
// latencies seconds.
type DeliveryReport struct {
	Mode SubscribeMode `json:"mode"`
	// Delivery is how daprd delivers to the subscriber: http (POST to its routes) or grpc
	// (Dapr's AppCallback OnTopicEvent / OnBulkTopicEvent), the subscriber sidecar's
	// AppProtocol. The publishes are HTTP either way (Scenario.Transport).
	Delivery Protocol `json:"delivery,omitempty"`
	Broker   Backend  `json:"broker"`
	PubSub   string   `json:"pubsub"`
	Topic    string   `json:"topic"`
	// Sequenced is how many messages the main load stamped (sequence numbers 0 .. Sequenced-1);
	// Sent those daprd accepted (2xx), PublishErrors the others (the messages of failed
	// requests: a bulk publish's whole bulk).
	Sequenced     int64 `json:"sequenced"`
	Sent          int64 `json:"sent"`
	PublishErrors int64 `json:"publishErrors"`
	// AwaitTimeouts counts the iterations whose messages did not all arrive within the
	// plan's await window (perf.Await; Dapr's timeouts), for loads that wait.
	AwaitTimeouts int64 `json:"awaitTimeouts,omitempty"`
	// Received is the distinct sequence numbers that arrived; Lost = Sent - Received, at least 0
	// (a failed publish is an error, not a loss: Missing - PublishErrors); Duplicated counts
	// deliveries of a sequence number already received.
	Received   int64 `json:"received"`
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
	// Missing is Sequenced - Received, before discounting the failed publishes.
	Missing int64 `json:"missing"`
	// Stale (the warmup's late messages), Malformed and Unexpected (sequence numbers beyond
	// Sequenced), as the subscriber counted them.
	Stale      int64 `json:"stale"`
	Malformed  int64 `json:"malformed"`
	Unexpected int64 `json:"unexpected"`
	// DrainSeconds is the wait after the main load until the counts were read: all in, or the
	// drain window (DrainWindowSeconds) ended.
	DrainSeconds       float64 `json:"drainSeconds"`
	DrainWindowSeconds float64 `json:"drainWindowSeconds"`
	DrainComplete      bool    `json:"drainComplete"`
	// Latency is delivery latency: receipt at the subscriber minus send time at the tester,
	// first delivery of each message (DeliveryPercentiles).
	Latency Latency `json:"latency"`
	// HandlerCalls is how many deliveries daprd made (bulk: several messages per call).
	HandlerCalls int64 `json:"handlerCalls"`
	// Handler is the subscriber's own time per delivery call: its cost, beside its CPU in
	// Report.Resources (role app).
	Handler Latency `json:"handler"`
	// TimelineStart and Timeline are the subscriber's second by second (SubscriberStats):
	// messages received, duplicated, and their delivery latency; empty in files written before
	// it.
	TimelineStart time.Time `json:"timelineStart,omitzero"`
	Timeline      []Second  `json:"timeline,omitempty"`
	// BrokerRestart is set when the plan restarted the broker during the main load.
	BrokerRestart *BrokerRestart `json:"brokerRestart,omitempty"`
	// Baseline is the same counts of the baseline run, when the plan ran one
	// (plan.DeliveryPlan.Baseline): the subscriber subscribed straight to the store, Delivery
	// "store"; its own Baseline is nil.
	Baseline *DeliveryReport `json:"baseline,omitempty"`
}

// BrokerRestart is one restart of the broker during the main load.
type BrokerRestart struct {
	// AtSeconds is when it was stopped, from the main load's start; DownSeconds the time from
	// the stop until it answered again.
	AtSeconds   float64 `json:"atSeconds"`
	DownSeconds float64 `json:"downSeconds"`
	Error       string  `json:"error,omitempty"`
}

// BackendRestarter is a Deployment that can restart one of its backends in place (same port
// and data directory; local.Deployment). RestartBackend returns once the backend answers again,
// with how long it was down.
type BackendRestarter interface {
	RestartBackend(ctx context.Context, b Backend) (time.Duration, error)
}

// EnvRestartBroker restarts a subscribe scenario's broker this long into the main load (a Go
// duration; read by LoadEnv, applied by the delivery plan).
const EnvRestartBroker = "DAPR_PERF_RESTART_BROKER"

// RestartChecker is a Platform that can tell, before any process starts, whether its
// deployments will be able to restart backend b (kube.Platform: b's address must be a Service
// of the cluster). A plan that restarts a backend refuses to run when it says no. A platform
// without it (local, which starts every backend itself) is asked nothing.
type RestartChecker interface {
	CanRestartBackend(b Backend) error
}

// Fill takes the subscriber's counts after a drain of waited.
func (dr *DeliveryReport) Fill(st SubscriberStats, waited time.Duration) {
	dr.Received, dr.Duplicated, dr.Missing = st.Received, st.Duplicates, st.Missing
	dr.Lost = max(0, st.Missing-dr.PublishErrors)
	dr.Stale, dr.Malformed, dr.Unexpected = st.Stale, st.Malformed, st.Unexpected
	dr.Latency, dr.Handler, dr.HandlerCalls = st.Latency, st.Handler, st.HandlerCalls
	dr.TimelineStart, dr.Timeline = st.TimelineStart, st.Timeline
	dr.DrainSeconds = waited.Seconds()
	dr.DrainComplete = dr.Received >= dr.Sent
}
