package plan

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"
)

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
