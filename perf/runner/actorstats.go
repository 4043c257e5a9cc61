package runner

import (
	"context"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/actorstats"
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

// fetchActorStats reads the counters of actor host app on dep (actorstats.Read at its
// perf.AppControl endpoint), which the runner puts in Report.Actors (readActorStats). Errors: no
// endpoint, and actorstats.Read's.
func fetchActorStats(dep interface {
	Endpoint(app string, e perf.Endpoint) (string, error)
}, app string) (perf.ActorStats, error) {
	base, err := dep.Endpoint(app, perf.AppControl)
	if err != nil {
		return perf.ActorStats{}, err
	}
	return actorstats.Read(context.Background(), base, 0)
}
