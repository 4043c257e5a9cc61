// Package startorder holds the order rules both platforms follow when they start a deployment's
// sidecars: which one must be up before any other is started.
package startorder

// MigratesFirst is the index in sidecars of the one that starts, and is ready, before any other
// is started: the first for which onPostgreSQL is true (its daprd loads a PostgreSQL component),
// when it is true of two or more; -1 otherwise. state.postgresql (components-contrib's
// pgmigrations, as built into daprd 1.17.5) creates its metadata table with CREATE TABLE IF NOT
// EXISTS before it takes its migration lock, and PostgreSQL can fail such statements run at once
// with "type ... already exists" (SQLSTATE 42710), which that code retries only for 23505:
// several daprd starting together on a new database then exit 1 at start (the actor scenarios'
// 6 to 15 sidecars did, locally and on Kubernetes). Once the first has made the tables, the
// others find them.
func MigratesFirst[S any](sidecars []S, onPostgreSQL func(S) bool) int {
	first, n := -1, 0
	for i, s := range sidecars {
		if onPostgreSQL(s) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n < 2 {
		return -1
	}
	return first
}
