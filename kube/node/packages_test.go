//go:build kubenode

package node_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daprperf/daprperf/kube/node"
	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/report"
	"github.com/daprperf/daprperf/perf/runner"
)

// packageRun is one scenario package run on the cluster: its folder under tests/, the -run
// pattern (empty: every test of the package) and the variables it runs with beyond perfRun's.
type packageRun struct {
	pkg string
	run string
	env []string
}

// smokeEnv is what every package run adds to perfRun's settings, as .ci/run's smoke does on the
// local platform: short idle windows and growth idles, so a package's run stays short.
var smokeEnv = []string{"DAPR_PERF_IDLE_WINDOW=2s", "DAPR_PERF_GROWTH_IDLE=10s"}

// bulkEnv are the bulk-publish packages' settings, .ci/run's: up to 100 publishes per request
// in the baseline, so 8 requests/s (or 8 VUs), 8 connections, and a rate bound of 0.9.
var bulkEnv = []string{"DAPR_PERF_QPS=8", "DAPR_PERF_CONNECTIONS=8", "DAPR_PERF_MIN_QPS_RATIO=0.9"}

// kindRuns are one package of each plan kind that the other subtests of TestNode do not run
// (service invocation and memory growth have theirs): DAPR_PERF_KUBE_PACKAGES=kinds, make
// test-kube's and so CI's, so that no plan kind can break on the cluster unseen.
var kindRuns = []packageRun{
	{pkg: "actor_activation", run: "TestActorActivate/^actor_activation$"},                       // overhead: placement, PostgreSQL actor state
	{pkg: "pubsub_publish_http", run: "TestPubsubPublishHttpPerformance/^pubsub_publish_redis$"}, // stages
	{pkg: "workflows", run: "^TestWorkflowWithConstantVUs$"},                                     // iterations: scheduler, PostgreSQL
	{pkg: "configuration_subscribe_http"},                                                        // delivery: the tester writes to Redis
	{pkg: "jobs", run: "^TestJobTriggerPerformance$"},                                            // jobs: the scheduler
	{pkg: "actor_reminder", run: "^TestActorReminderTriggerPerformance$"},                        // reminders
	{pkg: "actor_double_activation"},                                                             // faults: 3 tester pods, 3 hosts
	{pkg: "service_invocation_curve", run: "TestServiceInvocationCostCurve/^http$", env: []string{"DAPR_PERF_REPEATS=2", "DAPR_PERF_CURVE_P99=1s"}}, // curve: rates capped by the smoke's rate, a loose bound
}

// kindsElsewhere are the plan kinds TestNode's other subtests cover.
var kindsElsewhere = []string{perf.KindGrowth}

// packageRuns are the runs DAPR_PERF_KUBE_PACKAGES selects: "kinds" (or unset) kindRuns;
// "all" every perf package under tests/ whole; else the named packages whole. An unknown name
// is an error naming the variable. byKind says the selection is kindRuns.
func packageRuns(root string) (runs []packageRun, byKind bool, err error) {
	env, err := runner.LoadEnv()
	if err != nil {
		return nil, false, err
	}
	sel := strings.TrimSpace(perf.Val(env.KubePackages))
	if sel == "" || sel == "kinds" {
		return kindRuns, true, nil
	}
	all, err := report.ScenarioPackages(filepath.Join(root, "tests"))
	if err != nil {
		return nil, false, err
	}
	names := all
	if sel != "all" {
		names = nil
		for _, n := range strings.Split(sel, ",") {
			n = strings.TrimSpace(n)
			if !slices.Contains(all, n) {
				return nil, false, fmt.Errorf("DAPR_PERF_KUBE_PACKAGES=%q: %q is no perf package under tests/ (want kinds, all, or names of %s)", sel, n, strings.Join(all, ", "))
			}
			names = append(names, n)
		}
	}
	for _, n := range names {
		r := packageRun{pkg: n}
		if strings.HasPrefix(n, "pubsub_bulk_publish_") {
			r.env = bulkEnv
		}
		runs = append(runs, r)
	}
	return runs, false, nil
}

// testPackages runs the packages DAPR_PERF_KUBE_PACKAGES selects on the cluster, with every
// backend in the cluster (BackendsUp) named by its variable, one package at a time, each under
// the run id <run id>-<package>. Each package must exit 0 through scripts/perf.sh and write result files that are
// complete for their plan kind (report.Check), valid, and of platform kubernetes; with the kinds
// selection the files must cover every plan kind that no other subtest covers.
func testPackages(t *testing.T, c *node.Cluster) {
	wd, _ := os.Getwd()
	root, err := perf.RepoRootFrom(wd)
	if err != nil {
		t.Fatal(err)
	}
	runs, byKind, err := packageRuns(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.BackendsUp(ctx, 150*time.Second); err != nil {
		t.Fatal(err)
	}
	env := append(slices.Clone(smokeEnv), backendEnv()...)
	kinds := map[string]bool{}
	for _, r := range runs {
		// A run id per package: perf.sh's exit code is the worst outcome of its run folder.
		id := runID + "-" + r.pkg
		dir := perf.RunDir(reportDir(t, root), id)
		t.Run(r.pkg, func(t *testing.T) {
			args := []string{"./tests/" + r.pkg}
			if r.run != "" {
				args = append([]string{"-run", r.run}, args...)
			}
			t0 := time.Now()
			code := perfRun(t, c, id, nil, append(slices.Clone(env), r.env...), args...)
			reps := packageReports(t, dir, r.pkg)
			if len(reps) == 0 {
				t.Fatalf("no result file from %s in %s", r.pkg, dir)
			}
			for _, rep := range reps {
				kind := report.KindOf(rep).Name()
				kinds[kind] = true
				t.Logf("%s/%s: %s plan, pass=%t, valid=%t", rep.Test, rep.Transport, kind, rep.Pass, rep.Validity.Valid)
				if lacks := report.Check(rep, id); len(lacks) > 0 {
					t.Errorf("%s/%s lacks: %s", rep.Test, rep.Transport, strings.Join(lacks, "; "))
				}
				if rep.Environment.Platform != "kubernetes" || !rep.Validity.Valid {
					t.Errorf("%s/%s: platform %q, valid %t: want kubernetes and valid", rep.Test, rep.Transport, rep.Environment.Platform, rep.Validity.Valid)
				}
				for _, v := range rep.Verdicts {
					if !v.Pass {
						t.Logf("%s/%s: verdict %s missed (got %g)", rep.Test, rep.Transport, v.Figure, v.Got)
					}
				}
			}
			if code != 0 {
				t.Errorf("perf.sh on %s exited %d (%s), want 0", r.pkg, code, perf.Outcome(code))
			}
			t.Logf("%s: %d result file(s) in %.0f s", r.pkg, len(reps), time.Since(t0).Seconds())
		})
	}
	if byKind {
		for _, k := range report.Kinds() {
			if !kinds[k] && !slices.Contains(kindsElsewhere, k) {
				t.Errorf("plan kind %s: no package run on the cluster wrote a result of it", k)
			}
		}
	}
}

// packageReports reads the result files under dir that package pkg wrote (its command ran in
// tests/<pkg>).
func packageReports(t *testing.T, dir, pkg string) []*perf.Report {
	t.Helper()
	var out []*perf.Report
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() != "result.json" {
			return err
		}
		rep, err := report.ReadReport(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if rep.Command != nil && filepath.Base(rep.Command.Dir) == pkg {
			out = append(out, rep)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// backendEnv names BackendsUp's backends in the variables the kube platform reads them from.
func backendEnv() []string {
	return []string{
		"DAPR_PERF_REDIS_ADDR=" + node.RedisAddr(),
		"DAPR_PERF_POSTGRESQL_ADDR=" + node.PostgreSQLAddr(),
		"DAPR_PERF_MQTT_ADDR=" + node.MQTTAddr(),
		"DAPR_PERF_RABBITMQ_ADDR=" + node.RabbitMQAddr(),
		"DAPR_PERF_RABBITMQ_USERNAME=" + node.RabbitMQUser,
		"DAPR_PERF_RABBITMQ_PASSWORD=" + node.RabbitMQPassword,
	}
}
