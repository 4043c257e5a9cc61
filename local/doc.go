// Package local is the perf.Platform that runs every app of a scenario as a child process on
// loopback and, beside each app that has a sidecar, a real daprd.
//
// The easy case, in a test:
//
//	p, err := local.New()
//	if err != nil {
//		t.Fatal(err) // no daprd: run `make daprd` or set DAPR_PERF_DAPRD
//	}
//	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
//	defer cancel()
//	dep := p.Start(ctx, t, perf.App{Name: "callee", Kind: perf.HTTPApp,
//		Sidecar: &perf.Sidecar{AppProtocol: perf.HTTP}})
//	url, _ := dep.Endpoint("callee", perf.SidecarHTTP) // http://127.0.0.1:<port>
//
// Start returns once every app answers its own health check and every daprd answers
// /v1.0/healthz with 204; ctx bounds that wait only. The processes live until the test ends:
// t.Cleanup stops them (SIGTERM, then SIGKILL after 5 s) and removes the run directory that
// holds their logs and configuration, unless the test failed; then the directory is kept and
// its path is logged.
//
// daprd is found as Daprd describes; the apps are built once per test binary with
// `go build -o <repo root>/.bin/<kind> ./apps/<kind>/cmd/<kind>`.
//
// Name resolution needs no multicast: each daprd gets a Dapr Configuration whose
// spec.nameResolution uses the kubernetes resolver with a template that maps every app id of
// the deployment to 127.0.0.1:<its daprd's internal gRPC port>.
//
// The components a sidecar names (perf.Sidecar.Components) are written into the resources
// folder every daprd loads, and the backend each needs (Redis, PostgreSQL 15, RabbitMQ,
// Mosquitto, from Debian's packages) is started first, once per deployment, on free loopback
// ports with a data directory in the run directory (backends.go). Deployment.Backends reports
// each one's version and time to ready; a backend that ends during the run is in Exits under its
// process name ("redis", "postgresql", "rabbitmq", "rabbitmq-epmd", "mosquitto").
package local
