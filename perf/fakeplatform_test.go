package perf_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/apps/tester"
	"github.com/daprperf/daprperf/perf"
)

// fakePlatform serves the tester and every httpapp in-process on loopback (no daprd): a
// "sidecar" route cannot be used, so scenarios on it route Main straight to an app.
type fakePlatform struct {
	started atomic.Int32
}

func (f *fakePlatform) Name() string { return "fake" }

func (f *fakePlatform) Start(_ context.Context, t testing.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	f.started.Add(1)
	d := &fakeDeployment{urls: map[string]string{}}
	for _, a := range apps {
		var srv *httptest.Server
		switch a.Kind {
		case perf.Tester:
			srv = httptest.NewServer(tester.NewHandler())
		case perf.HTTPApp:
			o := httpapp.Options{}
			for _, arg := range a.Args {
				if v, ok := strings.CutPrefix(arg, "-delay="); ok {
					var err error
					if o.Delay, err = time.ParseDuration(v); err != nil {
						t.Fatalf("fake platform: %s: %v", arg, err)
					}
				}
			}
			srv = httptest.NewServer(httpapp.NewHandler(o))
		default:
			t.Fatalf("fake platform: kind %s not supported", a.Kind)
		}
		t.Cleanup(srv.Close)
		d.urls[a.Name] = srv.URL
		d.names = append(d.names, a.Name)
	}
	return d
}

type fakeDeployment struct {
	urls  map[string]string
	names []string
	reads atomic.Int64
}

func (d *fakeDeployment) Endpoint(app string, e perf.Endpoint) (string, error) {
	if u, ok := d.urls[app]; ok && e == perf.AppHTTP {
		return u, nil
	}
	return "", fmt.Errorf("fake: %s has no %s", app, e)
}

func (d *fakeDeployment) Processes() []string { return d.names }

// Usage reports a growing CPU time and a fixed RSS per process.
func (d *fakeDeployment) Usage(context.Context) (map[string]perf.Usage, error) {
	n := d.reads.Add(1)
	out := map[string]perf.Usage{}
	for _, name := range d.names {
		out[name] = perf.Usage{CPUSeconds: 0.1 * float64(n), RSSBytes: 50 << 20}
	}
	return out, nil
}

func (d *fakeDeployment) Exits(context.Context) ([]perf.Exit, error) { return nil, nil }
func (d *fakeDeployment) DaprVersion() string                        { return "0.0.0-fake" }
