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

// testerSlack is how much longer than the load's duration a POST /test may take: connection
// set-up, the tester's warm-up request per connection, and encoding the result.
const testerSlack = 2 * time.Minute

// RunLoad asks the tester at testerURL (its base URL, "http://127.0.0.1:4000") to run p, and
// returns the tester's result. The call is bounded by ctx and by p.Duration + 2 minutes. A
// non-200 answer is an error carrying the tester's status and message (its JSON error body).
func RunLoad(ctx context.Context, testerURL string, p Params) (Result, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return Result{}, fmt.Errorf("perf: tester request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.Duration+testerSlack)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, testerURL+"/test", bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("perf: tester request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("perf: tester %s: %w", testerURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var reply struct {
			Error string `json:"error"`
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10)) // for the message only
		if json.Unmarshal(b, &reply) != nil || reply.Error == "" {
			reply.Error = string(bytes.TrimSpace(b))
		}
		return Result{}, fmt.Errorf("perf: tester %s: %s: %s", testerURL, resp.Status, reply.Error)
	}
	var res Result
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		return Result{}, fmt.Errorf("perf: tester %s: decode result: %w", testerURL, err)
	}
	return res, nil
}
