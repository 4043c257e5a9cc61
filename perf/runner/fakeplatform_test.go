package runner_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/daprperf/daprperf/apps/httpapp"
	"github.com/daprperf/daprperf/apps/tester"
	"github.com/daprperf/daprperf/perf"
)

// fakePlatform serves the tester and every httpapp in-process on loopback (no daprd): a
// "sidecar" route cannot be used, so scenarios on it route Main straight to an app. Like the
// real platforms it gives each tester an allow-list of the other apps, its TesterLimits and a
// new token. limits records the TesterLimits each tester was started with.
type fakePlatform struct {
	started atomic.Int32
	limits  map[string]*perf.TesterLimits
	// nodes, when set, makes the deployments perf.Placed, on these nodes.
	nodes map[string]string
	// stallB, when set, makes the deployments A/B ones (perf.SideB): build B's view reaches a
	// second server of every app, through stallB.
	stallB *stall
}

// stall holds the requests numbered from+1 to to (counted over every server it wraps) for hold
// each before they are served: a stall of build B's path at a known point of the run.
type stall struct {
	from, to int64
	hold     time.Duration
	n        atomic.Int64
}

func (s *stall) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := s.n.Add(1); k > s.from && k <= s.to {
			time.Sleep(s.hold)
		}
		h.ServeHTTP(w, r)
	})
}

// placedDeployment is a fakeDeployment whose processes run on nodes (perf.Placed).
type placedDeployment struct {
	*fakeDeployment
	nodes map[string]string
}

func (p placedDeployment) Nodes(context.Context) (map[string]string, error) { return p.nodes, nil }

func (f *fakePlatform) Name() string { return "fake" }

func (f *fakePlatform) Start(_ context.Context, t perf.TB, apps ...perf.App) perf.Deployment {
	t.Helper()
	f.started.Add(1)
	d := &fakeDeployment{urls: map[string]string{}, tokens: map[string]string{}}
	var allow []string
	for _, a := range apps { // the targets first: the testers' allow-lists name them
		switch a.Kind {
		case perf.Tester:
			continue
		case perf.HTTPApp:
		default:
			t.Fatalf("fake platform: kind %s not supported", a.Kind)
		}
		o := httpapp.Options{}
		for _, arg := range a.Args {
			if v, ok := strings.CutPrefix(arg, "-delay="); ok {
				var err error
				if o.Delay, err = time.ParseDuration(v); err != nil {
					t.Fatalf("fake platform: %s: %v", arg, err)
				}
			}
		}
		srv := httptest.NewServer(httpapp.NewHandler(o))
		t.Cleanup(srv.Close)
		d.urls[a.Name] = srv.URL
		allow = append(allow, srv.Listener.Addr().String())
		if f.stallB != nil {
			if d.b == nil {
				d.b = &fakeDeployment{urls: map[string]string{}, tokens: d.tokens}
			}
			srvB := httptest.NewServer(f.stallB.wrap(httpapp.NewHandler(o)))
			t.Cleanup(srvB.Close)
			d.b.urls[a.Name] = srvB.URL
			allow = append(allow, srvB.Listener.Addr().String())
		}
	}
	for _, a := range apps {
		if a.Kind != perf.Tester {
			continue
		}
		if f.limits == nil {
			f.limits = map[string]*perf.TesterLimits{}
		}
		f.limits[a.Name] = a.TesterLimits
		cfg := tester.Config{Token: perf.NewTesterToken()}
		if a.TesterLimits != nil {
			cfg.Limits.TesterLimits = *a.TesterLimits
			cfg.Limits.QPSSource, cfg.Limits.ConnectionsSource, cfg.Limits.DurationSource = "fake", "fake", "fake"
		}
		var err error
		if cfg.Allow, err = tester.NewAllowList("fake platform", allow...); err != nil {
			t.Fatal(err)
		}
		h, err := tester.NewHandler(cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		d.urls[a.Name], d.tokens[a.Name] = srv.URL, cfg.Token
		if d.b != nil {
			d.b.urls[a.Name] = srv.URL
		}
	}
	for _, a := range apps {
		d.names = append(d.names, a.Name)
	}
	if d.b != nil {
		d.b.names = d.names
	}
	if f.nodes != nil {
		return placedDeployment{d, f.nodes}
	}
	return d
}

type fakeDeployment struct {
	urls   map[string]string
	tokens map[string]string
	names  []string
	reads  atomic.Int64
	// b is build B's view (fakePlatform.stallB): the same tester, the apps' second servers.
	b *fakeDeployment
}

// SideB returns build B's view when the platform made one.
func (d *fakeDeployment) SideB() (perf.Deployment, bool) { return d.b, d.b != nil }

func (d *fakeDeployment) Endpoint(app string, e perf.Endpoint) (string, error) {
	if u, ok := d.urls[app]; ok && (e == perf.AppHTTP || e == perf.AppControl) {
		return u, nil
	}
	return "", fmt.Errorf("fake: %s has no %s", app, e)
}

func (d *fakeDeployment) TesterToken(app string) (string, error) {
	if token, ok := d.tokens[app]; ok {
		return token, nil
	}
	return "", fmt.Errorf("fake: %s is not a tester", app)
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
