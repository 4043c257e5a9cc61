// Package pgdirs finds the PostgreSQL versions Debian installs side by side, each in a folder of
// its own under /usr/lib/postgresql (postgresql-<version>), for the local platform's PostgreSQL
// and for the image of the Kubernetes test cluster's.
package pgdirs

import (
	"os"
	"slices"
	"strconv"
	"strings"
)

// Root is where Debian's postgresql-<version> packages install, one folder per version.
const Root = "/usr/lib/postgresql"

// Versions lists the folders under root named by a version ("15", "9.6"), newest first by
// number; none when root is missing.
func Versions(root string) []string {
	entries, _ := os.ReadDir(root) // none: no version installed
	type install struct {
		version []int
		name    string
	}
	var installs []install
	for _, e := range entries {
		var v []int
		for _, part := range strings.Split(e.Name(), ".") {
			n, err := strconv.Atoi(part)
			if err != nil {
				v = nil
				break
			}
			v = append(v, n)
		}
		if v != nil {
			installs = append(installs, install{v, e.Name()})
		}
	}
	slices.SortFunc(installs, func(a, b install) int { return slices.Compare(b.version, a.version) })
	out := make([]string, len(installs))
	for i, in := range installs {
		out[i] = in.name
	}
	return out
}
