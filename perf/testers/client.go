package testers

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

// Client drives one tester app over HTTP.
type Client struct {
	// URL is the tester's base URL, "http://127.0.0.1:4000".
	URL string
	// Token is the per-run token of the tester's platform, sent as "Authorization: Bearer
	// <Token>"; "" sends no Authorization header.
	Token string
	// SidecarHTTP and SidecarGRPC are the endpoints of the tester's own daprd, as the tester
	// reaches them ("" without a sidecar): a split load aimed at the first tester's daprd is
	// aimed at each replica's own (runSplit).
	SidecarHTTP, SidecarGRPC string
	// Replicas are the scenario's other testers (NewGroup): RunLoad splits each load between
	// this tester and them and merges their results. Empty for one tester.
	Replicas []Client
}

// NewClient returns the client of the tester app in dep: its AppControl endpoint, its token
// (perf.Deployment.TesterToken) and its sidecar's endpoints, if it has one.
func NewClient(dep perf.Deployment, app string) (Client, error) {
	u, err := dep.Endpoint(app, perf.AppControl)
	if err != nil {
		return Client{}, err
	}
	token, err := dep.TesterToken(app)
	if err != nil {
		return Client{}, err
	}
	c := Client{URL: u, Token: token}
	c.SidecarHTTP, _ = dep.Endpoint(app, perf.SidecarHTTP) // "" for a tester without a sidecar
	c.SidecarGRPC, _ = dep.Endpoint(app, perf.SidecarGRPC)
	return c, nil
}

// RunLoad asks tester to run p and returns the tester's result; a tester with Replicas runs p
// split among them all and returns the merged result (perf.Params.Split, MergeResults). The
// call is bounded by ctx and by the wait for p.StartAt + p.RunDuration() + perf.TesterSlack. A
// non-200 answer is an error carrying the tester's status and message (its JSON error body):
// 401 for a missing or wrong token, 403 for a target outside its allow-list, 400 for a load
// beyond its limits.
func RunLoad(ctx context.Context, tester Client, p perf.Params) (perf.Result, error) {
	if len(tester.Replicas) > 0 {
		return runSplit(ctx, tester, p)
	}
	body, err := json.Marshal(p)
	if err != nil {
		return perf.Result{}, fmt.Errorf("testers: request: %w", err)
	}
	wait := max(time.Until(p.StartAt), 0)
	ctx, cancel := context.WithTimeout(ctx, wait+p.RunDuration()+perf.TesterSlack)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tester.URL+"/test", bytes.NewReader(body))
	if err != nil {
		return perf.Result{}, fmt.Errorf("testers: request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	tester.authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return perf.Result{}, fmt.Errorf("testers: tester %s: %w", tester.URL, err)
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
		return perf.Result{}, fmt.Errorf("testers: tester %s: %s: %s", tester.URL, resp.Status, reply.Error)
	}
	var res perf.Result
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		return perf.Result{}, fmt.Errorf("testers: tester %s: decode result: %w", tester.URL, err)
	}
	return res, nil
}

// authorize sets req's "Authorization: Bearer <token>" header, when c has a token.
func (c Client) authorize(req *http.Request) {
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
}
