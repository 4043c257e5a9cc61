package plan

import (
	"fmt"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// sampleIdle samples dep's resources for window with no load (Session.Record), or until the
// run's test ends.
func sampleIdle(s perf.Session, dep perf.Deployment, window time.Duration) []perf.Series {
	stop := s.Record(dep, s.Scenario().Roles(), "idle window")
	select {
	case <-s.T().Context().Done():
	case <-time.After(window):
	}
	return stop()
}

// routed returns p aimed at route r of the deployment, over the route's protocol
// (Route.ProtocolIn).
func routed(dep perf.Deployment, sc perf.Scenario, r perf.Route, p perf.Params) (perf.Params, error) {
	p.Protocol = r.ProtocolIn(sc)
	p.Method = r.Method
	if p.Method == "" {
		p.Method = "test"
	}
	var err error
	// An invoke with a stated baseline (Dapr's no-op baseline of the pub/sub scenarios: the
	// app's no-op endpoint) keeps its operation, so its result says which baseline it is.
	if !r.Operation.IsZero() && (r.Operation.Kind != perf.OpInvoke || r.Operation.Baseline != "") {
		p.Operation = r.Operation
		switch {
		case r.Operation.BaselineKind() == perf.BaselineStore && !r.ThroughSidecar:
			p.Operation.Direct, p.Target, err = directStore(dep, sc, r.Operation)
			if err == nil {
				p.Operation.Key, err = storeKey(sc, r.Operation)
			}
		case p.Protocol == perf.HTTP && r.ThroughSidecar:
			p.Target, err = dep.Endpoint(sc.Tester, perf.SidecarHTTP)
		case r.ThroughSidecar:
			p.Target, err = dep.Endpoint(sc.Tester, perf.SidecarGRPC)
		case p.Protocol == perf.HTTP:
			p.Target, err = dep.Endpoint(r.To, perf.AppHTTP)
		default:
			p.Target, err = dep.Endpoint(r.To, perf.AppGRPC)
		}
		if err != nil {
			return perf.Params{}, err
		}
		return p, p.Validate()
	}
	switch {
	case p.Protocol == perf.HTTP && r.ThroughSidecar:
		p.Target, err = dep.Endpoint(sc.Tester, perf.SidecarHTTP)
		p.Target += "/v1.0/invoke/" + r.To + "/method/" + p.Method
	case p.Protocol == perf.HTTP:
		p.Target, err = dep.Endpoint(r.To, perf.AppHTTP)
		p.Target += "/" + p.Method
	case r.ThroughSidecar:
		p.Target, err = dep.Endpoint(sc.Tester, perf.SidecarGRPC)
		p.AppID = r.To
	default:
		p.Target, err = dep.Endpoint(r.To, perf.AppGRPC)
	}
	if err != nil {
		return perf.Params{}, err
	}
	return p, p.Validate()
}

// directStore is the backend, and its host:port, that op's component (Store or PubSub, as
// declared in a sidecar of sc) needs on dep: where a direct-to-store phase sends its load. An
// error names the component when no sidecar declares it, when it needs no backend (in-memory
// components have no store to call directly), or when dep did not start that backend.
func directStore(dep perf.Deployment, sc perf.Scenario, op perf.Operation) (perf.Backend, string, error) {
	name := op.Store
	if op.Kind == perf.OpPublish || op.Kind == perf.OpPublishBulk {
		name = op.PubSub
	}
	var comp *perf.Component
	for _, a := range sc.Apps {
		if a.Sidecar == nil {
			continue
		}
		for i := range a.Sidecar.Components {
			if a.Sidecar.Components[i].Name == name {
				comp = &a.Sidecar.Components[i]
			}
		}
	}
	if comp == nil {
		return "", "", fmt.Errorf("route with baseline %q: no sidecar of the scenario declares component %q", string(perf.BaselineStore), name)
	}
	be := comp.Backend()
	if be == perf.NoBackend {
		return "", "", fmt.Errorf("route with baseline %q: component %s (%s) runs inside daprd, there is no store to call directly: use baseline %q", string(perf.BaselineStore), name, comp.Type, string(perf.BaselineNoOp))
	}
	for _, b := range perf.BackendsOf(dep) {
		if b.Backend == be && b.Login {
			return "", "", fmt.Errorf("route with baseline %q: the %s backend of component %s (%s) takes a login the tester's direct clients do not carry (they use no password, and PostgreSQL user and database postgres): run the direct-to-store baseline against a backend without one, or on the local platform", string(perf.BaselineStore), be, name, b.From)
		}
		if b.Backend == be {
			return be, b.Address, nil
		}
	}
	return "", "", fmt.Errorf("route with baseline %q: the platform reports no %s backend for component %s", string(perf.BaselineStore), be, name)
}

// storeKey is the key op's state store holds for op.Key when daprd of the tester (sc.Tester)
// saves it: daprd prefixes every state key by the component's keyPrefix strategy (Dapr docs,
// "State management: share state between applications"): "appid" (the default) gives "<app
// id>||<key>", "name" "<store name>||<key>", "none" the key itself, any other value
// "<value>||<key>". A direct-to-store phase sends that key, so it reads and writes the row
// daprd does. Kinds without a key (publish) keep op.Key as it is. The app id is the tester's
// app name (the local platform's --app-id).
func storeKey(sc perf.Scenario, op perf.Operation) (string, error) {
	switch op.Kind {
	case perf.OpStateGet, perf.OpStateSave, perf.OpStateDelete:
	default:
		return op.Key, nil
	}
	prefix := "appid"
	for _, a := range sc.Apps {
		if a.Name != sc.Tester || a.Sidecar == nil {
			continue
		}
		for _, c := range a.Sidecar.Components {
			if c.Name == op.Store {
				if v, ok := c.Metadata["keyPrefix"]; ok && v != "" {
					prefix = v
				}
			}
		}
	}
	switch prefix {
	case "appid":
		return sc.Tester + "||" + op.Key, nil
	case "name":
		return op.Store + "||" + op.Key, nil
	case "none":
		return op.Key, nil
	}
	if err := perf.PathSegment(prefix); err != nil {
		return "", fmt.Errorf("component %s: metadata keyPrefix %q: %v", op.Store, prefix, err)
	}
	return prefix + "||" + op.Key, nil
}
