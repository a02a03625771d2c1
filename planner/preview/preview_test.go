package preview_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
)

// tree is a tenancy with every placement KRM's rule knows: a project under
// its department's queue on the pool; a project whose department has no
// queue on the pool (a root queue there); a department without projects on
// the pool; and the queue entries KRM's webhook or KAI would refuse: a
// second queue of one project on a pool, a name another queue has, a pool
// that does not exist.
const tree = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: h100}
spec: {labelKey: gpu, labelValue: h100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: research}
spec:
  queues:
    - {name: research-h100, nodepool: h100, resources: {gpu: {deserved: 6, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: idle}
spec:
  queues:
    - {name: idle-h100, nodepool: h100, resources: {gpu: {deserved: 2, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: elsewhere}
spec: {queues: []}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: llm}
spec:
  parent: research
  queues:
    - {name: llm-h100, nodepool: h100, resources: {gpu: {deserved: 4, limit: -1, overQuotaWeight: 1}}}
    - {name: llm-again, nodepool: h100, resources: {gpu: {deserved: 1, limit: -1, overQuotaWeight: 1}}}
    - {name: llm-gone, nodepool: b200, resources: {gpu: {deserved: 1, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: solo}
spec:
  parent: elsewhere
  queues:
    - {name: solo-h100, nodepool: h100, priority: 50, resources: {gpu: {deserved: 1, limit: 3, overQuotaWeight: 2}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: twin}
spec:
  parent: research
  queues:
    - {name: llm-h100, nodepool: h100, resources: {gpu: {deserved: 9, limit: -1, overQuotaWeight: 1}}}
`

// placement writes each queue of pv as "pool/queue kind owner parent
// gpu-share".
func placement(pv *preview.Preview) string {
	var b strings.Builder
	for _, p := range pv.Pools {
		for _, q := range p.Queues {
			gpu := "?"
			if s := q.Share.Share.GPU; s.Known {
				gpu = s.FairShare().String()
			}
			fmt.Fprintf(&b, "%s/%s %s %s parent=%q gpu=%s%s\n", p.Name, q.Name, q.Kind, q.Owner, q.Parent, gpu,
				map[bool]string{true: " no-demand: " + q.NoDemand}[q.NoDemand != ""])
		}
	}
	return b.String()
}

func withNodes(s *snapshot.State, requested map[string]map[string]string) {
	d := &snapshot.ClusterData{Nodes: []snapshot.Node{{Name: "n1", Labels: map[string]string{"gpu": "h100"}, Ready: true,
		Allocatable: snapshot.ResourceList{"nvidia.com/gpu": "10", "cpu": "8", "memory": "64G"}}}}
	for name, r := range requested {
		d.LiveQueues = append(d.LiveQueues, snapshot.LiveQueue{Name: name, Requested: r, CreationTimestamp: "2026-01-01T00:00:00Z"})
	}
	s.Overlay(d)
	s.Seal()
}

// TestTreeByKRMsRule checks the queue tree, the names and what is left
// out, with 10 cards divided under full demand: research 6 + 4 over quota
// shared with solo (priority 50 is a lower band, so it gets its deserved
// only); idle demands nothing (no projects), so it gets 0.
func TestTreeByKRMsRule(t *testing.T) {
	s := plantest.State(t, "t.yaml", []byte(tree))
	withNodes(s, nil)
	pv, err := preview.Of(s, preview.Full, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `h100/idle-h100 Department idle parent="" gpu=0
h100/research-h100 Department research parent="" gpu=9
h100/llm-h100 Project llm parent="research-h100" gpu=9
h100/solo-h100 Project solo parent="" gpu=1
`
	if got := placement(pv); got != want {
		t.Errorf("placement:\n%s\nwant:\n%s", got, want)
	}
	wantOut := []string{
		"project llm: queue llm-again is its second queue on node pool h100 (KRM's webhook refuses it); the first is divided",
		`project llm: queue llm-gone is on node pool "b200", which does not exist`,
		"project twin: queue llm-h100 has the name of a queue of project llm; KRM gives the Queue it makes second a random suffix, so only the first is divided",
	}
	if strings.Join(pv.LeftOut, "\n") != strings.Join(wantOut, "\n") {
		t.Errorf("left out:\n%s\nwant:\n%s", strings.Join(pv.LeftOut, "\n"), strings.Join(wantOut, "\n"))
	}
	if !pv.AgesRead || pv.Unaged != 4 {
		t.Errorf("ages read %v, %d queues without age; want true, 4 (no live Queue has their names)", pv.AgesRead, pv.Unaged)
	}
	if got := pv.Pools[0].Oversubscribed(quota.GPU); !got.IsZero() {
		t.Errorf("oversubscribed %s, want 0: 6+2+1 of 10", got)
	}
}

// TestLiveDemand: a leaf demands its Queue's status.requested, summed into
// its department; a leaf without a live Queue demands 0 and says so. With
// llm-h100 requesting 2 cards, research gets 2 (its deserved 6 capped by
// demand) and solo, requesting 5 cards, 3 (its limit).
func TestLiveDemand(t *testing.T) {
	s := plantest.State(t, "t.yaml", []byte(tree))
	withNodes(s, map[string]map[string]string{
		"llm-h100":  {"nvidia.com/gpu": "2", "cpu": "500m"},
		"solo-h100": {"nvidia.com/gpu": "5"},
		"idle-h100": {"nvidia.com/gpu": "7"}, // a department's own requested is not added
	})
	s.LiveQueues = append(s.LiveQueues, snapshot.LiveQueue{Name: "twin-h100"})
	pv, err := preview.Of(s, preview.Live, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `h100/idle-h100 Department idle parent="" gpu=0
h100/research-h100 Department research parent="" gpu=2
h100/llm-h100 Project llm parent="research-h100" gpu=2
h100/solo-h100 Project solo parent="" gpu=3
`
	if got := placement(pv); got != want {
		t.Errorf("placement:\n%s\nwant:\n%s", got, want)
	}
	if pv.Unaged != 1 { // idle, research, llm and solo have live Queues with ages
		t.Errorf("%d queues without age, want 1 (research-h100)", pv.Unaged)
	}
}

// TestLiveDemandWithoutQueues: --demand live on a snapshot that did not
// read the Queues, or whose Queues carry allocated but no requested at
// all, is refused with the reason; a leaf whose live Queue has no requested demands 0, and
// says why.
func TestLiveDemandWithoutQueues(t *testing.T) {
	s := plantest.State(t, "t.yaml", []byte(tree))
	_, err := preview.Of(s, preview.Live, nil)
	want := "--demand live needs each Queue's status.requested, and the snapshot did not read the Queues (git snapshot without a cluster); take the snapshot with the cluster's Queues, or preview --demand full"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	withNodes(s, nil)
	s.LiveQueues = []snapshot.LiveQueue{{Name: "llm-h100", Allocated: map[string]string{"nvidia.com/gpu": "1"}}, {Name: "idle-h100"}}
	_, err = preview.Of(s, preview.Live, nil)
	want = "--demand live needs each Queue's status.requested, and none of the snapshot's 2 Queues has one though 1 have status.allocated (what is allocated was requested, so the snapshot lacks the field, not the demand); preview --demand full"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	s.LiveQueues = []snapshot.LiveQueue{{Name: "llm-h100"}} // idle: no requested, no allocated
	pv, err := preview.Of(s, preview.Live, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := placement(pv)
	for _, line := range []string{
		`h100/llm-h100 Project llm parent="research-h100" gpu=0 no-demand: its Queue has no status.requested`,
		`h100/solo-h100 Project solo parent="" gpu=0 no-demand: no live Queue of this name`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("placement lacks %q:\n%s", line, got)
		}
	}
}

// TestCapacityUnknown: without nodes the pool's size is unknown and no
// share is made up; only limits the pools divided.
func TestCapacityUnknown(t *testing.T) {
	s := plantest.State(t, "t.yaml", []byte(tree))
	pv, err := preview.Of(s, preview.Full, map[string]bool{"h100": true})
	if err != nil {
		t.Fatal(err)
	}
	p := pv.Pools[0]
	if len(pv.Pools) != 1 || p.NodesRead || p.Capacity.GPU != nil || p.Unknown.GPU != "nodes not read: git snapshot without a cluster" {
		t.Fatalf("pools %d, nodes read %v, gpu %v (%q); want h100 alone, unknown", len(pv.Pools), p.NodesRead, p.Capacity.GPU, p.Unknown.GPU)
	}
	if got := placement(pv); !strings.Contains(got, `h100/llm-h100 Project llm parent="research-h100" gpu=?`) {
		t.Errorf("a share where the capacity is unknown:\n%s", got)
	}
	if pv.AgesRead {
		t.Error("ages read on a git snapshot")
	}
	none, err := preview.Of(s, preview.Full, map[string]bool{"a100": true})
	if err != nil || len(none.Pools) != 0 || len(none.LeftOut) != 0 {
		t.Errorf("only a100: %d pools, left out %q, %v; want none", len(none.Pools), none.LeftOut, err)
	}
}

// TestChangedPools: the demo's move of h100 cards changes departments and
// projects that have a100 queues too, but only the h100 pool's division.
func TestChangedPools(t *testing.T) {
	p := plantest.DemoPlan(t, "move-h100-cards.hcl")
	got := preview.ChangedPools(p)
	if len(got) != 1 || !got["h100"] {
		t.Errorf("changed pools %v, want h100 alone", got)
	}
	pp, err := preview.OfPlan(p, got)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pc := range pp.Pools {
		for _, q := range pc.Queues {
			names = append(names, fmt.Sprintf("%s/%s touched=%v", pc.Name, q.Name, q.Touched))
		}
	}
	want := "h100/product-ml-h100 touched=false h100/search-ranking-h100 touched=false h100/research-h100 touched=true " +
		"h100/foundation-models-h100 touched=true h100/vision-h100 touched=true h100/detection-h100 touched=true " +
		"h100/segmentation-h100 touched=false"
	if strings.Join(names, " ") != want {
		t.Errorf("queues whose share moves:\n%s\nwant:\n%s", strings.Join(names, " "), want)
	}
}
