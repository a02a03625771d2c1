package gentenancy

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The context and server the demo's cluster data names.
const (
	DemoContext = "demo"
	DemoServer  = "https://gpu-cluster.example:6443"
)

var gpuProduct = map[string]string{"h100": "NVIDIA-H100-80GB-HBM3", "a100": "NVIDIA-A100-SXM4-80GB"}

// nodeCPU is the allocatable cpu of a node of each class, in cores (a DGX
// H100 has 112, a DGX A100 128); every node has 1000G of allocatable
// memory.
var nodeCPU = map[string]string{"h100": "112", "a100": "128"}

// ClusterData is what the tenancy's cluster reports, as `krmplan snapshot
// --cluster-data` reads it: every node with its 8 cards, and its
// allocatable cards, cpu and memory as a resource list (one a100 node per
// cell not ready), a KAI Queue per queue with the tenancy's numbers and its
// usage (status.allocated in Kubernetes quantities, non-preemptible usage
// for the interactive projects), and the namespaces, labelled
// kai/project=<project> except the sandbox's. Lists are sorted by name.
func (t *Tenancy) ClusterData() *snapshot.ClusterData {
	d := &snapshot.ClusterData{Context: DemoContext, Server: DemoServer}
	eight := quota.FromInt(CardsPerNode)
	for _, n := range t.Nodes {
		d.Nodes = append(d.Nodes, snapshot.Node{Name: n.Name, GPUCapacity: eight, GPUAllocatable: eight, Ready: n.Ready,
			Allocatable: snapshot.ResourceList{"nvidia.com/gpu": snapshot.Quantity(eight.String()), "cpu": snapshot.Quantity(nodeCPU[n.Class]), "memory": "1000G"},
			Labels:      map[string]string{LabelKey: n.Pool, "kubernetes.io/hostname": n.Name, "nvidia.com/gpu.product": gpuProduct[n.Class]}})
	}
	deptQueue := map[string]string{} // department/pool → queue name
	for _, dp := range t.Departments {
		for _, q := range dp.Queues {
			deptQueue[dp.Name+"/"+q.Pool] = q.Name
			d.LiveQueues = append(d.LiveQueues, liveQueue(q, ""))
		}
	}
	for _, p := range t.Projects {
		for _, q := range p.Queues {
			d.LiveQueues = append(d.LiveQueues, liveQueue(q, deptQueue[p.Parent+"/"+q.Pool]))
		}
		labels := map[string]string{"kubernetes.io/metadata.name": p.Name}
		if p.Labelled {
			labels[tenancy.DefaultProjectLabelKey] = p.Name
		}
		d.Namespaces = append(d.Namespaces, snapshot.Namespace{Name: p.Name, Labels: labels})
	}
	for _, ns := range t.Namespaces {
		d.Namespaces = append(d.Namespaces, snapshot.Namespace{Name: ns, Labels: map[string]string{"kubernetes.io/metadata.name": ns}})
	}
	sort.Slice(d.Nodes, func(i, j int) bool { return d.Nodes[i].Name < d.Nodes[j].Name })
	sort.Slice(d.LiveQueues, func(i, j int) bool { return d.LiveQueues[i].Name < d.LiveQueues[j].Name })
	sort.Slice(d.Namespaces, func(i, j int) bool { return d.Namespaces[i].Name < d.Namespaces[j].Name })
	return d
}

// ClusterDataJSON is ClusterData as the indented JSON file the demo ships.
func (t *Tenancy) ClusterDataJSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t.ClusterData()); err != nil {
		panic(err) // plain data
	}
	return b.Bytes()
}

// liveQueue is the KAI Queue KRM makes of q, as the scheduler holds it.
func liveQueue(q Queue, parent string) snapshot.LiveQueue {
	v := func(s string) *quota.Value { x := quota.MustParse(s); return &x }
	res := func(deserved, limit string, weight int) *tenancy.Resource {
		return &tenancy.Resource{Deserved: v(deserved), Limit: v(limit), OverQuotaWeight: v(strconv.Itoa(weight))}
	}
	lq := snapshot.LiveQueue{Name: q.Name, ParentQueue: parent, Resources: tenancy.Resources{
		GPU:    res(q.Deserved.String(), q.Limit.String(), q.Weight),
		CPU:    res(strconv.FormatInt(q.CPU, 10), "-1", 1),
		Memory: res(strconv.FormatInt(q.Memory, 10), "-1", 1),
	}}
	lq.Allocated = quantities(q.Used)
	lq.AllocatedNonPreemptible = quantities(q.NonPreemptible)
	return lq
}

// quantities is the status map of a usage of h half cards, with the cpu
// and memory such jobs use, as the scheduler writes it; nil for none.
func quantities(h Half) map[string]string {
	if h <= 0 {
		return nil
	}
	n := int64(h)
	return map[string]string{
		"nvidia.com/gpu": resource.NewMilliQuantity(n*500, resource.DecimalSI).String(),
		"cpu":            resource.NewMilliQuantity(n*usedCPUPerHalf, resource.DecimalSI).String(),
		"memory":         resource.NewQuantity(n*usedMemGiPerHalf<<30, resource.BinarySI).String(),
	}
}
