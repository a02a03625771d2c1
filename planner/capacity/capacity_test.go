package capacity

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// TestPoolCapacities: which nodes each pool has, its cards Ready or not,
// and what KAI divides (gpu, cpu, memory), from resource lists and from
// the older card fields.
func TestPoolCapacities(t *testing.T) {
	s := poolsState()
	caps := Pools(s)
	var got []string
	for _, pool := range []string{"default", "h100", "mig"} {
		pc := caps[pool]
		var names []string
		for _, n := range pc.Nodes {
			names = append(names, n.Name)
		}
		got = append(got, fmt.Sprintf("%s: %v cards %s divided gpu %v cpu %v memory %v; %s", pool, names, pc.Cards,
			pc.Divided.GPU, pc.Divided.CPU, pc.Divided.Memory, strings.Join(pc.Unsettled, "; ")))
	}
	want := []string{
		// old-1 carries the first h100 entry's pair: out of default, in no pool.
		"default: [cpu-1] cards 0 divided gpu 0 cpu 0 memory 0; ",
		"h100: [h-1 h-2 h-3] cards 24 divided gpu 16 cpu 223500 memory 2000000; node h-3 is under PIDPressure (8 cards)",
		// m-2 has its cards only: cpu and memory unknown.
		"mig: [m-1 m-2] cards 11 divided gpu 11 cpu <nil> memory <nil>; ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("capacities:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(caps) != 3 {
		t.Errorf("%d pools, want default, h100, mig", len(caps))
	}
	s.NotRead = []snapshot.NotRead{{What: snapshot.SourceNodes, Reason: "test"}}
	if caps := Pools(s); caps != nil {
		t.Errorf("nodes not read: %v, want nil", caps)
	}
}

// listNode is a Ready node of pool (label gpu=<pool>) with a resource list
// as its allocatable and capacity.
func listNode(name, pool string, alloc snapshot.ResourceList, pressure map[string]string) snapshot.Node {
	return snapshot.Node{Name: name, Labels: map[string]string{"gpu": pool}, Allocatable: alloc, Capacity: alloc, Ready: true, Pressure: pressure}
}

// poolsState is a state of three pools (one named twice) and nodes of
// every kind TestPoolCapacities counts.
func poolsState() *snapshot.State {
	s := &snapshot.State{Tenancy: tenancy.Tenancy{NodePools: []tenancy.NodePool{
		{Metadata: tenancy.Meta{Name: "default"}},
		{Metadata: tenancy.Meta{Name: "h100"}, Spec: tenancy.NodePoolSpec{LabelKey: "gpu", LabelValue: "old"}},
		{Metadata: tenancy.Meta{Name: "h100"}, Spec: tenancy.NodePoolSpec{LabelKey: "gpu", LabelValue: "h100"}}, // the last entry selects
		{Metadata: tenancy.Meta{Name: "mig"}, Spec: tenancy.NodePoolSpec{LabelKey: "gpu", LabelValue: "mig"}},
	}}}
	s.Nodes = []snapshot.Node{
		listNode("h-2", "h100", snapshot.ResourceList{"nvidia.com/gpu": "8", "cpu": "112", "memory": "1000G"}, nil),
		listNode("h-1", "h100", snapshot.ResourceList{"nvidia.com/gpu": "8", "cpu": "111500m", "memory": "1T"}, nil),
		listNode("h-3", "h100", snapshot.ResourceList{"nvidia.com/gpu": "8", "cpu": "112", "memory": "1000G"}, map[string]string{"PIDPressure": "True"}),
		listNode("m-1", "mig", snapshot.ResourceList{"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "7", "cpu": "64", "memory": "512G"}, nil),
		{Name: "m-2", Labels: map[string]string{"gpu": "mig"}, GPUCapacity: quota.FromInt(4), GPUAllocatable: quota.FromInt(4), Ready: true},
		listNode("old-1", "old", snapshot.ResourceList{"amd.com/gpu": "2", "cpu": "8", "memory": "64G"}, nil),
		{Name: "cpu-1", Allocatable: snapshot.ResourceList{"cpu": "32", "memory": "128Gi"}, Ready: true, Cordoned: true},
	}
	return s
}

// TestCounterCountsAsPools: a Counter, which reads each node once, counts
// every pool as Pools does: of the state it was made from (once for every
// state with those nodes and pools), of another with other pools, of a part of
// it with copies of some of its nodes (as the verification of the steps
// checks), and of a state whose nodes share a name (it then reads them as
// it counts). A quantity that does not parse still leaves its node out,
// named.
func TestCounterCountsAsPools(t *testing.T) {
	s := poolsState()
	s.Nodes = append(s.Nodes, listNode("bad-1", "h100", snapshot.ResourceList{"nvidia.com/gpu": "eight"}, nil))
	k := NewCounter(s)
	got := k.PoolsOf(s, nil)
	if want := Pools(s); !reflect.DeepEqual(got, want) {
		t.Errorf("Counter:\n%s\nPools:\n%s", dump(got), dump(want))
	}
	if u := got["h100"].Unsettled; !slices.Contains(u, `node bad-1 is not counted: allocatable nvidia.com/gpu "eight": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`) {
		t.Errorf("h100's unsettled nodes %q do not name bad-1", u)
	}
	// A state with the same nodes and pools (a plan's target) gets the same
	// capacities; one whose pools select otherwise is counted again.
	same := *s
	if again := k.PoolsOf(&same, map[string]bool{"mig": true}); reflect.ValueOf(again).Pointer() != reflect.ValueOf(got).Pointer() {
		t.Errorf("the same nodes and pools counted again")
	}
	moved := *s
	moved.NodePools = slices.Clone(s.NodePools)
	moved.NodePools[3].Spec.LabelValue = "old" // mig selects old-1
	if got, want := k.PoolsOf(&moved, nil), Pools(&moved); !reflect.DeepEqual(got, want) || dump(got) == dump(Pools(s)) {
		t.Errorf("Counter with pool mig moved:\n%s\nPools:\n%s", dump(got), dump(want))
	}
	part := *s
	part.Nodes = []snapshot.Node{s.Nodes[0], s.Nodes[3], s.Nodes[7]} // h-2, m-1, bad-1, copied
	only := map[string]bool{"h100": true}
	if got, want := k.PoolsOf(&part, only), PoolsOf(&part, only); !reflect.DeepEqual(got, want) || len(got["h100"].Nodes) != 2 {
		t.Errorf("Counter of a part:\n%s\nPools:\n%s", dump(got), dump(want))
	}
	twin := *s
	twin.Nodes = append(slices.Clone(s.Nodes), listNode("h-1", "mig", snapshot.ResourceList{"nvidia.com/gpu": "1"}, nil))
	if got, want := NewCounter(&twin).PoolsOf(&twin, nil), Pools(&twin); !reflect.DeepEqual(got, want) {
		t.Errorf("Counter with two nodes h-1:\n%s\nPools:\n%s", dump(got), dump(want))
	}
}

// TestCounterOfManyNodes: a Counter reads many nodes on every core and
// counts as Pools does (h100: 24 cards of h-1 to h-3, and 0, 3 or 6 on each
// of 256 more nodes, 765).
func TestCounterOfManyNodes(t *testing.T) {
	s := poolsState()
	for i := range 3 * minNodesPerWorker {
		alloc := snapshot.ResourceList{"nvidia.com/gpu": snapshot.Quantity(fmt.Sprint(i % 9)), "cpu": "8", "memory": "64G"}
		s.Nodes = append(s.Nodes, listNode(fmt.Sprintf("n-%04d", i), []string{"h100", "mig", "none"}[i%3], alloc, nil))
	}
	if got, want := NewCounter(s).PoolsOf(s, nil), Pools(s); !reflect.DeepEqual(got, want) || got["h100"].Cards.String() != "789" {
		t.Errorf("Counter:\n%s\nPools:\n%s", dump(got), dump(want))
	}
}

// dump is a count for a failure message: each pool's nodes and figures.
func dump(caps map[string]*Pool) string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(caps)) {
		pc := caps[name]
		var nodes []string
		for _, n := range pc.Nodes {
			nodes = append(nodes, n.Name)
		}
		out = append(out, fmt.Sprintf("%s: %v cards %s divided %v %v %v; %q", name, nodes, pc.Cards, pc.Divided.GPU, pc.Divided.CPU, pc.Divided.Memory, pc.Unsettled))
	}
	return strings.Join(out, "\n")
}
