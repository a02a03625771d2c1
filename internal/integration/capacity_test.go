package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// testCapacity adds a pool of MIG and AMD nodes to the cluster, as the
// kubelet and the device plugins report them, and a Queue whose scheduler
// status holds requested: the live snapshot keeps the resource lists, the
// pressure condition, status.requested and the creationTimestamp; the
// plan counts the pool's cards as KAI does (a MIG node with
// nvidia.com/gpu 0 is not 0 cards), and the same cluster data given with
// --cluster-data gives the same verdict. Everything it adds is deleted
// at the end.
func testCapacity(f *fx) {
	made := capacitySetup(f)
	defer capacityTeardown(f)
	f.must(f.krmplan("snapshot", "-o", "mig.json"), 0, "snapshot with MIG and AMD nodes")
	s := f.state("mig.json")
	capacitySnapshot(f, s, made)
	capacityPlans(f, s)
}

// capacitySetup creates pool mig with a MIG node, an AMD node under
// DiskPressure and department inference, and its Queue with the
// scheduler's status (allocated, requested); it returns the Queue.
func capacitySetup(f *fx) *unstructured.Unstructured {
	f.createYAML(f.write("mig.yaml", `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: mig}
spec: {labelKey: example.com/gpu-class, labelValue: mig}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: inference}
spec:
  queues:
  - {name: inference-mig, nodepool: mig, resources: {gpu: {deserved: 10, limit: 14, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}}
`))
	class := func(c string) map[string]string { return map[string]string{"example.com/gpu-class": c} }
	q := resource.MustParse
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "Test", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}
	mig := corev1.ResourceList{"nvidia.com/gpu": q("0"), "nvidia.com/mig-1g.10gb": q("7"), "nvidia.com/mig-3g.40gb": q("1"), "cpu": q("64"), "memory": q("512Gi")}
	f.nodeWith("mig-node-1", class("mig"), false, corev1.NodeStatus{Capacity: mig, Allocatable: mig, Conditions: []corev1.NodeCondition{ready}})
	amd := corev1.ResourceList{"amd.com/gpu": q("4"), "cpu": q("32"), "memory": q("256Gi")}
	pressure := corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, Reason: "Test", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}
	f.nodeWith("amd-node-1", class("mig"), false, corev1.NodeStatus{Capacity: amd, Allocatable: amd, Conditions: []corev1.NodeCondition{ready, pressure}})
	made := f.queueWith("inference-mig", "", [3]any{10, 14, 1}, map[string]any{
		"allocated": map[string]any{"nvidia.com/gpu": "3"}, "requested": map[string]any{"nvidia.com/gpu": "12", "cpu": "40", "memory": "300Gi"}})
	return made
}

// capacityTeardown deletes what capacitySetup created.
func capacityTeardown(f *fx) {
	ctx := context.Background()
	for _, n := range []string{"mig-node-1", "amd-node-1"} {
		if err := f.cs.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{}); err != nil {
			f.t.Errorf("deleting node %s: %v", n, err)
		}
	}
	for _, o := range []struct {
		gvr  schema.GroupVersionResource
		name string
	}{{live.GVRQueue, "inference-mig"}, {live.GVRDepartment, "inference"}, {live.GVRNodePool, "mig"}} {
		if err := f.dyn.Resource(o.gvr).Delete(ctx, o.name, metav1.DeleteOptions{}); err != nil {
			f.t.Errorf("deleting %s %s: %v", o.gvr.Resource, o.name, err)
		}
	}
}

// capacitySnapshot checks what the live snapshot s kept of the MIG and
// AMD nodes and of the Queue made.
func capacitySnapshot(f *fx, s *snapshot.State, made *unstructured.Unstructured) {
	var nodes []string
	for _, n := range s.Nodes {
		if n.Labels["example.com/gpu-class"] == "mig" {
			nodes = append(nodes, fmt.Sprintf("%s gpu=%s allocatable=%v pressure=%v ready=%v", n.Name, n.GPUAllocatable, n.Allocatable, n.Pressure, n.Ready))
		}
	}
	f.wantEqual("MIG and AMD nodes", strings.Join(nodes, "\n"), strings.Join([]string{
		"amd-node-1 gpu=0 allocatable=map[amd.com/gpu:4 cpu:32 memory:256Gi] pressure=map[DiskPressure:True] ready=true",
		"mig-node-1 gpu=0 allocatable=map[cpu:64 memory:512Gi nvidia.com/gpu:0 nvidia.com/mig-1g.10gb:7 nvidia.com/mig-3g.40gb:1] pressure=map[] ready=true",
	}, "\n"))
	var lq *snapshot.LiveQueue
	for i := range s.LiveQueues {
		if s.LiveQueues[i].Name == "inference-mig" {
			lq = &s.LiveQueues[i]
		}
	}
	if lq == nil {
		f.t.Fatalf("no live queue inference-mig in %v", s.LiveQueues)
	}
	f.wantEqual("requested", lq.Requested, map[string]string{"nvidia.com/gpu": "12", "cpu": "40", "memory": "300Gi"})
	f.wantEqual("creationTimestamp", lq.CreationTimestamp, made.GetCreationTimestamp().UTC().Format(time.RFC3339))
}

// capacityPlans plans three guarantees on pool mig from the live snapshot
// s, and one from git with s's cluster data as --cluster-data.
func capacityPlans(f *fx, s *snapshot.State) {
	// 10 + 4 cards: the MIG node's 7×1 + 1×3 slices, schedulable; the AMD
	// node's 4, not schedulable under DiskPressure.
	unsettled := "Warning: pool mig: not all of the pool's 14 cards are schedulable right now: node amd-node-1 is under DiskPressure (4 cards)"
	unassigned := func(n int) string {
		return fmt.Sprintf("Note: inference-mig: the projects are guaranteed 0 cards of the department's %[1]d cards — %[1]d cards not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight", n)
	}
	for _, tc := range []struct {
		deserved, limit int
		code            int
		want            []string
	}{
		{10, 14, 0, []string{unsettled, unassigned(10)}},
		{12, 14, 0, []string{unsettled, "Warning: pool mig: departments are guaranteed 12 cards, within the pool's 14 cards, but only 10 cards are schedulable right now — 2 cards over until its nodes are settled: node amd-node-1 is under DiskPressure (4 cards)", unassigned(12)}},
		{15, 15, 1, []string{"Error: pool mig: departments are guaranteed 15 cards, the pool has 14 cards — 1 card over", unsettled,
			"Warning: inference-mig: the department's gpu limit of 15 cards is above the 14 cards of pool mig — 1 card of it can never be reached", unassigned(15)}},
	} {
		hcl := f.write("mig.hcl", fmt.Sprintf("department \"inference\" {\n  queue \"mig\" {\n    gpu = { deserved = %d, limit = %d }\n  }\n}\n", tc.deserved, tc.limit))
		live := f.must(f.krmplan("plan", hcl, "--state", "mig.json", "--no-color"), tc.code, fmt.Sprintf("plan %d on the MIG pool", tc.deserved))
		got := poolFindings(findings(live.stdout), "mig")
		f.wantEqual(fmt.Sprintf("findings of %d on the MIG pool", tc.deserved), strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
	}

	// The same nodes and Queues as --cluster-data over the same objects
	// from git give the same verdict.
	b, err := json.Marshal(snapshot.ClusterData{Nodes: s.Nodes, LiveQueues: s.LiveQueues, Namespaces: s.Namespaces})
	if err != nil {
		f.t.Fatal(err)
	}
	f.write("mig-cluster.json", string(b))
	sample := filepath.Join(f.root, "examples", "sample", "tenancy.yaml")
	f.must(f.exec(nil, "sh", "-c", `mkdir -p migrepo && cp "$1" migrepo/tenancy.yaml && echo --- >> migrepo/tenancy.yaml && cat mig.yaml >> migrepo/tenancy.yaml && cd migrepo && `+
		"git init -q -b main && git add . && git -c user.name=T -c user.email=t@example.com commit -q -m t", "sh", sample), 0, "git repo of the tenancy")
	f.must(f.krmplan("snapshot", "--git-repo", "migrepo", "--tenancy", "tenancy.yaml", "--cluster-data", "mig-cluster.json", "-o", "mig-git.json"), 0, "git snapshot with cluster data")
	hcl := f.write("mig.hcl", "department \"inference\" {\n  queue \"mig\" {\n    gpu = { deserved = 12 }\n  }\n}\n")
	fromLive := f.must(f.krmplan("plan", hcl, "--state", "mig.json", "--no-color"), 0, "plan on the live snapshot")
	fromGit := f.must(f.krmplan("plan", hcl, "--state", "mig-git.json", "--no-color"), 0, "plan on the git snapshot")
	f.wantEqual("verdict from git with --cluster-data", strings.Join(poolFindings(findings(fromGit.stdout), "mig"), "\n"),
		strings.Join(poolFindings(findings(fromLive.stdout), "mig"), "\n"))
}

// poolFindings keeps the findings that name pool (or its queues).
func poolFindings(fs []string, pool string) []string {
	var out []string
	for _, l := range fs {
		if strings.Contains(l, "pool "+pool) || strings.Contains(l, "-"+pool+":") {
			out = append(out, l)
		}
	}
	return out
}
