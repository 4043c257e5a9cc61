package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daprperf/daprperf/perf"
)

func testNode(name string, labels map[string]string, taints ...corev1.Taint) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
}

// TestChoosePlacements: labels win and are hard; two schedulable nodes without them give a
// preferred anti-affinity; one node, or labels only on unschedulable nodes, give none.
func TestChoosePlacements(t *testing.T) {
	load := map[string]string{NodeRoleLabel: NodeRoleLoad}
	target := map[string]string{NodeRoleLabel: NodeRoleTarget}
	noSchedule := corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}
	cases := []struct {
		name  string
		nodes []corev1.Node
		want  string
	}{
		{"labelled", []corev1.Node{testNode("a", load), testNode("b", target)}, "target: nodes daprperf.io/role=target; tester: nodes daprperf.io/role=load"},
		{"two unlabelled", []corev1.Node{testNode("a", nil), testNode("b", nil)}, "tester: apart from [target] (preferred)"},
		{"one node", []corev1.Node{testNode("a", nil)}, "none"},
		{"no nodes", nil, "none"},
		{"load node tainted", []corev1.Node{testNode("a", load, noSchedule), testNode("b", target)}, "none"},
		{"one label only", []corev1.Node{testNode("a", load), testNode("b", nil), testNode("c", nil)}, "tester: apart from [target] (preferred)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, why := choosePlacements(tc.nodes)
			if got.String() != tc.want {
				t.Errorf("placements %q (%s), want %q", got, why, tc.want)
			}
		})
	}
}

// TestDeploymentPlacement: a role's Placement becomes the pod's node selector (merged with the
// pool's) and pod anti-affinity selecting the other role's pods by kind on one node.
func TestDeploymentPlacement(t *testing.T) {
	apps := []perf.App{{Name: "tester", Kind: perf.Tester}, {Name: "testapp", Kind: perf.HTTPApp}}
	descs, err := Describe(testImages, "daprperf-abcde", apps...)
	if err != nil {
		t.Fatal(err)
	}
	tester, target := descs[0], descs[1]
	pool := map[string]string{"pool": "perf"}
	tester.NodeSelector, target.NodeSelector = pool, pool
	tester.Placement = Placement{NodeSelector: map[string]string{NodeRoleLabel: NodeRoleLoad}, Apart: []Role{RoleOf(target.Kind)}, Required: true}
	target.Placement = SpreadPlacements()[RoleTarget] // none
	ts := DeploymentObject("ns", tester).Spec.Template.Spec
	if ts.NodeSelector["pool"] != "perf" || ts.NodeSelector[NodeRoleLabel] != NodeRoleLoad || len(ts.NodeSelector) != 2 {
		t.Errorf("tester node selector %v, want pool=perf and %s=%s", ts.NodeSelector, NodeRoleLabel, NodeRoleLoad)
	}
	if ts.Affinity == nil || ts.Affinity.PodAffinity != nil || ts.Affinity.PodAntiAffinity == nil {
		t.Fatalf("tester affinity %+v, want only a pod anti-affinity", ts.Affinity)
	}
	terms := ts.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(terms) != 1 || len(ts.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 0 {
		t.Fatalf("tester anti-affinity %+v, want one required term", ts.Affinity.PodAntiAffinity)
	}
	sel := terms[0].LabelSelector.MatchExpressions
	if terms[0].TopologyKey != HostnameTopology || len(sel) != 1 || sel[0].Key != LabelKind ||
		sel[0].Operator != metav1.LabelSelectorOpNotIn || strings.Join(sel[0].Values, ",") != "tester" {
		t.Errorf("tester anti-affinity term %+v, want kind NotIn [tester] on %s", terms[0], HostnameTopology)
	}
	as := DeploymentObject("ns", target).Spec.Template.Spec
	if as.Affinity != nil || len(as.NodeSelector) != 1 || as.NodeSelector["pool"] != "perf" {
		t.Errorf("target affinity %+v, node selector %v; want none and the pool's", as.Affinity, as.NodeSelector)
	}
	// Preferred: the same term, weighted.
	tester.Placement.Required = false
	pref := DeploymentObject("ns", tester).Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	if len(pref) != 1 || pref[0].Weight != 100 || pref[0].PodAffinityTerm.TopologyKey != HostnameTopology {
		t.Errorf("preferred anti-affinity %+v, want one term of weight 100", pref)
	}
}

// TestPlacementsFromEnv: each value of EnvPlacement gives its placements, auto (or unset) none
// fixed, and a bad value an error naming the variable.
func TestPlacementsFromEnv(t *testing.T) {
	for _, tc := range []struct {
		val, want string
		auto      bool
	}{
		{"", "none", true},
		{"auto", "none", true},
		{"labels", LabelledPlacements().String(), false},
		{"spread", "tester: apart from [target] (preferred)", false},
		{"none", "none", false},
	} {
		t.Setenv(EnvPlacement, tc.val)
		got, err := fromEnv(placementsFromEnv)
		if err != nil || got.String() != tc.want || (got == nil) != tc.auto {
			t.Errorf("%s=%q: %q (nil %v), %v; want %q (nil %v)", EnvPlacement, tc.val, got, got == nil, err, tc.want, tc.auto)
		}
	}
	t.Setenv(EnvPlacement, "apart")
	if _, err := fromEnv(placementsFromEnv); err == nil || !strings.Contains(err.Error(), `DAPR_PERF_KUBE_PLACEMENT="apart"`) {
		t.Errorf("a bad value: %v, want an error naming %s", err, EnvPlacement)
	}
}
