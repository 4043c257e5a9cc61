package plan

import (
	"context"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/actorstats"
)

// actorHost reads an actor host's counters (apps/actorapp GET /stats) at url, its own HTTP
// port.
type actorHost struct{ url string }

// actorHostOf is the client of app's counters in dep (its perf.AppControl endpoint). Error: dep
// has no such endpoint.
func actorHostOf(dep perf.Deployment, app string) (actorHost, error) {
	u, err := dep.Endpoint(app, perf.AppControl)
	if err != nil {
		return actorHost{}, err
	}
	return actorHost{url: u}, nil
}

// stats reads the host's counters (actorstats.Read); fires > 0 also asks when the fires-th
// timed reminder fire arrived.
func (h actorHost) stats(ctx context.Context, fires int64) (perf.ActorStats, error) {
	return actorstats.Read(ctx, h.url, fires)
}
