package local

import (
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/daprperf/daprperf/perf"
)

// validate checks apps before anything starts: known kinds, valid and distinct names (also
// against sidecar names), and sidecar protocols that are http or grpc.
func validate(apps []perf.App) error {
	if len(apps) == 0 {
		return fmt.Errorf("no apps to start")
	}
	names := map[string]bool{}
	for _, a := range apps {
		if err := perf.ValidAppName(a.Name); err != nil {
			return err
		}
		if !a.Kind.Known() {
			return fmt.Errorf("app %s: unknown kind %q (want one of %v)", a.Name, a.Kind, perf.AppKinds())
		}
		if a.TesterLimits != nil {
			if a.Kind != perf.Tester {
				return fmt.Errorf("app %s: TesterLimits are for a %s, not a %s", a.Name, perf.Tester, a.Kind)
			}
			if err := a.TesterLimits.Validate(); err != nil {
				return fmt.Errorf("app %s: %w", a.Name, err)
			}
		}
		procs := []string{a.Name}
		if a.Sidecar != nil {
			procs = append(procs, perf.SidecarName(a.Name))
			if p := sidecarProtocol(a); p != perf.HTTP && p != perf.GRPC {
				return fmt.Errorf("app %s: sidecar app protocol %q (want %s or %s)", a.Name, p, perf.HTTP, perf.GRPC)
			}
		}
		for _, n := range procs {
			if names[n] {
				return fmt.Errorf("app %s: process name %s used twice", a.Name, n)
			}
			names[n] = true
		}
	}
	return nil
}

// sidecarProtocol is how a's daprd talks to a: the sidecar's AppProtocol, or else the
// protocol of a's kind.
func sidecarProtocol(a perf.App) perf.Protocol {
	if a.Sidecar != nil && a.Sidecar.AppProtocol != "" {
		return a.Sidecar.AppProtocol
	}
	return a.Kind.Protocol()
}

// appArgs is the command line of an app listening on port: -port, then a.Args.
func appArgs(a perf.App, port int) []string {
	return append([]string{"-port", strconv.Itoa(port)}, a.Args...)
}

// testerAllowList is what the tester da may load in the deployment apps: its own daprd's HTTP
// and gRPC ports (and those of its build-B twin in an A/B run), each other app's own port (a
// tester's excepted), all on 127.0.0.1, then more: the backends' addresses (host:port), which
// a direct-to-store phase loads with the store's own client (perf.Operation.Direct), and the
// delay proxies in front of its sidecars under DAPR_PERF_AB_DELAY (abdelay.go).
func testerAllowList(da *deployedApp, apps []*deployedApp, more ...string) []string {
	addr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	var allow []string
	if da.sidecar != nil {
		allow = append(allow, addr(da.sidecar.HTTP), addr(da.sidecar.GRPC))
	}
	if da.sidecarB != nil {
		allow = append(allow, addr(da.sidecarB.HTTP), addr(da.sidecarB.GRPC))
	}
	for _, o := range apps {
		if o != da && o.app.Kind != perf.Tester {
			allow = append(allow, addr(o.port))
		}
	}
	return append(allow, more...)
}

// launchArgs is the command line and environment of da's own process: appArgs, and for a
// tester its allow-list (testerAllowList, with more) and TesterLimits (perf.TesterArgs) with
// its token in the environment (perf.EnvTesterToken), where ps does not show it.
func launchArgs(da *deployedApp, apps []*deployedApp, more ...string) (args, env []string) {
	args, env = appArgs(da.app, da.port), os.Environ()
	if da.app.Kind != perf.Tester {
		return args, env
	}
	var limits perf.TesterLimits
	if da.app.TesterLimits != nil {
		limits = *da.app.TesterLimits
	}
	args = append(args, perf.TesterArgs(testerAllowList(da, apps, more...), limits)...)
	return args, append(env, perf.EnvTesterToken+"="+da.token)
}

// appCheck is the health check of an app on port: GET healthPath answering 200 for the HTTP
// kinds, the standard gRPC health service for grpcapp.
func appCheck(a perf.App, port int) check {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if a.Kind.Protocol() == perf.GRPC {
		return grpcHealthCheck(addr)
	}
	return httpCheck("http://"+addr+a.Kind.HealthPath(), http.StatusOK)
}
