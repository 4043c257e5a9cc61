package perf

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// validOps is one valid operation of every kind.
func validOps() map[OperationKind]Operation {
	return map[OperationKind]Operation{
		OpInvoke:           {Kind: OpInvoke, AppID: "callee", Method: "test"},
		OpStateGet:         {Kind: OpStateGet, Store: "statestore", Key: "k1"},
		OpStateSave:        {Kind: OpStateSave, Store: "statestore", Key: "order-{uuid}"},
		OpStateDelete:      {Kind: OpStateDelete, Store: "statestore", Key: "k1"},
		OpPublish:          {Kind: OpPublish, PubSub: "pubsub", Topic: "orders"},
		OpPublishBulk:      {Kind: OpPublishBulk, PubSub: "pubsub", Topic: "orders", BulkEntries: 10},
		OpActorInvoke:      {Kind: OpActorInvoke, ActorType: "Counter", ActorID: "{uuid}", Method: "add"},
		OpJobSchedule:      {Kind: OpJobSchedule, JobName: "job-{uuid}", JobDueTime: time.Hour},
		OpConfigurationGet: {Kind: OpConfigurationGet, Store: "configstore", Keys: []string{"a", "b"}},
		OpConfigurationSet: {Kind: OpConfigurationSet, Store: "configstore", Key: "update-{uuid}", Baseline: BaselineStore},
		OpActorReminder:    {Kind: OpActorReminder, ActorType: "PerfTestActorReminder", ActorID: "{uuid}", Reminder: "myreminder"},
	}
}

func TestEveryKindHasAValidOperation(t *testing.T) {
	ops := validOps()
	for _, k := range OperationKinds {
		op, ok := ops[k]
		if !ok {
			t.Errorf("kind %s: no valid example in this test", k)
			continue
		}
		if err := op.Validate(HTTP); err != nil {
			t.Errorf("kind %s over http: %v", k, err)
		}
	}
	if err := (Operation{}).Validate(GRPC); err != nil {
		t.Errorf("the zero operation (service invocation of a whole target): %v", err)
	}
}

func TestOperationErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		name  string
		op    Operation
		proto Protocol
		want  []string
	}{
		{"unknown kind", Operation{Kind: "state.put"}, HTTP, []string{`operation.kind = "state.put": must be one of invoke, state.get`}},
		{"state without store and key", Operation{Kind: OpStateGet}, HTTP, []string{`operation.store = "": must be set for kind state.get`, `operation.key = "": must be set for kind state.get`}},
		{"key with a slash", Operation{Kind: OpStateDelete, Store: "s", Key: "a/b"}, HTTP, []string{`operation.key = "a/b": must be one URL path segment`}},
		{"publish without topic", Operation{Kind: OpPublish, PubSub: "p"}, HTTP, []string{`operation.topic = "": must be set for kind publish`}},
		{"bulk of zero", Operation{Kind: OpPublishBulk, PubSub: "p", Topic: "t"}, HTTP, []string{"operation.bulkEntries = 0: must be from 1 to 1000"}},
		{"bulk too large", Operation{Kind: OpPublishBulk, PubSub: "p", Topic: "t", BulkEntries: 1001}, HTTP, []string{"operation.bulkEntries = 1001"}},
		{"bulk entries on publish", Operation{Kind: OpPublish, PubSub: "p", Topic: "t", BulkEntries: 5}, HTTP, []string{"operation.bulkEntries = 5: not used by kind publish"}},
		{"repeat too large", Operation{Kind: OpPublish, PubSub: "p", Topic: "t", Repeat: 1001}, HTTP, []string{"operation.repeat = 1001: must be from 0 to 1000 events per request"}},
		{"repeat on bulk", Operation{Kind: OpPublishBulk, PubSub: "p", Topic: "t", BulkEntries: 5, Repeat: 2}, GRPC, []string{"operation.repeat = 2: not used by kind publish.bulk"}},
		{"raw payload on state", Operation{Kind: OpStateGet, Store: "s", Key: "k", RawPayload: true}, HTTP, []string{"operation.rawPayload = true: not used by kind state.get"}},
		{"actor without id", Operation{Kind: OpActorInvoke, ActorType: "A", Method: "m"}, HTTP, []string{`operation.actorID = "": must be set for kind actor.invoke`}},
		{"store on invoke", Operation{Kind: OpInvoke, Method: "m", Store: "s"}, HTTP, []string{`operation.store = "s": not used by kind invoke`}},
		{"job due too soon", Operation{Kind: OpJobSchedule, JobName: "j", JobDueTime: time.Millisecond}, HTTP, []string{"operation.jobDueTime = 1ms: must be at least 1s"}},
		{"configuration without keys", Operation{Kind: OpConfigurationGet, Store: "c"}, HTTP, []string{"operation.keys = []: must list at least one key"}},
		{"bad baseline", Operation{Kind: OpStateGet, Store: "s", Key: "k", Baseline: "redis"}, HTTP, []string{`operation.baseline = "redis": must be "app"`}},
		{"actor over grpc", Operation{Kind: OpActorInvoke, ActorType: "A", ActorID: "1", Method: "m"}, GRPC, []string{"operation.kind = actor.invoke: not implemented over protocol grpc yet (gRPC: invoke, state.get"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op.Validate(tc.proto)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

func TestParamsValidateChecksTheOperation(t *testing.T) {
	p := DefaultParams()
	p.Target = "http://127.0.0.1:3500"
	p.Operation = Operation{Kind: OpStateSave, Store: "statestore"}
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), `operation.key = "": must be set for kind state.save`) {
		t.Errorf("missing key: %v", err)
	}
	p.Operation.Key = "k"
	p.UniquePath = true
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "uniquePath = true: only for kind invoke") {
		t.Errorf("uniquePath with state.save: %v", err)
	}
	p.UniquePath, p.AppID = false, "callee"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), `appID = "callee": with an operation, set operation.appID`) {
		t.Errorf("legacy appID beside an operation: %v", err)
	}
	p.AppID = ""
	if err := p.Validate(); err != nil {
		t.Errorf("valid state.save params: %v", err)
	}
}

func TestBaselineKinds(t *testing.T) {
	for _, k := range OperationKinds {
		want := BaselineNoOp
		switch k {
		case OpInvoke:
			want = BaselineApp
		case OpConfigurationSet:
			want = BaselineStore
		}
		if got := DefaultBaseline(k); got != want {
			t.Errorf("DefaultBaseline(%s) = %q, want %q", k, got, want)
		}
		if got := validOps()[k].BaselineKind(); got != want {
			t.Errorf("kind %s: default baseline %q, want %q", k, got, want)
		}
	}
	if got := (Operation{}).BaselineKind(); got != BaselineApp {
		t.Errorf("zero operation (service invocation): %q, want app", got)
	}
	stated := Operation{Kind: OpStateGet, Store: "s", Key: "k", Baseline: BaselineStore}
	if got := stated.BaselineKind(); got != BaselineStore {
		t.Errorf("a stated baseline wins: %q", got)
	}
	for b, want := range map[BaselineKind]string{BaselineApp: "direct to the app", BaselineStore: "direct to the store", BaselineNoOp: "no-op (Dapr's)", "": "none stated"} {
		if got := b.String(); got != want {
			t.Errorf("%q.String() = %q, want %q", b, got, want)
		}
	}
}

// TestLegacyParamsJSONIsUnchanged: params without an operation encode as they did before
// operations existed (no "operation" key), so results and tester requests keep their shape.
func TestLegacyParamsJSONIsUnchanged(t *testing.T) {
	b, err := json.Marshal(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "operation") {
		t.Errorf("legacy params encode an operation: %s", b)
	}
	p := DefaultParams()
	p.Operation = validOps()[OpPublishBulk]
	b, err = json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"operation":{"kind":"publish.bulk","pubsub":"pubsub","topic":"orders","bulkEntries":10}`) {
		t.Errorf("operation JSON: %s", b)
	}
	var back Params
	if err := json.Unmarshal(b, &back); err != nil || back.Operation.Kind != OpPublishBulk || back.Operation.BulkEntries != 10 {
		t.Errorf("round trip: %+v, %v", back.Operation, err)
	}
}

func TestBaselineStatement(t *testing.T) {
	for b, want := range map[BaselineKind]string{BaselineNoOp: "baseline: no-op (Dapr's)", BaselineStore: "baseline: direct to the store", "": "baseline: none stated"} {
		r := Result{Baseline: b}
		if got := r.BaselineStatement(); got != want {
			t.Errorf("%q: %q, want %q", b, got, want)
		}
	}
}

func TestEventsPerRequest(t *testing.T) {
	for _, tc := range []struct {
		op   Operation
		want int
	}{
		{Operation{Kind: OpPublish, PubSub: "p", Topic: "t"}, 1},
		{Operation{Kind: OpPublish, PubSub: "p", Topic: "t", Repeat: 100, RawPayload: true}, 100},
		{Operation{Kind: OpPublishBulk, PubSub: "p", Topic: "t", BulkEntries: 100}, 100},
		{Operation{Kind: OpStateGet, Store: "s", Key: "k"}, 0},
	} {
		if err := tc.op.Validate(GRPC); err != nil {
			t.Errorf("%+v: %v", tc.op, err)
		}
		if got := tc.op.EventsPerRequest(); got != tc.want {
			t.Errorf("%+v: EventsPerRequest() = %d, want %d", tc.op, got, tc.want)
		}
	}
}

func TestActorReminderAndActorTypesFields(t *testing.T) {
	for _, tc := range []struct {
		op   Operation
		want string
	}{
		{Operation{Kind: OpActorReminder, ActorType: "A", ActorID: "{uuid}"}, "operation.reminder"},
		{Operation{Kind: OpActorReminder, ActorType: "A", ActorID: "1", Reminder: "r/1"}, "operation.reminder"},
		{Operation{Kind: OpActorInvoke, ActorType: "A", ActorID: "1", Method: "m", Reminder: "r"}, "operation.reminder"},
		{Operation{Kind: OpActorReminder, ActorType: "A", ActorID: "1", Reminder: "r", ActorTypes: 3}, "operation.actorTypes"},
		{Operation{Kind: OpActorInvoke, ActorType: "A", ActorID: "1", Method: "m", ActorTypes: -1}, "operation.actorTypes"},
		{Operation{Kind: OpActorInvoke, ActorType: "A", ActorID: "1", Method: "m", ActorTypes: MaxActorTypes + 1}, "operation.actorTypes"},
	} {
		err := tc.op.Validate(HTTP)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", tc.op, err, tc.want)
		}
	}
	if err := (Operation{Kind: OpActorReminder, ActorType: "A", ActorID: "1", Reminder: "r"}).Validate(GRPC); err == nil {
		t.Error("actor.reminder over grpc: no error, want kind not implemented")
	}
	p := DefaultParams()
	p.Target = "http://127.0.0.1:3500"
	p.Operation = Operation{Kind: OpActorInvoke, ActorType: "actor", ActorID: "{uuid}", Method: "m", ActorTypes: 100}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "needs an executor") {
		t.Errorf("actorTypes without an executor: %v, want needs an executor", err)
	}
	if got := ActorTypeName("actor", 7); got != "actor_7" {
		t.Errorf("ActorTypeName = %q, want actor_7 (Dapr's names)", got)
	}
}
