package perf

import (
	"context"
	"testing"
)

func TestLastLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\nc", 5, "a\nb\nc"},
		{"a\nb\nc\n", 1, "c"},
		{"a\nb\nc\n", 0, ""},
		{"", 3, ""},
	} {
		if got := LastLines([]byte(c.in), c.n); got != c.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestLogsDirTravelsInTheContext(t *testing.T) {
	if got := LogsDir(context.Background()); got != "" {
		t.Errorf("LogsDir of a bare context = %q, want \"\"", got)
	}
	if got := LogsDir(WithLogsDir(context.Background(), "/r/logs/x")); got != "/r/logs/x" {
		t.Errorf("LogsDir = %q, want /r/logs/x", got)
	}
}
