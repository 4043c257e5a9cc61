package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/daprperf/daprperf/perf"
)

// Node labels that reserve nodes for one side of a run, as Istio's benchmark keeps its load
// client and the server it loads on different nodes: the client's CPU use then does not
// compete with the server's, and every request crosses the network between two nodes, as in a
// real deployment. kube/node labels its nodes so; on another cluster an operator sets them
// (kubectl label node <name> daprperf.io/role=load).
const (
	NodeRoleLabel  = "daprperf.io/role"
	NodeRoleLoad   = "load"   // the testers' nodes
	NodeRoleTarget = "target" // the nodes of the apps the testers load
)

// Role is the side of a run an app's pods are on, for placement.
type Role string

const (
	RoleTester Role = "tester" // a perf.Tester app: the load generator
	RoleTarget Role = "target" // every other app: what the testers load
)

// RoleOf is the role of an app of kind k.
func RoleOf(k perf.AppKind) Role {
	if k == perf.Tester {
		return RoleTester
	}
	return RoleTarget
}

// Placement is where the pods of one role may run.
type Placement struct {
	// NodeSelector keeps the pods on nodes with all these labels; nil means any node.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Apart names the roles whose pods of the same run these must not share a node with (pod
	// anti-affinity on HostnameTopology).
	Apart []Role `json:"apart,omitempty"`
	// Together names the roles whose pods of the same run these must share a node with (pod
	// affinity on HostnameTopology).
	Together []Role `json:"together,omitempty"`
	// Required makes Apart and Together rules the scheduler must keep: a pod no node fits
	// stays Pending and the run's rollout times out saying so. Otherwise they are preferences
	// it weighs, and a pod still runs where they cannot be met.
	Required bool `json:"required,omitempty"`
}

// Placements gives each role's Placement; a role missing from it may run on any node.
type Placements map[Role]Placement

// LabelledPlacements puts the testers on nodes labelled NodeRoleLoad and the other apps on
// nodes labelled NodeRoleTarget: hard, as a cluster set up for perf runs asks.
func LabelledPlacements() Placements {
	return Placements{
		RoleTester: {NodeSelector: map[string]string{NodeRoleLabel: NodeRoleLoad}},
		RoleTarget: {NodeSelector: map[string]string{NodeRoleLabel: NodeRoleTarget}},
	}
}

// SpreadPlacements prefers the testers on other nodes than the apps they load, without
// requiring it: a cluster nobody labelled may have no room for that.
func SpreadPlacements() Placements { return Placements{RoleTester: {Apart: []Role{RoleTarget}}} }

// ChoosePlacements picks the placements for a run on the cluster cs reaches, and says why:
// LabelledPlacements when a schedulable node is labelled NodeRoleLoad and another
// NodeRoleTarget; SpreadPlacements when two or more nodes are schedulable; none on one node,
// where every pod shares it anyway. A cluster whose nodes this user may not list (RBAC) gets
// none too. Labels are the only hard rule, so a user's cluster without them runs as before.
func ChoosePlacements(ctx context.Context, cs kubernetes.Interface) (Placements, string) {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Sprintf("none: the nodes cannot be listed (%v)", err)
	}
	return choosePlacements(nodes.Items)
}

func choosePlacements(nodes []corev1.Node) (Placements, string) {
	var schedulable int
	roles := map[string]bool{}
	for _, n := range nodes {
		if !Schedulable(n) {
			continue
		}
		schedulable++
		roles[n.Labels[NodeRoleLabel]] = true
	}
	switch {
	case roles[NodeRoleLoad] && roles[NodeRoleTarget]:
		return LabelledPlacements(), fmt.Sprintf("testers on the nodes labelled %s=%s, the other apps on %s=%s", NodeRoleLabel, NodeRoleLoad, NodeRoleLabel, NodeRoleTarget)
	case schedulable >= 2:
		return SpreadPlacements(), fmt.Sprintf("%d schedulable nodes, none labelled %s: the testers preferably on other nodes than the apps they load", schedulable, NodeRoleLabel)
	default:
		return nil, fmt.Sprintf("none: %d schedulable node(s)", schedulable)
	}
}

// Schedulable says whether pods without tolerations may be scheduled on n: it is not cordoned
// and has no NoSchedule or NoExecute taint.
func Schedulable(n corev1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return false
		}
	}
	return true
}

// podAffinity is pl's pod (anti-)affinity: one term per role of Apart and Together, selecting
// the run's pods of that role (LabelKind, within the pod's namespace) on HostnameTopology;
// nil when pl has neither.
func podAffinity(pl Placement) *corev1.Affinity {
	if len(pl.Apart) == 0 && len(pl.Together) == 0 {
		return nil
	}
	terms := func(roles []Role) (req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) {
		for _, r := range roles {
			term := corev1.PodAffinityTerm{LabelSelector: roleSelector(r), TopologyKey: HostnameTopology}
			if pl.Required {
				req = append(req, term)
			} else {
				pref = append(pref, corev1.WeightedPodAffinityTerm{Weight: 100, PodAffinityTerm: term})
			}
		}
		return req, pref
	}
	aff := &corev1.Affinity{}
	if len(pl.Together) > 0 {
		req, pref := terms(pl.Together)
		aff.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: req, PreferredDuringSchedulingIgnoredDuringExecution: pref}
	}
	if len(pl.Apart) > 0 {
		req, pref := terms(pl.Apart)
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: req, PreferredDuringSchedulingIgnoredDuringExecution: pref}
	}
	return aff
}

// roleSelector selects the pods of role r by their LabelKind: the testers', or every other.
func roleSelector(r Role) *metav1.LabelSelector {
	op := metav1.LabelSelectorOpIn
	if r != RoleTester {
		op = metav1.LabelSelectorOpNotIn
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: LabelKind, Operator: op, Values: []string{string(perf.Tester)}},
	}}
}

// mergeSelectors is every label of a and b in one selector (b's value wins on a shared key);
// nil when both are empty.
func mergeSelectors(a, b map[string]string) map[string]string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}

// String reads like "tester: nodes daprperf.io/role=load; target: nodes daprperf.io/role=target"
// or "tester: apart from target (preferred)"; "none" when empty.
func (ps Placements) String() string {
	if len(ps) == 0 {
		return "none"
	}
	var out string
	for _, r := range slices.Sorted(maps.Keys(ps)) {
		pl := ps[r]
		if out != "" {
			out += "; "
		}
		out += string(r) + ":"
		for _, k := range slices.Sorted(maps.Keys(pl.NodeSelector)) {
			out += " nodes " + k + "=" + pl.NodeSelector[k]
		}
		how := " (preferred)"
		if pl.Required {
			how = " (required)"
		}
		if len(pl.Apart) > 0 {
			out += fmt.Sprintf(" apart from %v%s", pl.Apart, how)
		}
		if len(pl.Together) > 0 {
			out += fmt.Sprintf(" together with %v%s", pl.Together, how)
		}
	}
	return out
}
