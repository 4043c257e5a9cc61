package profile

import (
	"errors"
	"path/filepath"

	"github.com/google/pprof/profile"

	"github.com/daprperf/daprperf/perf"
)

// RoleDiffs is, for each role with profiles in both a and b (the first of each side), how b's
// daprd spent its CPU and its allocations differently from a's: ShareDiff of their CPU
// profiles, and of their allocations during the load (heap end minus start), read from the
// files each names under dirA and dirB (the folders of their result files), in a's role
// order. A profile that cannot be read is a warning and leaves its diff out.
func RoleDiffs(a, b []perf.SidecarProfiles, dirA, dirB string) (diffs []perf.ProfileDiff, warnings []string) {
	first := func(ps []perf.SidecarProfiles, role string) (perf.SidecarProfiles, bool) {
		for _, p := range ps {
			if p.Role == role {
				return p, true
			}
		}
		return perf.SidecarProfiles{}, false
	}
	load := func(p perf.SidecarProfiles, dir, kind string) *profile.Profile {
		f, ok := p.Files[kind]
		if !ok {
			return nil
		}
		pr, err := Load(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			warnings = append(warnings, "profile diff: "+err.Error())
			return nil
		}
		return pr
	}
	seen := map[string]bool{}
	for _, pa := range a {
		role := pa.Role
		if seen[role] {
			continue
		}
		seen[role] = true
		pb, ok := first(b, role)
		if !ok {
			continue
		}
		if ca, cb := load(pa, dirA, "cpu"), load(pb, dirB, "cpu"); ca != nil && cb != nil {
			na, nb := CPUSamples(ca), CPUSamples(cb)
			if fs, err := ShareDiff(ca, cb, "cpu", na, nb, perf.ProfileTop); err == nil {
				diffs = append(diffs, perf.ProfileDiff{Role: role, Kind: "cpu", Functions: fs, SamplesA: na, SamplesB: nb})
			} else {
				warnings = append(warnings, "profile diff: "+role+": "+err.Error())
			}
		}
		sa, ea := load(pa, dirA, "heap-start"), load(pa, dirA, "heap-end")
		sb, eb := load(pb, dirB, "heap-start"), load(pb, dirB, "heap-end")
		if sa == nil || ea == nil || sb == nil || eb == nil {
			continue
		}
		da, errA := Diff(sa, ea)
		db, errB := Diff(sb, eb)
		if err := errors.Join(errA, errB); err != nil {
			warnings = append(warnings, "profile diff: "+role+": "+err.Error())
			continue
		}
		na, nb := AllocSamples(da), AllocSamples(db)
		if fs, err := ShareDiff(da, db, "alloc_space", na, nb, perf.ProfileTop); err == nil {
			diffs = append(diffs, perf.ProfileDiff{Role: role, Kind: "alloc", Functions: fs, SamplesA: na, SamplesB: nb})
		} else {
			warnings = append(warnings, "profile diff: "+role+": "+err.Error())
		}
	}
	return diffs, warnings
}
