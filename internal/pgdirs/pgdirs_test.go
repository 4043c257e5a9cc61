package pgdirs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Versions orders by number, not by text, and leaves out folders that are not versions.
func TestVersionsNewestFirst(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"9.6", "15", "13", "common", "16.1"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := Versions(root), []string{"16.1", "15", "13", "9.6"}; !slices.Equal(got, want) {
		t.Errorf("Versions = %q, want %q", got, want)
	}
	if got := Versions(filepath.Join(root, "missing")); len(got) != 0 {
		t.Errorf("Versions of a missing folder = %q, want none", got)
	}
}
