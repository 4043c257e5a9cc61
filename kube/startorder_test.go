package kube

import (
	"testing"

	"github.com/daprperf/daprperf/perf"
)

// TestMigratesFirst: of the apps in creation order (targets, then testers), the first whose
// sidecar has a PostgreSQL component is rolled out alone first, when two or more have one.
func TestMigratesFirst(t *testing.T) {
	pg := perf.Component{Name: "statestore", Type: perf.StatePostgreSQL}
	redis := perf.Component{Name: "statestore", Type: perf.StateRedis}
	app := func(name string, kind perf.AppKind, comps ...perf.Component) perf.App {
		return perf.App{Name: name, Kind: kind, Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP, Components: comps}}
	}
	for _, c := range []struct {
		name string
		apps []perf.App
		want string
	}{
		{"tester and hosts on PostgreSQL", []perf.App{app("tester", perf.Tester, pg), app("actorapp-0", perf.ActorApp, pg), app("actorapp-1", perf.ActorApp, pg)}, "actorapp-0"},
		{"only the testers", []perf.App{app("tester", perf.Tester, pg), app("tester-2", perf.Tester, pg), app("testapp", perf.HTTPApp, redis)}, "tester"},
		{"one on PostgreSQL", []perf.App{app("tester", perf.Tester, redis), app("actorapp-0", perf.ActorApp, pg)}, ""},
		{"none", []perf.App{app("tester", perf.Tester, redis), app("testapp", perf.HTTPApp)}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			descs, err := Describe(testImages, "ns", c.apps...)
			if err != nil {
				t.Fatal(err)
			}
			order := creationOrder(descs)
			for i := 1; i < len(order); i++ {
				if order[i-1].Kind == perf.Tester && order[i].Kind != perf.Tester {
					t.Fatalf("creation order %v: a tester before a target", order)
				}
			}
			got := ""
			if i := migratesFirst(order); i >= 0 {
				got = order[i].Name
			}
			if got != c.want {
				t.Errorf("migratesFirst = %q, want %q", got, c.want)
			}
		})
	}
}
