package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/profile"
)

// profileFinish bounds the end of a run's profiles: the last CPU window, then the heap and
// goroutine reads of every sidecar.
const profileFinish = time.Minute

// Profile reads the profiles of dep's sidecars during the load what, planned to last d (see
// perf.Session.Profile): every process "<app>-daprd" whose app has a profiling endpoint, each
// during its first measured load only (an A/B run's two builds each in their first round);
// under perf.ProfilesBEveryRound, build B's in every round and build A's never.
func (s *session) Profile(dep perf.Deployment, what string, d time.Duration) (stop func()) {
	if !perf.ProfilesFromEnv(s.cfg.Env) {
		return func() {}
	}
	everyB := *s.cfg.Env.Profiles == perf.ProfilesBEveryRound
	if everyB && !strings.HasSuffix(what, perf.OfBuild+"B") {
		return func() {} // build A is the unprofiled side
	}
	var procs, bases []string
	s.mu.Lock()
	if s.profiled == nil {
		s.profiled = map[string]bool{}
	}
	for _, p := range dep.Processes() {
		app, ok := strings.CutSuffix(p, "-daprd")
		if !ok {
			continue
		}
		base, err := dep.Endpoint(app, perf.SidecarProfile)
		if err != nil || (s.profiled[base] && !everyB) {
			continue // no profiling port (started without it), or profiled already
		}
		s.profiled[base] = true
		procs, bases = append(procs, p), append(bases, base)
	}
	s.mu.Unlock()
	roles := s.sc.Roles()
	caps := make([]*profile.Capture, len(procs))
	for i, p := range procs { // each reads a heap profile: outside the lock
		caps[i] = profile.Start(s.t.Context(), bases[i], d, perf.SidecarProfiles{Process: p, Role: roles[p], During: what})
	}
	if len(caps) == 0 {
		return func() {}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), profileFinish)
		defer cancel()
		dir := profilesDir(s.rf.Path(), s.t.Name())
		for i, c := range caps {
			p := c.Finish(ctx, dir, filepath.Dir(s.rf.Path()), procs[i])
			s.rep.Profiles = append(s.rep.Profiles, p)
			s.t.Logf("profiles: %s during %s: %s", p.Process, what, profileLine(p))
		}
	}
}

// profileLine is one sidecar's profiles in a line, for the test's log.
func profileLine(p perf.SidecarProfiles) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%.2f s of CPU in a %.0f s window", p.CPUSampleSeconds, p.CPUWindowSeconds)
	if len(p.TopCPU) > 0 {
		fmt.Fprintf(&b, ", most in %s (%.1f %% flat)", p.TopCPU[0].Function, 100*p.TopCPU[0].Flat)
	}
	fmt.Fprintf(&b, "; %.1f MiB allocated, heap in use %+.1f MiB; %d goroutines", float64(p.AllocBytes)/(1<<20), float64(p.InUseGrowthBytes)/(1<<20), p.Goroutines)
	if len(p.Errors) > 0 {
		fmt.Fprintf(&b, "; not read: %s", strings.Join(p.Errors, "; "))
	}
	return b.String()
}

// abProfileDiffs is each role's profile difference, build B against build A, from the profiles
// of rep's A/B run and their files under dir (the result file's folder), as profile.RoleDiffs.
func abProfileDiffs(rep *perf.Report, dir string) ([]perf.ProfileDiff, []string) {
	var a, b []perf.SidecarProfiles
	for _, p := range rep.Profiles {
		if strings.HasSuffix(p.During, perf.OfBuild+"B") {
			b = append(b, p)
		} else {
			a = append(a, p)
		}
	}
	return profile.RoleDiffs(a, b, dir, dir)
}
