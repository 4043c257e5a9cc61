package perf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ActorStatsTimeout bounds reading one host's counters.
const ActorStatsTimeout = 10 * time.Second

// FetchActorStats reads GET /stats of an actor host, app, at its own HTTP port on dep: the
// host's activation, timer and fault counters. Errors: no endpoint, no answer within
// ActorStatsTimeout, a non-200 status (with the body), or a body that is not ActorStats.
func FetchActorStats(dep interface {
	Endpoint(app string, e Endpoint) (string, error)
}, app string) (ActorStats, error) {
	base, err := dep.Endpoint(app, AppControl)
	if err != nil {
		return ActorStats{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), ActorStatsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/stats", nil)
	if err != nil {
		return ActorStats{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ActorStats{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return ActorStats{}, fmt.Errorf("GET %s/stats: %s: %s", base, resp.Status, bytes.TrimSpace(body))
	}
	var st ActorStats
	if err := json.Unmarshal(body, &st); err != nil {
		return ActorStats{}, fmt.Errorf("GET %s/stats: %w", base, err)
	}
	return st, nil
}
