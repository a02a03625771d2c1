package views

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

func v(s string) quota.Value { return quota.MustParse(s) }

// testCells is the bar's width in these tests: 60 cells, as on a page of
// 100 columns.
const testCells = 60

// bar draws one line of shares, given as "name=value" pairs, the way the
// text view prints it (without colour), testCells wide.
func bar(e edge, scale float64, pairs ...string) string {
	var ss []share
	for _, p := range pairs {
		n, val, _ := strings.Cut(p, "=")
		ss = append(ss, share{name: n, v: v(val)})
	}
	segs, _ := layoutLine(ss, e, scale, testCells)
	l := drawBar(ss, e, scale, assignKeys(segs), testCells)
	out := l.paint(Style{}) + " " + l.sum
	if len(l.legend) > 0 {
		out += " (" + strings.Join(l.legend, "; ") + ")"
	}
	return out
}

func known(s string) edge { return edge{known: true, v: v(s)} }

func TestDrawBar(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"one department fills the pool", bar(known("4"), 4, "platform=4"),
			"[platform 4==================================================] 4 of 4 cards"},
		{"two shares and free cards", bar(known("8"), 8, "a=2", "b=4"),
			"[a 2============|b 4==========================...............] 6 of 8 cards, 2 free"},
		{"overflow spills past the edge", bar(known("4"), 5, "workspace=3", "benchmark=2"),
			"[workspace 3=========================|benchmark 2]!!!!!!!!!!!! 5 of 4 cards, 1 over"},
		{"unknown edge ends at the total", bar(edge{}, 5, "platform=4"),
			"[platform 4======================================]             4 cards"},
		{"exact decimals", bar(known("0.3"), 0.3, "x=0.1", "y=0.2"),
			"[x 0.1===============|y 0.2==================================] 0.3 of 0.3 cards"},
		{"a share too narrow for its label gets a key", bar(known("100"), 100, "big=90", "tiny-project=5", "z=5"),
			"[big 90================================================|A=|B=] 100 of 100 cards (A tiny-project 5; B z 5)"},
		{"a share too small for a cell is named", bar(known("100"), 100, "big=99.5", "crumb=0.5"),
			"[big 99.5====================================================] 100 of 100 cards (too small to draw: crumb 0.5)"},
		{"an unlimited share is named, not drawn", bar(known("8"), 8, "a=4", "b=-1"),
			"[a 4===========================..............................] 4 cards + unlimited (b) of 8 cards"},
		{"a label never straddles the edge", bar(known("4"), 5, "a=3.5", "vision=1.5"),
			"[a 3.5=====================================|A====]!!!!!!!!!!!! 5 of 4 cards, 1 over (A vision 1.5)"},
		{"a pool with no cards", bar(known("0"), 2, "a=2"),
			"[]a 2!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!! 2 of 0 cards, 2 over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", tc.got, tc.want)
			}
		})
	}
}

// clusterState is a tenancy of two pools read together with its nodes:
// h100 has 3 nodes of 8 cards (one cordoned), a100 one node of 4 cards,
// and one unlabelled node of 2 cards is in pool default.
func clusterState(t *testing.T, yaml string) *snapshot.State {
	t.Helper()
	s := plantest.State(t, "t.yaml", []byte(yaml))
	s.NotRead = []snapshot.NotRead{{What: snapshot.SourceQueues, Reason: "test"}, {What: snapshot.SourceNamespaces, Reason: "test"}}
	node := func(name, class, cards string, cordoned bool) snapshot.Node {
		n := snapshot.Node{Name: name, GPUAllocatable: v(cards), GPUCapacity: v(cards), Ready: true, Cordoned: cordoned}
		if class != "" {
			n.Labels = map[string]string{"gpu": class}
		}
		return n
	}
	s.Nodes = []snapshot.Node{node("h1", "h100", "8", false), node("h2", "h100", "8", false), node("h3", "h100", "8", true),
		node("a1", "a100", "4", false), node("plain", "", "2", false)}
	s.Seal()
	return s
}

const twoPools = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: h100}
spec: {labelKey: gpu, labelValue: h100}
---
apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: a100}
spec: {labelKey: gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: research}
spec:
  queues:
  - {name: research-h100, nodepool: h100, resources: {gpu: {deserved: 16, limit: -1, overQuotaWeight: 1}}}
  - {name: research-a100, nodepool: a100, resources: {gpu: {deserved: 4, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: platform}
spec:
  queues:
  - {name: platform-h100, nodepool: h100, resources: {gpu: {deserved: 8, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: vision}
spec:
  parent: research
  queues:
  - {name: vision-h100, nodepool: h100, resources: {gpu: {deserved: 10, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: speech}
spec:
  parent: research
  queues:
  - {name: speech-h100, nodepool: h100, resources: {gpu: {deserved: 6, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: tools}
spec:
  parent: platform
  queues:
  - {name: tools-a100, nodepool: a100, resources: {gpu: {deserved: 1, limit: -1, overQuotaWeight: 1}}}
`

func TestPoolCapacity(t *testing.T) {
	s := clusterState(t, twoPools)
	for _, tc := range []struct {
		pool                 string
		known                bool
		cards, unschedulable string
		nodes                int
		why                  string
	}{
		{"h100", true, "24", "8", 3, ""},
		{"a100", true, "4", "0", 1, ""},
		{"default", true, "2", "0", 1, ""},
		{"nowhere", false, "0", "0", 0, "no such node pool"},
	} {
		c := poolCapacity(s, tc.pool)
		if c.known != tc.known || !c.cards.Equal(v(tc.cards)) || !c.unschedulable.Equal(v(tc.unschedulable)) || c.nodes != tc.nodes || c.why != tc.why {
			t.Errorf("%s: got %+v", tc.pool, c)
		}
	}
	// A node with fewer allocatable cards than its capacity counts its
	// capacity, the missing cards as not schedulable: the checks count
	// the same way (planner/capacity.Pools).
	for i := range s.Nodes {
		if s.Nodes[i].Name == "a1" {
			s.Nodes[i].GPUAllocatable = v("3")
		}
	}
	if c := poolCapacity(s, "a100"); !c.cards.Equal(v("4")) || !c.unschedulable.Equal(v("1")) {
		t.Errorf("a100 with 3 of 4 allocatable: got %+v, want 4 cards, 1 not schedulable", c)
	}
	if c := poolCapacity(plantest.SampleState(t), "rtx-pro-6000"); c.known || c.why != "nodes not read" {
		t.Errorf("sample: got %+v, want unknown (nodes not read)", c)
	}
}

// barsOf returns the bars section of a plan, without colour.
func barsOf(t *testing.T, s *snapshot.State, hcl string) string {
	t.Helper()
	var b bytes.Buffer
	writeBars(&b, plantest.Plan(t, s, "d.hcl", []byte(hcl)), Style{})
	return b.String()
}

func TestBarsWithCapacity(t *testing.T) {
	got := barsOf(t, clusterState(t, twoPools), `
department "research" {
  queue "h100" {
    gpu = { deserved = 20 }
  }
}
project "speech" {
  queue "h100" {
    gpu = { deserved = 12 }
  }
}
project "new" {
  department = "platform"
  queue "a100" {
    name = "new-a100"
    gpu  = { deserved = 2 }
  }
}
`)
	want := `Guaranteed GPU cards per node pool (] is where the cards end, ! is beyond):

  Node pool a100: 4 cards on 1 node
    before [research 4===============]|A!!!!              5 of 4 cards, 1 over
           (A tools* 1)
    after  [research 4===============]|new* 2!!!!!!|A!!!! 7 of 4 cards, 3 over
           (A tools* 1)
    * a root queue beside the departments: a project without a department, or
      whose department has no queue on this pool

  Node pool h100: 24 cards on 3 nodes, 8 of them not schedulable now
    before [platform 8===|research 16=============]       24 of 24 cards
    after  [platform 8===|research 20=============]!!!!!! 28 of 24 cards, 4 over
    Projects of department research (share 16 -> 20 cards):
      before [speech 6===|vision 10==========]            16 of 16 cards
      after  [speech 12==============|vision 10=====]!!!! 22 of 20 cards, 2 over

`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestBarsMIGPool: a pool of MIG and AMD nodes is drawn against its cards
// as KAI counts them (planner/capacity.Pools), not against nvidia.com/gpu
// alone (0 here), and a node under pressure is not schedulable.
func TestBarsMIGPool(t *testing.T) {
	s := plantest.State(t, "t.yaml", []byte(`apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: mig}
spec: {labelKey: gpu, labelValue: mig}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: research}
spec:
  queues:
  - {name: research-mig, nodepool: mig, resources: {gpu: {deserved: 7, limit: -1, overQuotaWeight: 1}}}
`))
	s.NotRead = []snapshot.NotRead{{What: snapshot.SourceQueues, Reason: "test"}, {What: snapshot.SourceNamespaces, Reason: "test"}}
	mig := snapshot.ResourceList{"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "7"}
	s.Nodes = []snapshot.Node{
		{Name: "mig-1", Labels: map[string]string{"gpu": "mig"}, Capacity: mig, Allocatable: mig, Ready: true},
		{Name: "amd-1", Labels: map[string]string{"gpu": "mig"}, Allocatable: snapshot.ResourceList{"amd.com/gpu": "4"}, Ready: true,
			Pressure: map[string]string{"DiskPressure": "True"}},
	}
	s.Seal()
	got := barsOf(t, s, `
department "research" {
  queue "mig" {
    gpu = { deserved = 10 }
  }
}
`)
	want := `Guaranteed GPU cards per node pool (] is where the cards end, ! is beyond):

  Node pool mig: 11 cards on 2 nodes, 4 of them not schedulable now
    before [research 7==================................] 7 of 11 cards, 4 free
    after  [research 10=============================....] 10 of 11 cards, 1 free
    Projects of department research (share 7 -> 10 cards):
      no project has a queue on this pool

`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestBarsRootProject: a project without spec.parent is a segment beside
// the departments, marked as a root queue, in no department's bars.
func TestBarsRootProject(t *testing.T) {
	s := clusterState(t, twoPools)
	for i := range s.Projects {
		if s.Projects[i].Metadata.Name == "speech" {
			s.Projects[i].Spec.Parent = ""
		}
	}
	s.Seal()
	got := barsOf(t, s, `
project "speech" {
  queue "h100" {
    gpu = { deserved = 4 }
  }
}
`)
	want := `Guaranteed GPU cards per node pool (] is where the cards end, ! is beyond):

  Node pool h100: 24 cards on 3 nodes, 8 of them not schedulable now
    before [platform 8==|research 16===========]|A!!!!!!! 30 of 24 cards, 6 over
           (A speech* 6)
    after  [platform 8==|research 16===========]|A!!!!    28 of 24 cards, 4 over
           (A speech* 4)
    * a root queue beside the departments: a project without a department, or
      whose department has no queue on this pool

`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestBarsFitIn80Columns(t *testing.T) {
	var y strings.Builder
	y.WriteString("apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: a-node-pool-with-a-rather-long-name-indeed}\nspec: {labelKey: gpu, labelValue: h100}\n")
	var hcl strings.Builder
	for i := 0; i < 12; i++ {
		d := fmt.Sprintf("department-number-%02d-with-a-long-name", i)
		fmt.Fprintf(&y, "---\napiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: %s}\nspec:\n  queues:\n  - {name: d%d, nodepool: a-node-pool-with-a-rather-long-name-indeed, resources: {gpu: {deserved: %d.25, limit: -1}}}\n", d, i, 10+i)
		fmt.Fprintf(&hcl, "department %q {\n  queue \"a-node-pool-with-a-rather-long-name-indeed\" {\n    gpu = { deserved = %d.75 }\n  }\n}\n", d, 1000+i)
		for j := 0; j < 8; j++ {
			fmt.Fprintf(&y, "---\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: p%d-%d-a-project-name-that-is-long}\nspec:\n  parent: %s\n  queues:\n  - {name: p%d-%d, nodepool: a-node-pool-with-a-rather-long-name-indeed, resources: {gpu: {deserved: 1.125, limit: -1}}}\n", i, j, d, i, j)
		}
	}
	got := barsOf(t, plantest.State(t, "t.yaml", []byte(y.String())), hcl.String())
	if !strings.Contains(got, "Projects of department department-number-11") {
		t.Fatalf("no project bars:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if n := utf8.RuneCountInString(line); n > DefaultColumns {
			t.Errorf("%d columns: %s", n, line)
		}
		if strings.HasSuffix(line, " ") {
			t.Errorf("trailing space: %q", line)
		}
	}
}

func TestBarsColourOnlyWhenAsked(t *testing.T) {
	p := plantest.SamplePlan(t, "oversubscribed.hcl")
	var plain, coloured bytes.Buffer
	writeBars(&plain, p, NewStyle(false))
	writeBars(&coloured, p, NewStyle(true))
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("colour without a terminal:\n%q", plain.String())
	}
	red := "\x1b[31;1m!!!!!!!!\x1b["
	if !strings.Contains(coloured.String(), red) {
		t.Errorf("the overflow is not red:\n%q", coloured.String())
	}
	// The shares alternate cyan and magenta: blue (34) is too dark on a
	// black background.
	for _, c := range []string{"\x1b[36m", "\x1b[35m"} {
		if !strings.Contains(coloured.String(), c) {
			t.Errorf("no %q in:\n%q", c, coloured.String())
		}
	}
	if strings.Contains(coloured.String(), "\x1b[34m") {
		t.Errorf("dark blue:\n%q", coloured.String())
	}
}

// TestPlanTarget: the plan's target, which the bars draw, is the snapshot
// with every change applied, sharing what the plan does not change.
func TestPlanTarget(t *testing.T) {
	s := clusterState(t, twoPools)
	p := plantest.Plan(t, s, "d.hcl", []byte(`
node_pool "l4" {
  label_key   = "gpu"
  label_value = "l4"
}
department "platform" {
  queue "l4" {
    name     = "platform-l4"
    priority = 7
    gpu      = { deserved = 2, limit = unlimited }
  }
}
project "vision" {
  queue "h100" {
    gpu = { deserved = 12 }
  }
}
project "new" {
  department         = "platform"
  namespace          = "new-ns"
  default_node_pools = ["l4"]
  queue "l4" {
    name = "new-l4"
    gpu  = { deserved = 0.5 }
  }
}
`))
	a := p.TargetState()
	if np := findPool(a, "l4"); np.Spec.LabelKey != "gpu" || np.Spec.LabelValue != "l4" {
		t.Errorf("pool l4: %+v", np.Spec)
	}
	q := queueOn(findDept(a, "platform").Spec.Queues, "l4")
	if q == nil || q.Name != "platform-l4" || q.Priority == nil || *q.Priority != 7 || !gpuDeserved(q).Equal(v("2")) || !q.Resources.GPU.Limit.IsUnlimited() {
		t.Errorf("platform's l4 queue: %+v", q)
	}
	pr := findProject(a, "new")
	if pr.Spec.Parent != "platform" || pr.Spec.Namespace != "new-ns" || strings.Join(pr.Spec.DefaultNodePools, ",") != "l4" ||
		len(pr.Spec.Queues) != 1 || !gpuDeserved(&pr.Spec.Queues[0]).Equal(v("0.5")) {
		t.Errorf("project new: %+v", pr.Spec)
	}
	if q := queueOn(findProject(a, "vision").Spec.Queues, "h100"); q == nil || !gpuDeserved(q).Equal(v("12")) {
		t.Errorf("vision's h100 queue: %+v", q)
	}
	// The plan's snapshot is not changed: not the queues it shares with
	// the after-state, nor their resources.
	if queueOn(findDept(p.Snapshot, "platform").Spec.Queues, "l4") != nil {
		t.Error("the target changed the plan's snapshot")
	}
	if q := queueOn(findProject(p.Snapshot, "vision").Spec.Queues, "h100"); !gpuDeserved(q).Equal(v("10")) {
		t.Errorf("the target changed vision's h100 queue in the plan's snapshot: %v", gpuDeserved(q))
	}
	// Objects the plan does not change are shared, not copied.
	if &findProject(a, "speech").Spec.Queues[0] != &findProject(p.Snapshot, "speech").Spec.Queues[0] {
		t.Error("the target copied the queues of a project the plan does not change")
	}
}

// findPool, findDept and findProject return the object of a name in s,
// added when s has none.
func findPool(s *snapshot.State, name string) *tenancy.NodePool {
	for i := range s.NodePools {
		if s.NodePools[i].Metadata.Name == name {
			return &s.NodePools[i]
		}
	}
	s.NodePools = append(s.NodePools, tenancy.NodePool{Metadata: tenancy.Meta{Name: name}})
	return &s.NodePools[len(s.NodePools)-1]
}

func findDept(s *snapshot.State, name string) *tenancy.Department {
	for i := range s.Departments {
		if s.Departments[i].Metadata.Name == name {
			return &s.Departments[i]
		}
	}
	s.Departments = append(s.Departments, tenancy.Department{Metadata: tenancy.Meta{Name: name}})
	return &s.Departments[len(s.Departments)-1]
}

func findProject(s *snapshot.State, name string) *tenancy.Project {
	for i := range s.Projects {
		if s.Projects[i].Metadata.Name == name {
			return &s.Projects[i]
		}
	}
	s.Projects = append(s.Projects, tenancy.Project{Metadata: tenancy.Meta{Name: name}})
	return &s.Projects[len(s.Projects)-1]
}
