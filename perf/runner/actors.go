package runner

import (
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
			st, err := perf.FetchActorStats(d.dep, a.Name)
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
