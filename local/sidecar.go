package local

import (
	"net/http"
	"os"
	"strconv"

	"github.com/daprperf/daprperf/perf"
)

// sidecarPorts are the TCP ports on 127.0.0.1 of one daprd.
type sidecarPorts struct {
	HTTP         int // --dapr-http-port: the HTTP API
	GRPC         int // --dapr-grpc-port: the gRPC API
	InternalGRPC int // --dapr-internal-grpc-port: daprd-to-daprd invocation
	Metrics      int // --metrics-port: Prometheus /metrics
	Profile      int // --profile-port: pprof, served with --enable-profiling
}

// allocSidecarPorts takes the five ports of a daprd, in the order of sidecarPorts' fields.
func allocSidecarPorts(ps *ports) (sidecarPorts, error) {
	var sp sidecarPorts
	for _, p := range []*int{&sp.HTTP, &sp.GRPC, &sp.InternalGRPC, &sp.Metrics, &sp.Profile} {
		port, err := ps.next()
		if err != nil {
			return sidecarPorts{}, err
		}
		*p = port
	}
	return sp, nil
}

// daprdArgs is the command line of a's daprd: every socket on loopback, its own ports, the
// Configuration at configPath and the (empty) resources folder, then Sidecar.ExtraArgs.
func daprdArgs(a perf.App, appPort int, sp sidecarPorts, configPath, resourcesDir string) []string {
	itoa := strconv.Itoa
	args := []string{
		"--app-id", a.Name,
		"--mode", "standalone",
		"--app-port", itoa(appPort),
		"--app-protocol", string(sidecarProtocol(a)),
		"--dapr-http-port", itoa(sp.HTTP),
		"--dapr-grpc-port", itoa(sp.GRPC),
		"--dapr-internal-grpc-port", itoa(sp.InternalGRPC),
		"--metrics-port", itoa(sp.Metrics),
		"--profile-port", itoa(sp.Profile),
		"--dapr-listen-addresses", "127.0.0.1",
		"--dapr-internal-grpc-listen-address", "127.0.0.1",
		"--metrics-listen-address", "127.0.0.1",
		"--config", configPath,
		"--resources-path", resourcesDir,
	}
	if a.Sidecar.DisableMetrics {
		args = append(args, "--enable-metrics=false")
	}
	if a.Sidecar.Profiling {
		args = append(args, "--enable-profiling")
	}
	return append(args, a.Sidecar.ExtraArgs...)
}

// daprdEnv is daprd's environment: the test's, with DAPR_HOST_IP on loopback.
func daprdEnv() []string {
	return append(os.Environ(), "DAPR_HOST_IP=127.0.0.1")
}

// sidecarCheck is the health check of a daprd: /v1.0/healthz answering 204, which needs
// its app to be up too.
func sidecarCheck(sp sidecarPorts) check {
	return httpCheck("http://127.0.0.1:"+strconv.Itoa(sp.HTTP)+"/v1.0/healthz", http.StatusNoContent)
}
