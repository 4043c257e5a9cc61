package perf

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Stamps of a published message: the tester replaces each in the payload of every request it
// sends, just before sending it (apps/tester, stamp.go), so that the subscriber can tell each
// message apart and time its delivery.
//
//	{"run":"r1","seq":"{seq}","sent":"{sendtime}"}  ->  {"run":"r1","seq":"41","sent":"1764600000123456789"}
//
// Each {seq} becomes the load's next sequence number, from 0, shared by all its connections
// (so N requests of one event each carry 0 .. N-1 exactly once); each {sendtime} becomes the
// send time in Unix nanoseconds. Both sit inside JSON strings, so the template is valid JSON
// before and after stamping and daprd publishes it as a JSON event (application/json).
const (
	SeqToken      = "{seq}"
	SendTimeToken = "{sendtime}"
)

// HasStamps says whether body holds a stamp token: the tester then stamps every request.
func HasStamps(body []byte) bool {
	return bytes.Contains(body, []byte(SeqToken)) || bytes.Contains(body, []byte(SendTimeToken))
}

// DeliveryMessage is the event a delivery load publishes, as the subscriber decodes it: the
// load's nonce (Run), its sequence number and its send time (Unix ns), as decimal strings.
type DeliveryMessage struct {
	Run  string `json:"run"`
	Seq  string `json:"seq"`
	Sent string `json:"sent"`
	Pad  string `json:"pad,omitempty"`
}

// DeliveryPayload is the stamped template of a delivery load tagged run, padded with 'x' to
// at least size bytes (Dapr's subscribe test sends 100-byte messages). run must be a plain
// token (letters, digits, '-').
func DeliveryPayload(run string, size int) string {
	base := `{"run":"` + run + `","seq":"` + SeqToken + `","sent":"` + SendTimeToken + `"`
	pad := size - len(base) - len(`,"pad":""}`)
	if pad <= 0 {
		return base + "}"
	}
	return base + `,"pad":"` + strings.Repeat("x", pad) + `"}`
}

// ParseDeliveryMessage returns m's sequence number and send time; an error names the field.
func ParseDeliveryMessage(m DeliveryMessage) (seq int64, sent time.Time, err error) {
	seq, err = strconv.ParseInt(m.Seq, 10, 64)
	if err != nil || seq < 0 {
		return 0, time.Time{}, fmt.Errorf("message field seq %q: want a decimal sequence number >= 0", m.Seq)
	}
	ns, err := strconv.ParseInt(m.Sent, 10, 64)
	if err != nil || ns <= 0 {
		return 0, time.Time{}, fmt.Errorf("message field sent %q: want the send time in Unix nanoseconds", m.Sent)
	}
	return seq, time.Unix(0, ns), nil
}

// SubscriberStats is what the subscriber app answers on GET /stats?expected=N: its counts
// since the last POST /reset?run=<nonce>, for messages of that run only. A sequence number
// in [0, N) never received is missing; one received again is a duplicate; Unexpected counts
// sequence numbers >= N.
type SubscriberStats struct {
	// Run is the nonce of the load being counted.
	Run string `json:"run"`
	// Expected is the N asked for; Received the distinct sequence numbers in [0, N) received,
	// Missing = N - Received.
	Expected int64 `json:"expected"`
	Received int64 `json:"received"`
	Missing  int64 `json:"missing"`
	// Deliveries is every message of the run the handler took, duplicates included;
	// Duplicates = deliveries of a sequence number already received.
	Deliveries int64 `json:"deliveries"`
	Duplicates int64 `json:"duplicates"`
	Unexpected int64 `json:"unexpected"`
	// Stale counts messages of another run (a warmup's, arriving late), Malformed those that
	// were not a DeliveryMessage (answered with DROP / 200 so that they are not redelivered).
	Stale     int64 `json:"stale"`
	Malformed int64 `json:"malformed"`
	// HandlerCalls counts the deliveries daprd made (one per message, or one per bulk of
	// several): BulkCalls of them were bulk deliveries.
	HandlerCalls int64 `json:"handlerCalls"`
	BulkCalls    int64 `json:"bulkCalls"`
	// Answered counts the delivery calls the subscriber has answered: HandlerCalls - Answered
	// are still being answered (a slow consumer holds each answer for its delay), and daprd has
	// not yet acknowledged their messages to the broker.
	Answered int64 `json:"answered"`
	// FirstReceipt and LastReceipt are when the first and last message of the run arrived.
	FirstReceipt time.Time `json:"firstReceipt"`
	LastReceipt  time.Time `json:"lastReceipt"`
	// Latency is receipt minus send time of the first delivery of each sequence number (HDR,
	// exact percentiles); empty (Latency.Percentiles nil) before the first message.
	Latency Latency `json:"latency"`
	// Handler is the subscriber's own time per delivery call, from reading the request to
	// writing the answer: its cost, which must stay far below the delivery latency.
	Handler Latency `json:"handler"`
	// Timeline is the load second by second from TimelineStart (when the subscriber was reset
	// for it): each second's first deliveries (Requests: messages received), duplicates
	// (Errors) and their delivery latency's percentiles, exact by nearest rank. At most
	// MaxDeliveryPoints messages are kept for it; past that the timeline ends before the
	// second of the first one left out.
	TimelineStart time.Time `json:"timelineStart,omitzero"`
	Timeline      []Second  `json:"timeline,omitempty"`
}

// MaxDeliveryPoints bounds the messages a subscriber keeps for its timeline (16 bytes each,
// 32 MiB): 2,000 messages/s for over 17 minutes.
const MaxDeliveryPoints = 1 << 21

// SubscribeMode is how the subscriber takes its messages from daprd.
type SubscribeMode string

// The subscribe modes.
const (
	// SubscribeNormal: daprd POSTs one CloudEvent per request to the app's route.
	SubscribeNormal SubscribeMode = "normal"
	// SubscribeBulk: Dapr's bulk subscribe (bulkSubscribe.enabled in the subscription): daprd
	// POSTs up to maxMessagesCount events at once, waiting at most maxAwaitDurationMs.
	SubscribeBulk SubscribeMode = "bulk"
)

// SubscriberArgs is the command line of a subscriber app (perf.Subscriber) for pubsub/topic in
// mode; bulk takes at most maxMessages per call, waiting at most maxAwait (0s: Dapr's defaults).
func SubscriberArgs(pubsub, topic string, mode SubscribeMode, maxMessages int, maxAwait time.Duration) []string {
	args := []string{"-pubsub", pubsub, "-topic", topic}
	if mode == SubscribeBulk {
		args = append(args, "-bulk")
		if maxMessages > 0 {
			args = append(args, "-bulk-max-messages", strconv.Itoa(maxMessages))
		}
		if maxAwait > 0 {
			args = append(args, "-bulk-max-await", maxAwait.String())
		}
	}
	return args
}

// DeliveryPercentiles are the percentiles of delivery latency every delivery run reports: p95
// is the one Dapr's subscribe test gates on.
var DeliveryPercentiles = []float64{50, 75, 90, 95, 99, 99.9}
