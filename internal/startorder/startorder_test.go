package startorder

import "testing"

// TestMigratesFirst: the first sidecar on PostgreSQL starts alone first only when two or more
// are on PostgreSQL; one on it, or none, starts with the others.
func TestMigratesFirst(t *testing.T) {
	for _, c := range []struct {
		name string
		pg   []bool // each sidecar: on PostgreSQL
		want int
	}{
		{"none", []bool{false, false}, -1},
		{"no sidecar", nil, -1},
		{"one on PostgreSQL", []bool{false, true}, -1},
		{"two on PostgreSQL", []bool{false, true, true}, 1},
		{"all on PostgreSQL", []bool{true, true, true, true}, 0},
		{"the others between", []bool{false, true, false, false, true}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MigratesFirst(c.pg, func(pg bool) bool { return pg }); got != c.want {
				t.Errorf("MigratesFirst(%v) = %d, want %d", c.pg, got, c.want)
			}
		})
	}
}
