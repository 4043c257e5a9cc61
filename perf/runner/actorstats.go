package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// readActorStats reads GET /stats of every ActorApp of every deployment into the report; a
// host that does not answer is an infrastructure error.
func (s *session) readActorStats() {
	s.mu.Lock()
	deps := append([]*deployed(nil), s.deps...)
	s.mu.Unlock()
	for _, d := range deps {
		for _, a := range s.sc.Apps {
			if a.Kind != perf.ActorApp {
				continue
			}
			st, err := fetchActorStats(d.dep, a.Name)
			if err != nil {
				s.InfraError("actor stats of "+a.Name+labelSuffix(d.label), err)
				continue
			}
			st.App = a.Name
			if d.label != "" {
				st.App = d.label + "/" + a.Name
			}
			s.rep.Actors = append(s.rep.Actors, st)
		}
	}
}

// actorStatsTimeout bounds reading one host's counters.
const actorStatsTimeout = 10 * time.Second

// fetchActorStats reads GET /stats of an actor host, app, at its own HTTP port on dep (its
// perf.AppControl endpoint): the host's activation, timer and fault counters, which the runner
// puts in Report.Actors (readActorStats). Errors: no endpoint, no answer within
// actorStatsTimeout, a non-200 status (with the body), or a body that is not perf.ActorStats.
func fetchActorStats(dep interface {
	Endpoint(app string, e perf.Endpoint) (string, error)
}, app string) (perf.ActorStats, error) {
	base, err := dep.Endpoint(app, perf.AppControl)
	if err != nil {
		return perf.ActorStats{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), actorStatsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/stats", nil)
	if err != nil {
		return perf.ActorStats{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return perf.ActorStats{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return perf.ActorStats{}, fmt.Errorf("GET %s/stats: %s: %s", base, resp.Status, bytes.TrimSpace(body))
	}
	var st perf.ActorStats
	if err := json.Unmarshal(body, &st); err != nil {
		return perf.ActorStats{}, fmt.Errorf("GET %s/stats: %w", base, err)
	}
	return st, nil
}
