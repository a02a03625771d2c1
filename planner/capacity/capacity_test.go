package capacity

import (
	"fmt"
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
