package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
)

// actorStatsTimeout bounds one reading of a host's counters.
const actorStatsTimeout = 10 * time.Second

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

// stats reads the host's counters, bounded by ctx and actorStatsTimeout; fires > 0 also asks
// when the fires-th timed reminder fire arrived (?reminderFires, perf.ActorStats'
// ReminderFiresTimed). Errors: no answer, a non-200 status (with the body), or a body that is
// not perf.ActorStats.
func (h actorHost) stats(ctx context.Context, fires int64) (perf.ActorStats, error) {
	ctx, cancel := context.WithTimeout(ctx, actorStatsTimeout)
	defer cancel()
	u := h.url + "/stats"
	if fires > 0 {
		u += fmt.Sprintf("?reminderFires=%d", fires)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return perf.ActorStats{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return perf.ActorStats{}, fmt.Errorf("actor host %s: stats: %w", h.url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return perf.ActorStats{}, fmt.Errorf("actor host %s: stats: %s: %s", h.url, resp.Status, strings.TrimSpace(string(body)))
	}
	var st perf.ActorStats
	if err := json.Unmarshal(body, &st); err != nil {
		return perf.ActorStats{}, fmt.Errorf("actor host %s: stats: %w", h.url, err)
	}
	return st, nil
}
