package tester

import (
	"github.com/daprperf/daprperf/perf"
)

// actorTypesCaller makes the VUs' callers of an actor.invoke load spread over
// Operation.ActorTypes actor types (Dapr's actor_type_scale): the k-th caller made (VU k)
// calls type ActorType_<k mod ActorTypes>, with the same {uuid} id per request as any actor
// call. Dapr's k6 script picks the type per iteration instead (iteration mod 100); with VUs
// looping back to back, either way each type takes an equal share of the calls. Callers are
// made one after another (runDriver), so the counter needs no lock.
func actorTypesCaller(p perf.Params) func() (caller, error) {
	k := 0
	return func() (caller, error) {
		q := p
		q.Operation.ActorType = perf.ActorTypeName(p.Operation.ActorType, k%p.Operation.ActorTypes)
		q.Operation.ActorTypes = 0
		k++
		req, err := httpRequestFor(q)
		if err != nil {
			return nil, err
		}
		if answersNoContent(q.Operation) {
			return newStdHTTPCaller(req)
		}
		return newFetchCaller(req)
	}
}
