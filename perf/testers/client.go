package testers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
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

// The load of one scenario can come from several testers, as Dapr's k6 tests spread theirs
// over runner pods (parallelism 3 in actor_double_activation, 5 in actor_id_scale): each
// tester, with its own daprd, runs its share of the rate and connections from one shared
// start, and the result merges their histograms exactly (MergeResults).

// StartLead is how far ahead of the calls a split load's shared StartAt is set: long enough
// for every tester to receive its request (on loopback about a millisecond; a port-forward on
// kubernetes adds a round trip or two), short enough not to shift the load against what a plan
// does around it (a fault window opened just before the load). A tester that gets its request
// late starts at once, and perf.Result.StartSpreadSeconds shows it. It is well within
// perf.MaxStartLead, the furthest ahead a tester accepts.
const StartLead = 250 * time.Millisecond

// NewGroup returns the client of the testers named in names (perf.Scenario.TesterNames) in
// dep: the first one's, with the others as its Replicas. Errors: no name, or an unknown
// endpoint or token.
func NewGroup(dep perf.Deployment, names []string) (Client, error) {
	if len(names) == 0 {
		return Client{}, errors.New("testers: no tester named")
	}
	first, err := NewClient(dep, names[0])
	if err != nil {
		return Client{}, err
	}
	for _, name := range names[1:] {
		c, err := NewClient(dep, name)
		if err != nil {
			return Client{}, err
		}
		first.Replicas = append(first.Replicas, c)
	}
	return first, nil
}

// runSplit is RunLoad for a tester with replicas: p split over all of them (perf.Params.Split),
// each share aimed at its tester's own daprd where p goes through the first one's (retarget),
// one shared StartAt StartLead from now, the calls made at once, and their results merged
// (MergeResults). Errors: the split, any tester's error (all of them, joined), or the merge.
func runSplit(ctx context.Context, tester Client, p perf.Params) (perf.Result, error) {
	first := tester
	first.Replicas = nil
	all := append([]Client{first}, tester.Replicas...)
	shares, err := p.Split(len(all))
	if err != nil {
		return perf.Result{}, err
	}
	for i := range shares {
		if shares[i].Target, err = retarget(p.Target, first, all[i]); err != nil {
			return perf.Result{}, err
		}
	}
	start := time.Now().Add(StartLead)
	results := make([]perf.Result, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, t := range all {
		shares[i].StartAt = start
		wg.Go(func() { results[i], errs[i] = RunLoad(ctx, t, shares[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return perf.Result{}, err
	}
	return MergeResults(p, results)
}

// retarget is target for tester to, when target was set for tester from: an address of from's
// own daprd (its HTTP base URL with any path, or its gRPC host:port) becomes the same address
// of to's daprd; any other target (an app, a store) is the same for every tester. Error: the
// target is from's daprd and to has none.
func retarget(target string, from, to Client) (string, error) {
	switch {
	case from.SidecarHTTP != "" && (target == from.SidecarHTTP || strings.HasPrefix(target, from.SidecarHTTP+"/")):
		if to.SidecarHTTP == "" {
			return "", fmt.Errorf("testers: tester %s has no daprd for the load aimed at %s", to.URL, target)
		}
		return to.SidecarHTTP + strings.TrimPrefix(target, from.SidecarHTTP), nil
	case from.SidecarGRPC != "" && target == from.SidecarGRPC:
		if to.SidecarGRPC == "" {
			return "", fmt.Errorf("testers: tester %s has no daprd for the load aimed at %s", to.URL, target)
		}
		return to.SidecarGRPC, nil
	}
	return target, nil
}
