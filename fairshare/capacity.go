package fairshare

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/krmplan/krmplan/quota"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Node is a node of a pool as KAI's scheduler counts it for the pool's
// capacity (proportion.getNodeResources).
type Node struct {
	Name string
	// Unschedulable is spec.unschedulable (a cordoned node).
	Unschedulable bool
	// Conditions maps status.conditions' types to their status ("Ready":
	// "True").
	Conditions map[string]string
	// Allocatable is status.allocatable: resource name → quantity
	// ("nvidia.com/gpu": "8", "cpu": "64", "memory": "512G").
	Allocatable map[string]string
}

// Counts is scheduler_util.CheckNodeConditionPredicate: a node counts
// unless it is cordoned, its Ready condition is other than True, or a
// MemoryPressure, DiskPressure, PIDPressure or NetworkUnavailable
// condition is other than False. A node without conditions counts.
func (n *Node) Counts() bool {
	if n.Unschedulable {
		return false
	}
	for t, s := range n.Conditions {
		switch t {
		case "Ready":
			if s != "True" {
				return false
			}
		case "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable":
			if s != "False" {
				return false
			}
		}
	}
	return true
}

// migName is KAI's pattern for a MIG resource
// (common_info/resources.ExtractGpuAndMemoryFromMigResourceName): N GPU
// slices of M GB.
var migName = regexp.MustCompile(`^nvidia.com/mig-(\d+)g\.(\d+)gb$`)

// Resources is what KAI reads from one node's resource list (its
// status.allocatable, or status.capacity read the same way): gpu =
// nvidia.com/gpu + amd.com/gpu + N per nvidia.com/mig-<N>g.<M>gb instance,
// in cards; cpu in millicores and memory in MB, each quantity rounded up
// to a whole millicore, byte or device as KAI reads it
// (resource_info.ResourceFromResourceList: MilliValue for cpu, Value for
// the rest). A list without a cpu or memory entry leaves that resource
// unknown (nil); gpu is always known (0 without a GPU entry). Other
// resources (pods, ephemeral-storage, a MIG name that does not match
// KAI's pattern) add nothing. A quantity that does not parse is an error
// naming the resource and its text.
//
// This is the one copy of KAI's card rule: the checks, the pool bars and
// Capacity all count cards with it.
func Resources(list map[string]string) (PerResource[*quota.Value], error) {
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, name)
	}
	slices.Sort(names) // the first bad quantity is the same every time
	gpu := quota.Zero
	var cpu, mem *quota.Value
	for _, name := range names {
		text := list[name]
		q, err := resource.ParseQuantity(text)
		if err != nil {
			return PerResource[*quota.Value]{}, fmt.Errorf("%s %q: %v", name, text, err)
		}
		switch m := migName.FindStringSubmatch(name); {
		case name == "cpu":
			v := quota.FromInt(q.MilliValue())
			cpu = &v
		case name == "memory":
			v, _ := quota.FromScaled(q.Value(), -6)
			mem = &v
		case name == "nvidia.com/gpu", name == "amd.com/gpu":
			gpu = gpu.Add(quota.FromInt(q.Value()))
		case m != nil:
			per, err := strconv.ParseInt(m[1], 10, 32)
			if err != nil {
				continue // KAI skips a name whose count does not parse
			}
			gpu = gpu.Add(quota.FromInt(per * q.Value()))
		}
	}
	return PerResource[*quota.Value]{GPU: &gpu, CPU: cpu, Memory: mem}, nil
}

// Capacity is what KAI divides at a pool's top level, from the pool's
// nodes: the Resources of the allocatable of every node that counts
// (Ready, not cordoned, no pressure condition; see Node.Counts). A counted
// node without a cpu or memory entry makes that resource unknown (nil);
// gpu is always known.
//
// Not modelled: pods of other schedulers, whose requests KAI subtracts;
// restrictNodeScheduling, which zeroes the GPUs of nodes without the
// gpu-worker label; DRA GPUs; another extended resource whose name ends in
// "gpu" (intel.com/gpu), whose milli-value KAI's resource vector writes
// over the node's GPU count (resource_info Resource.ToVector). The sums
// are exact (KAI's float64 sums are too below 2^53 units, 9 PB of
// memory). A quantity that does not parse is an error naming the node.
func Capacity(nodes []Node) (PerResource[*quota.Value], error) {
	counted := make([]PerResource[*quota.Value], 0, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if !n.Counts() {
			continue
		}
		r, err := Resources(n.Allocatable)
		if err != nil {
			return PerResource[*quota.Value]{}, fmt.Errorf("node %s: allocatable %v", n.Name, err)
		}
		counted = append(counted, r)
	}
	return Sum(counted), nil
}

// Sum is Capacity of nodes already read: counted holds the Resources of
// the allocatable of each node that counts. gpu is always known; cpu or
// memory is nil (unknown) when one of them has no figure for it. It lets a
// caller that reads each node once (planner/capacity, for the many states
// a plan checks) total a pool without parsing its quantities again.
func Sum(counted []PerResource[*quota.Value]) PerResource[*quota.Value] {
	gpu, cpu, mem := quota.Zero, quota.Zero, quota.Zero
	cpuKnown, memKnown := true, true
	for _, r := range counted {
		gpu = gpu.Add(*r.GPU)
		cpuKnown, memKnown = cpuKnown && r.CPU != nil, memKnown && r.Memory != nil
		if cpuKnown {
			cpu = cpu.Add(*r.CPU)
		}
		if memKnown {
			mem = mem.Add(*r.Memory)
		}
	}
	out := PerResource[*quota.Value]{GPU: &gpu}
	if cpuKnown {
		out.CPU = &cpu
	}
	if memKnown {
		out.Memory = &mem
	}
	return out
}
