package profile

import (
	"cmp"
	"slices"

	"github.com/google/pprof/profile"
)

// Node is one frame of a flame graph: a function reached along one path of calls from the
// root, the value of the samples at or under it (Value) and in it alone (Self), and its
// callees sorted by name, as flame graphs order them so that two graphs compare.
type Node struct {
	Function    string
	Value, Self int64
	Children    []*Node
}

// Tree is the call tree of p's samples at sample index i: the root ("all") holds the total,
// each sample's stack added from its outermost frame to its innermost (inlined frames
// included, each a frame of its own). Samples whose value is not positive are left out.
func Tree(p *profile.Profile, i int) *Node {
	root := &Node{Function: "all"}
	for _, s := range p.Sample {
		if i >= len(s.Value) || s.Value[i] <= 0 {
			continue
		}
		v := s.Value[i]
		n := root
		n.Value += v
		for li := len(s.Location) - 1; li >= 0; li-- {
			lines := s.Location[li].Line
			for ln := len(lines) - 1; ln >= 0; ln-- {
				name := "?"
				if lines[ln].Function != nil {
					name = lines[ln].Function.Name
				}
				n = n.child(name)
				n.Value += v
			}
		}
		n.Self += v
	}
	root.sort()
	return root
}

// child is n's callee named name, added when new.
func (n *Node) child(name string) *Node {
	for _, c := range n.Children {
		if c.Function == name {
			return c
		}
	}
	c := &Node{Function: name}
	n.Children = append(n.Children, c)
	return c
}

func (n *Node) sort() {
	slices.SortFunc(n.Children, func(a, b *Node) int { return cmp.Compare(a.Function, b.Function) })
	for _, c := range n.Children {
		c.sort()
	}
}
