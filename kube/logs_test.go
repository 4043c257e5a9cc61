package kube

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestKeepLogsWritesEveryContainerAndTheRestartedOnesPrevious: every container that ran has its
// log in the kept folder, a restarted one also its previous log, whose last lines are returned;
// a container still waiting for its first start has none.
func TestKeepLogsWritesEveryContainerAndTheRestartedOnesPrevious(t *testing.T) {
	d, _ := fakeDeployment(t, siApps,
		pod("tester-1", "tester", []string{"tester", "daprd"},
			corev1.ContainerStatus{Name: "tester"},
			corev1.ContainerStatus{Name: "daprd", RestartCount: 1, LastTerminationState: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}}}),
		pod("testapp-1", "testapp", []string{"testapp", "daprd"},
			corev1.ContainerStatus{Name: "testapp"},
			corev1.ContainerStatus{Name: "daprd", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}),
	)
	dir := filepath.Join(t.TempDir(), "logs", "TestX")
	kept, err := d.KeepLogs(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Dir != dir {
		t.Errorf("folder %s: want %s, the one given", kept.Dir, dir)
	}
	entries, err := os.ReadDir(kept.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"tester-1_daprd.log", "tester-1_daprd.previous.log", "tester-1_tester.log", "testapp-1_testapp.log"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	b, err := os.ReadFile(filepath.Join(kept.Dir, "tester-1_daprd.previous.log"))
	if err != nil || len(b) == 0 {
		t.Errorf("the previous log is empty or unreadable (%v)", err)
	}
	if got := kept.Previous["tester-1/daprd"]; got != strings.TrimRight(string(b), "\n") {
		t.Errorf("Previous[tester-1/daprd] = %q, want the previous log's text %q", got, b)
	}
	if len(kept.Previous) != 1 {
		t.Errorf("Previous has %d containers, want only the restarted one: %v", len(kept.Previous), kept.Previous)
	}
}

// TestKeepLogsWithoutAFolderOnlyReturnsTheLastLines: given no folder (a deployment started
// outside a scenario run), KeepLogs writes no file and returns every log's last lines.
func TestKeepLogsWithoutAFolderOnlyReturnsTheLastLines(t *testing.T) {
	d, _ := fakeDeployment(t, siApps,
		pod("tester-1", "tester", []string{"tester", "daprd"},
			corev1.ContainerStatus{Name: "tester"},
			corev1.ContainerStatus{Name: "daprd", RestartCount: 1, LastTerminationState: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}}}),
	)
	kept, err := d.KeepLogs(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if kept.Dir != "" {
		t.Errorf("folder %q, want none", kept.Dir)
	}
	for _, c := range []string{"tester-1/tester", "tester-1/daprd"} {
		if _, ok := kept.Current[c]; !ok {
			t.Errorf("Current has no %s: %v", c, kept.Current)
		}
	}
	if _, ok := kept.Previous["tester-1/daprd"]; !ok {
		t.Errorf("Previous has no tester-1/daprd: %v", kept.Previous)
	}
}
