// Package actorstats is the one client of an actor host's counters (apps/actorapp's GET
// /stats): the runner reads them into Report.Actors after a run, and the plans read them during
// one (the fault plan finds the actor's host, the reminder plan waits for the fires).
package actorstats

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

// Timeout bounds one reading of a host's counters.
const Timeout = 10 * time.Second

// Read reads the counters of the actor host whose own HTTP port is at base (its
// perf.AppControl endpoint), bounded by ctx and Timeout; fires > 0 also asks when the fires-th
// timed reminder fire arrived (?reminderFires, perf.ActorStats' ReminderFiresTimed). Errors:
// no answer, a non-200 status (with the body), or a body that is not perf.ActorStats.
func Read(ctx context.Context, base string, fires int64) (perf.ActorStats, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	u := base + "/stats"
	if fires > 0 {
		u += fmt.Sprintf("?reminderFires=%d", fires)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return perf.ActorStats{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return perf.ActorStats{}, fmt.Errorf("actor host %s: stats: %w", base, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return perf.ActorStats{}, fmt.Errorf("actor host %s: stats: %s: %s", base, resp.Status, strings.TrimSpace(string(body)))
	}
	var st perf.ActorStats
	if err := json.Unmarshal(body, &st); err != nil {
		return perf.ActorStats{}, fmt.Errorf("actor host %s: stats: %w", base, err)
	}
	return st, nil
}
