package perf

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

// OperationKind names one of Dapr's APIs a load can drive. The names follow Dapr's building
// blocks: "<block>.<verb>", with service invocation as plain "invoke".
type OperationKind string

// The operations a load can drive (Params.Operation.Kind).
const (
	// OpInvoke is service invocation: through a sidecar to an app id (AppID set), or straight
	// to the app (AppID empty, the baseline). Dapr's HTTP API: POST
	// /v1.0/invoke/<appID>/method/<method>; gRPC: Dapr.InvokeService, or the app's
	// AppCallback.OnInvoke when AppID is empty.
	OpInvoke OperationKind = "invoke"
	// OpStateGet reads one key: GET /v1.0/state/<store>/<key>.
	OpStateGet OperationKind = "state.get"
	// OpStateSave writes one key: POST /v1.0/state/<store> with [{"key": <key>, "value": <payload>}].
	OpStateSave OperationKind = "state.save"
	// OpStateDelete deletes one key: DELETE /v1.0/state/<store>/<key>.
	OpStateDelete OperationKind = "state.delete"
	// OpPublish publishes one event: POST /v1.0/publish/<pubsub>/<topic> with the payload.
	OpPublish OperationKind = "publish"
	// OpPublishBulk publishes BulkEntries events in one request: POST
	// /v1.0-alpha1/publish/bulk/<pubsub>/<topic> with [{"entryId", "event", "contentType"}, ...].
	OpPublishBulk OperationKind = "publish.bulk"
	// OpActorInvoke calls an actor method: POST
	// /v1.0/actors/<actorType>/<actorID>/method/<method>. The actor host app and Dapr's
	// placement service must run.
	OpActorInvoke OperationKind = "actor.invoke"
	// OpJobSchedule schedules one job: POST /v1.0-alpha1/jobs/<jobName> with {"dueTime", "data"}.
	// Dapr's scheduler service must run.
	OpJobSchedule OperationKind = "job.schedule"
	// OpConfigurationGet reads keys of a configuration store: GET
	// /v1.0/configuration/<store>?key=<k1>&key=<k2>...
	OpConfigurationGet OperationKind = "configuration.get"
	// OpConfigurationSet writes one configuration item straight into the store (Redis SET
	// <key> <payload>): Dapr has no API that writes configuration, so this kind exists only
	// direct to the store (Baseline BaselineStore, never ThroughSidecar). It seeds the items a
	// configuration.get reads and makes the updates a configuration subscription is told of;
	// its payload may carry the delivery stamps (SeqToken, SendTimeToken) and its Key
	// UUIDToken.
	OpConfigurationSet OperationKind = "configuration.set"
	// OpActorReminder registers one actor reminder: POST
	// /v1.0/actors/<actorType>/<actorID>/reminders/<reminder> with the payload as its JSON body
	// ({"dueTime", "period", "ttl", "data"}). Dapr's scheduler service must run.
	OpActorReminder OperationKind = "actor.reminder"
)

// OperationKinds lists every kind, in the order above.
var OperationKinds = []OperationKind{OpInvoke, OpStateGet, OpStateSave, OpStateDelete, OpPublish,
	OpPublishBulk, OpActorInvoke, OpJobSchedule, OpConfigurationGet, OpConfigurationSet, OpActorReminder}

// GRPCKinds are the kinds the tester implements over gRPC; every other kind is HTTP only for
// now, and a gRPC load of one is refused by Validate (the tester answers 400 naming the kind).
var GRPCKinds = []OperationKind{OpInvoke, OpStateGet, OpStateSave, OpStateDelete, OpPublish, OpPublishBulk, OpConfigurationGet}

// UUIDToken in a key, an actor id, a job name (or the payload) is replaced by a new random
// UUID in every request: fortio's own template ("{uuid}", fhttp), lower case.
const UUIDToken = "{uuid}"

// MaxActorTypes bounds Operation.ActorTypes: Dapr's actor_type_scale hosts 100.
const MaxActorTypes = 10_000

// ActorTypeName is the k-th type of a load spread over several (Operation.ActorTypes):
// prefix + "_" + k, as Dapr's actor_type_scale names its types ("actor_0" .. "actor_99").
func ActorTypeName(prefix string, k int) string { return prefix + "_" + strconv.Itoa(k) }

// MaxBulkEntries bounds Operation.BulkEntries: Dapr's bulk publish has no limit of its own,
// but 1,000 events of the 10 MiB MaxPayloadBytes would be 10 GB in one request.
const MaxBulkEntries = 1000

// BaselineKind is what a phase of an operation is compared with to give the overhead Dapr
// adds. Design point 11: a state or publish baseline should be the same operation sent
// straight to the store or broker; where only Dapr's no-op baseline is used, the result must
// say so.
type BaselineKind string

// The baselines an operation can have.
const (
	// BaselineApp: the same request sent straight to the app, no sidecar (service invocation,
	// Dapr's baseline and ours).
	BaselineApp BaselineKind = "app"
	// BaselineStore: the same operation sent straight to the backing store or broker (the
	// client library's own call), so the overhead is what daprd adds to the store.
	BaselineStore BaselineKind = "store"
	// BaselineNoOp: the tester calls an app endpoint that does nothing, as Dapr's state and
	// pub/sub perf tests do: the "overhead" is then the whole cost of the Dapr call, store
	// included.
	BaselineNoOp BaselineKind = "noop"
	// BaselineSingles: the same events published one by one through daprd (Operation.Repeat),
	// against which a bulk publish is compared, as Dapr's bulk-publish tests do; the
	// "overhead" is then what the bulk saves (negative) or costs.
	BaselineSingles BaselineKind = "singles"
)

// String is the baseline as a result states it: "direct to the app", "direct to the store",
// "no-op (Dapr's)".
func (b BaselineKind) String() string {
	switch b {
	case BaselineApp:
		return "direct to the app"
	case BaselineStore:
		return "direct to the store"
	case BaselineNoOp:
		return "no-op (Dapr's)"
	case BaselineSingles:
		return "the same events as single publishes through daprd (Dapr's bulk-publish baseline)"
	case "":
		return "none stated"
	}
	return fmt.Sprintf("unknown (%q)", string(b))
}

// DefaultBaseline is the baseline of kind when an Operation states none: BaselineApp for
// invoke (the request itself, without the sidecars); BaselineNoOp for every other kind, which
// is what Dapr's own suite compares state, pub/sub, actors, jobs and configuration with;
// BaselineStore for configuration.set, which only ever goes straight to the store (and must
// still state it: Validate). A scenario with a direct-to-store phase sets Operation.Baseline =
// BaselineStore.
func DefaultBaseline(kind OperationKind) BaselineKind {
	switch kind {
	case OpInvoke, "":
		return BaselineApp
	case OpConfigurationSet: // only ever straight to the store
		return BaselineStore
	}
	return BaselineNoOp
}

// Operation is what one load does with each request: one of Dapr's APIs and the names it
// needs. The fields a kind does not use must stay empty. Names are path segments: not empty
// where needed, without "/", "?", "#", "%" or spaces. Key, ActorID and JobName may hold
// UUIDToken for a per-request unique value ("order-{uuid}").
//
// In Params, a zero Operation (Kind "") is service invocation as before operations existed:
// Target is then the whole URL (HTTP) or the gRPC address, with Params.AppID and
// Params.Method. With a Kind set, an HTTP Target is the base URL of daprd's HTTP API (or of
// the app, for invoke without AppID) and the operation's path is appended to it; a gRPC
// Target is daprd's (or the app's) host:port.
type Operation struct {
	// Kind is the API; required.
	Kind OperationKind `json:"kind"`

	// AppID is the invoked app id (invoke); empty calls the app itself at Target.
	AppID string `json:"appID,omitempty"`
	// Method is the invoked method (invoke, actor.invoke); required for them.
	Method string `json:"method,omitempty"`

	// Store is the state store's (state.*) or the configuration store's (configuration.*)
	// component name; required for them.
	Store string `json:"store,omitempty"`
	// Key is the state key (state.*) or the configuration item written (configuration.set);
	// required for them.
	Key string `json:"key,omitempty"`
	// Keys are the configuration keys (configuration.get); at least one.
	Keys []string `json:"keys,omitempty"`

	// PubSub and Topic name the pub/sub component and topic (publish, publish.bulk); required.
	PubSub string `json:"pubsub,omitempty"`
	Topic  string `json:"topic,omitempty"`
	// BulkEntries is the number of events per request (publish.bulk), from 1 to MaxBulkEntries.
	BulkEntries int `json:"bulkEntries,omitempty"`
	// Repeat is, for kind publish, how many events one request publishes one after another,
	// each its own publish call (0 or 1: one; at most MaxBulkEntries): Dapr's bulk-publish
	// baseline, 100 single publishes per request, against which one bulk of 100 is compared.
	// A request's latency is then that of all Repeat calls; it fails at the first failed call.
	Repeat int `json:"repeat,omitempty"`
	// RawPayload publishes the payload as it is, without daprd's CloudEvents envelope (publish,
	// publish.bulk): metadata rawPayload=true, as the HTTP query metadata.rawPayload=true and
	// the gRPC request's metadata; false lets daprd wrap each event in a CloudEvent.
	RawPayload bool `json:"rawPayload,omitempty"`

	// ActorType and ActorID name the actor (actor.invoke); required. ActorID "{uuid}" makes
	// every request activate a new actor.
	ActorType string `json:"actorType,omitempty"`
	ActorID   string `json:"actorID,omitempty"`
	// ActorTypes, when > 0 (actor.invoke under an executor only, 1 to MaxActorTypes), spreads
	// the load over that many actor types named ActorType + "_" + k, k = 0 .. ActorTypes-1
	// (Dapr's actor_type_scale: actor_0 .. actor_99): VU v calls type v mod ActorTypes.
	ActorTypes int `json:"actorTypes,omitempty"`
	// Reminder is the reminder's name (actor.reminder); required.
	Reminder string `json:"reminder,omitempty"`

	// JobName is the scheduled job's name (job.schedule); required; "job-{uuid}" schedules a
	// new job per request instead of overwriting one.
	JobName string `json:"jobName,omitempty"`
	// JobDueTime is when each job fires (job.schedule), at least 1 s: long enough, for a
	// schedule-throughput load, that none fires during the run.
	JobDueTime time.Duration `json:"jobDueTime,omitempty"`

	// Baseline is what this operation's phases are compared with; "" is DefaultBaseline(Kind).
	Baseline BaselineKind `json:"baseline,omitempty"`

	// Direct is set only in a phase sent straight to the store or broker (a Route with
	// BaselineStore that is not ThroughSidecar): the backend the tester then calls with that
	// backend's own Go client, at Params.Target (host:port). A scenario leaves it empty:
	// routed fills it in from the component Store or PubSub names.
	Direct Backend `json:"direct,omitempty"`
}

// IsZero says whether o is the zero Operation: Params' service invocation of a whole Target.
func (o Operation) IsZero() bool {
	return o.Kind == "" && o.AppID == "" && o.Method == "" && o.Store == "" && o.Key == "" &&
		len(o.Keys) == 0 && o.PubSub == "" && o.Topic == "" && o.BulkEntries == 0 && o.Repeat == 0 && !o.RawPayload &&
		o.ActorType == "" && o.ActorID == "" && o.ActorTypes == 0 && o.Reminder == "" && o.JobName == "" && o.JobDueTime == 0 && o.Baseline == "" &&
		o.Direct == ""
}

// BaselineKind is o's stated baseline, or DefaultBaseline(o.Kind) when it states none.
func (o Operation) BaselineKind() BaselineKind {
	if o.Baseline != "" {
		return o.Baseline
	}
	return DefaultBaseline(o.Kind)
}

// Validate returns every invalid field of o for a load over proto, each error naming the
// field as "operation.<json name>", its value and what it accepts; nil when o is valid. A kind
// not in GRPCKinds is an error over GRPC. The zero Operation is valid (see Operation).
func (o Operation) Validate(proto Protocol) error { return errors.Join(o.problems(proto)...) }

// problems is Validate's list, one error per field.
func (o Operation) problems(proto Protocol) []error {
	if o.IsZero() {
		return nil
	}
	var errs []error
	bad := func(field string, value any, accepts string) {
		errs = append(errs, fmt.Errorf("operation.%s = %v: %s", field, value, accepts))
	}
	// need checks a required name; forbid a field the kind does not use.
	need := func(field, v string) {
		if v == "" {
			bad(field, `""`, fmt.Sprintf("must be set for kind %s", o.Kind))
		} else if err := PathSegment(v); err != nil {
			bad(field, fmt.Sprintf("%q", v), err.Error())
		}
	}
	forbid := func(field string, set bool, value any) {
		if set {
			bad(field, value, fmt.Sprintf("not used by kind %s: leave it empty", o.Kind))
		}
	}
	uses := map[string]bool{}
	switch o.Kind {
	case OpInvoke:
		need("method", o.Method)
		if o.AppID != "" {
			need("appID", o.AppID)
		}
		uses["appID"], uses["method"] = true, true
	case OpStateGet, OpStateSave, OpStateDelete:
		need("store", o.Store)
		need("key", o.Key)
		uses["store"], uses["key"] = true, true
	case OpPublish, OpPublishBulk:
		need("pubsub", o.PubSub)
		need("topic", o.Topic)
		uses["pubsub"], uses["topic"], uses["rawPayload"] = true, true, true
		if o.Kind == OpPublish {
			uses["repeat"] = true
			if o.Repeat < 0 || o.Repeat > MaxBulkEntries {
				bad("repeat", o.Repeat, fmt.Sprintf("must be from 0 to %d events per request (0 and 1: one)", MaxBulkEntries))
			}
		}
		if o.Kind == OpPublishBulk {
			uses["bulkEntries"] = true
			if o.BulkEntries < 1 || o.BulkEntries > MaxBulkEntries {
				bad("bulkEntries", o.BulkEntries, fmt.Sprintf("must be from 1 to %d events per request", MaxBulkEntries))
			}
		}
	case OpActorInvoke:
		need("actorType", o.ActorType)
		need("actorID", o.ActorID)
		need("method", o.Method)
		uses["actorType"], uses["actorID"], uses["method"], uses["actorTypes"] = true, true, true, true
		if o.ActorTypes < 0 || o.ActorTypes > MaxActorTypes {
			bad("actorTypes", o.ActorTypes, fmt.Sprintf("must be from 0 (one type, ActorType) to %d types", MaxActorTypes))
		}
	case OpActorReminder:
		need("actorType", o.ActorType)
		need("actorID", o.ActorID)
		need("reminder", o.Reminder)
		uses["actorType"], uses["actorID"], uses["reminder"] = true, true, true
	case OpJobSchedule:
		need("jobName", o.JobName)
		uses["jobName"], uses["jobDueTime"] = true, true
		if o.JobDueTime < time.Second {
			bad("jobDueTime", o.JobDueTime, "must be at least 1s")
		}
	case OpConfigurationGet:
		need("store", o.Store)
		uses["store"], uses["keys"] = true, true
		if len(o.Keys) == 0 {
			bad("keys", "[]", "must list at least one key for kind configuration.get")
		}
		for _, k := range o.Keys {
			if k == "" || strings.ContainsAny(k, "&#% ") {
				bad("keys", fmt.Sprintf("%q", k), `each must be non-empty, without "&", "#", "%" or spaces`)
			}
		}
	case OpConfigurationSet:
		need("store", o.Store)
		need("key", o.Key)
		uses["store"], uses["key"] = true, true
		if o.Baseline != BaselineStore {
			bad("baseline", fmt.Sprintf("%q", string(o.Baseline)), fmt.Sprintf("must be %q for kind configuration.set: Dapr has no API that writes configuration, so it only goes straight to the store", string(BaselineStore)))
		}
	default:
		bad("kind", fmt.Sprintf("%q", o.Kind), "must be one of "+joinKinds(OperationKinds))
	}
	if o.Kind != "" && slices.Contains(OperationKinds, o.Kind) {
		forbid("appID", !uses["appID"] && o.AppID != "", fmt.Sprintf("%q", o.AppID))
		forbid("method", !uses["method"] && o.Method != "", fmt.Sprintf("%q", o.Method))
		forbid("store", !uses["store"] && o.Store != "", fmt.Sprintf("%q", o.Store))
		forbid("key", !uses["key"] && o.Key != "", fmt.Sprintf("%q", o.Key))
		forbid("keys", !uses["keys"] && len(o.Keys) > 0, o.Keys)
		forbid("pubsub", !uses["pubsub"] && o.PubSub != "", fmt.Sprintf("%q", o.PubSub))
		forbid("topic", !uses["topic"] && o.Topic != "", fmt.Sprintf("%q", o.Topic))
		forbid("bulkEntries", !uses["bulkEntries"] && o.BulkEntries != 0, o.BulkEntries)
		forbid("repeat", !uses["repeat"] && o.Repeat != 0, o.Repeat)
		forbid("rawPayload", !uses["rawPayload"] && o.RawPayload, o.RawPayload)
		forbid("actorType", !uses["actorType"] && o.ActorType != "", fmt.Sprintf("%q", o.ActorType))
		forbid("actorID", !uses["actorID"] && o.ActorID != "", fmt.Sprintf("%q", o.ActorID))
		forbid("actorTypes", !uses["actorTypes"] && o.ActorTypes != 0, o.ActorTypes)
		forbid("reminder", !uses["reminder"] && o.Reminder != "", fmt.Sprintf("%q", o.Reminder))
		forbid("jobName", !uses["jobName"] && o.JobName != "", fmt.Sprintf("%q", o.JobName))
		forbid("jobDueTime", !uses["jobDueTime"] && o.JobDueTime != 0, o.JobDueTime)
		// A direct-to-store phase speaks the store's protocol whatever the transport, and
		// configuration.set is only ever one.
		if proto == GRPC && !slices.Contains(GRPCKinds, o.Kind) && o.Direct == "" && o.Kind != OpConfigurationSet {
			bad("kind", o.Kind, fmt.Sprintf("not implemented over protocol grpc yet (gRPC: %s; every kind over http)", joinKinds(GRPCKinds)))
		}
	}
	switch {
	case o.Direct == "":
	case !slices.Contains(directKinds, o.Kind):
		bad("direct", fmt.Sprintf("%q", string(o.Direct)), "only for kinds "+joinKinds(directKinds)+": the tester has no direct client for kind "+string(o.Kind))
	case !knownBackend(o.Direct):
		bad("direct", fmt.Sprintf("%q", string(o.Direct)), "must be a backend: redis, postgresql, rabbitmq or mqtt")
	}
	switch o.Baseline {
	case "", BaselineApp, BaselineStore, BaselineNoOp, BaselineSingles:
	default:
		bad("baseline", fmt.Sprintf("%q", string(o.Baseline)), fmt.Sprintf("must be %q (direct to the app), %q (direct to the store), %q (Dapr's no-op), %q (single publishes) or empty for the kind's default",
			string(BaselineApp), string(BaselineStore), string(BaselineNoOp), string(BaselineSingles)))
	}
	return errs
}

// EventsPerRequest is how many events one request of o publishes: BulkEntries for
// publish.bulk, Repeat (at least 1) for publish, 0 for the other kinds.
func (o Operation) EventsPerRequest() int {
	switch o.Kind {
	case OpPublishBulk:
		return o.BulkEntries
	case OpPublish:
		return max(o.Repeat, 1)
	}
	return 0
}

// operationProblems are the errors of p's Operation and of the Params fields it replaces: a
// legacy appID beside an operation, uniquePath with a kind other than invoke.
func (p Params) operationProblems() []error {
	errs := p.Operation.problems(p.Protocol)
	if p.Operation.IsZero() {
		return errs
	}
	if p.AppID != "" {
		errs = append(errs, fmt.Errorf("appID = %q: with an operation, set operation.appID instead", p.AppID))
	}
	if p.Operation.ActorTypes > 0 && !p.HasExecutor() {
		errs = append(errs, fmt.Errorf("operation.actorTypes = %d: needs an executor (each VU calls one type; fortio's fixed-rate load sends one URL)", p.Operation.ActorTypes))
	}
	if p.UniquePath && p.Operation.Kind != OpInvoke {
		errs = append(errs, fmt.Errorf("uniquePath = true: only for kind invoke; for kind %s put %s in the key, actor id or job name", p.Operation.Kind, UUIDToken))
	}
	return errs
}

// directKinds are the kinds a phase can send straight to a store or broker (Operation.Direct).
var directKinds = []OperationKind{OpStateGet, OpStateSave, OpStateDelete, OpPublish, OpPublishBulk, OpConfigurationGet, OpConfigurationSet}

// knownBackend says whether b is one of the backends a component can need.
func knownBackend(b Backend) bool {
	for _, ct := range componentTypes {
		if ct.backend == b && b != NoBackend {
			return true
		}
	}
	return false
}

// PathSegment checks that v can be one segment of a URL path as it is: a Dapr name or key.
func PathSegment(v string) error {
	if strings.ContainsAny(v, "/?#% \t\n") {
		return fmt.Errorf(`must be one URL path segment: no "/", "?", "#", "%%" or spaces`)
	}
	return nil
}

func joinKinds(ks []OperationKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// BaselineStatement is the result's baseline in words, for summaries and reports: "baseline:
// no-op (Dapr's)", "baseline: direct to the app"; "baseline: none stated" in result files
// written before operations.
//
// A direct-to-store phase names the store and says it spoke the store's own protocol, not the
// scenario's transport: "baseline: direct to the store (redis, its own protocol over TCP, not
// grpc)".
func (r *Result) BaselineStatement() string {
	if d := r.Params.Operation.Direct; d != "" {
		return fmt.Sprintf("baseline: %s (%s, its own protocol over TCP, not %s)", r.Baseline, d, r.Params.Protocol)
	}
	return "baseline: " + r.Baseline.String()
}

// MarshalJSON writes Operation with its durations in seconds, under their names with "Seconds"
// after them (package secondsjson).
func (o Operation) MarshalJSON() ([]byte, error) {
	type plain Operation
	return secondsjson.Marshal(plain(o))
}

// UnmarshalJSON reads Operation's durations in seconds, or in nanoseconds under their bare names
// (result files of schema 1).
func (o *Operation) UnmarshalJSON(b []byte) error {
	type plain Operation
	return secondsjson.Unmarshal(b, (*plain)(o))
}
