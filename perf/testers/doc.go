// Package testers is the client of the tester app's HTTP API (apps/tester): a plan connects to
// a scenario's testers in a deployment, runs each load on them and watches their live progress.
//
//	tester, err := testers.NewGroup(dep, sc.TesterNames()) // one tester, or several sharing each load
//	res, err := testers.RunLoad(ctx, tester, p)            // POST /test: the load's perf.Result
//
// A group of several testers splits each load (perf.Params.Split), starts the shares at one
// shared instant and merges their results exactly (MergeResults). Watch polls a tester's
// GET /progress for the progress lines of a long phase.
//
// What the tester and the platforms that start it share (its flags and limits, its token,
// perf.TesterSlack, perf.LiveProgress) is vocabulary, in package perf.
package testers
