package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	pprofile "github.com/google/pprof/profile"

	"github.com/daprperf/daprperf/perf"
	"github.com/daprperf/daprperf/perf/profile"
)

// profileFinish bounds the end of a run's profiles: the last CPU window, then the heap and
// goroutine reads of every sidecar.
const profileFinish = time.Minute

// Profile reads the profiles of dep's sidecars during the load what, planned to last d (see
// perf.Session.Profile): every process "<app>-daprd" whose app has a profiling endpoint, each
// during its first measured load only (an A/B run's two builds each in their first round).
func (s *session) Profile(dep perf.Deployment, what string, d time.Duration) (stop func()) {
	if !perf.ProfilesFromEnv(s.cfg.Env) {
		return func() {}
	}
	roles := s.sc.Roles()
	var caps []*profile.Capture
	var procs []string
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.profiled == nil {
		s.profiled = map[string]bool{}
	}
	for _, p := range dep.Processes() {
		app, ok := strings.CutSuffix(p, "-daprd")
		if !ok {
			continue
		}
		base, err := dep.Endpoint(app, perf.SidecarProfile)
		if err != nil || s.profiled[base] {
			continue // no profiling port (started without it), or profiled already
		}
		s.profiled[base] = true
		caps = append(caps, profile.Start(s.t.Context(), base, d, perf.SidecarProfiles{Process: p, Role: roles[p], During: what}))
		procs = append(procs, p)
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
// of rep's A/B run and their files under dir (the result file's folder): CPU and allocation,
// for every role profiled in both builds. A profile that cannot be read is a warning.
func abProfileDiffs(rep *perf.Report, dir string) (diffs []perf.ProfileDiff, warnings []string) {
	byRole := map[string]map[string]perf.SidecarProfiles{} // role -> build -> profiles
	for _, p := range rep.Profiles {
		build := "A"
		if i := strings.LastIndex(p.During, perf.OfBuild); i >= 0 {
			build = p.During[i+len(perf.OfBuild):]
		}
		if byRole[p.Role] == nil {
			byRole[p.Role] = map[string]perf.SidecarProfiles{}
		}
		byRole[p.Role][build] = p
	}
	load := func(p perf.SidecarProfiles, kind string) *pprofile.Profile {
		f, ok := p.Files[kind]
		if !ok {
			return nil
		}
		pr, err := profile.Load(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			warnings = append(warnings, "profile diff: "+err.Error())
			return nil
		}
		return pr
	}
	for _, role := range sortedKeys(byRole) {
		a, okA := byRole[role]["A"]
		b, okB := byRole[role]["B"]
		if !okA || !okB {
			continue
		}
		if ca, cb := load(a, "cpu"), load(b, "cpu"); ca != nil && cb != nil {
			na, nb := profile.CPUSamples(ca), profile.CPUSamples(cb)
			if fs, err := profile.ShareDiff(ca, cb, "cpu", na, nb, perf.ProfileTop); err == nil {
				diffs = append(diffs, perf.ProfileDiff{Role: role, Kind: "cpu", Functions: fs, SamplesA: na, SamplesB: nb})
			} else {
				warnings = append(warnings, "profile diff: "+role+": "+err.Error())
			}
		}
		sa, ea, sb, eb := load(a, "heap-start"), load(a, "heap-end"), load(b, "heap-start"), load(b, "heap-end")
		if sa == nil || ea == nil || sb == nil || eb == nil {
			continue
		}
		da, errA := profile.Diff(sa, ea)
		db, errB := profile.Diff(sb, eb)
		if err := errors.Join(errA, errB); err != nil {
			warnings = append(warnings, "profile diff: "+role+": "+err.Error())
			continue
		}
		na, nb := profile.AllocSamples(da), profile.AllocSamples(db)
		if fs, err := profile.ShareDiff(da, db, "alloc_space", na, nb, perf.ProfileTop); err == nil {
			diffs = append(diffs, perf.ProfileDiff{Role: role, Kind: "alloc", Functions: fs, SamplesA: na, SamplesB: nb})
		} else {
			warnings = append(warnings, "profile diff: "+role+": "+err.Error())
		}
	}
	return diffs, warnings
}

// sortedKeys is m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
