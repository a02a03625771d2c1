package tenancy

import (
	"fmt"
	"strings"
	"testing"
)

// diffLines is each change as "action field before -> after [queue@pool] [new] [file]".
func diffLines(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		fmt.Fprintf(&b, "%s %s %s -> %s", c.Action, c.Field, c.Before, c.After)
		if c.Queue != "" {
			fmt.Fprintf(&b, " [%s@%s]", c.Queue, c.Pool)
		}
		if c.NewQueue {
			b.WriteString(" new")
		}
		if c.File != "" {
			b.WriteString(" " + c.File)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	prio := int32(50)
	cases := []struct {
		name string
		edit func(h *Tenancy)
		want string
	}{
		{"no change", func(*Tenancy) {}, ""},
		{"values", func(h *Tenancy) {
			h.Projects[0].Spec.Queues[0].Resources.GPU = &Resource{Deserved: num("2"), Limit: num("4")}
			h.Projects[0].Spec.Queues[0].Priority = &prio
			h.Projects[1].Spec.Namespace = "team-c"
		}, `update Project/a queue 0 priority null -> 50 [a-rtx@rtx]
update Project/a queue 0 gpu.deserved 3 -> 2 [a-rtx@rtx]
update Project/a queue 0 gpu.limit null -> 4 [a-rtx@rtx]
update Project/c namespace null -> "team-c"
`},
		{"new project and queue", func(h *Tenancy) {
			h.Projects = append(h.Projects[:1:1], Project{Metadata: Meta{Name: "b"}, Origin: &Origin{File: "t/b.yaml", Line: 1},
				Spec: ProjectSpec{Parent: "ml", Queues: []Queue{{Name: "b-rtx", NodePool: "rtx", Resources: Resources{GPU: &Resource{Deserved: num("1")}}}}}}, h.Projects[1])
			h.Departments[0].Spec.Queues = append(h.Departments[0].Spec.Queues, Queue{NodePool: "cpu", Resources: Resources{CPU: &Resource{Deserved: num("-1")}}})
		}, `create Department/ml queue 1 name null -> "" [ml-cpu@cpu] new
create Department/ml queue 1 nodepool null -> "cpu" [ml-cpu@cpu] new
create Department/ml queue 1 cpu.deserved null -> -1 [ml-cpu@cpu] new
create Project/b parent null -> "ml" t/b.yaml
create Project/b queue 0 name null -> "b-rtx" [b-rtx@rtx] t/b.yaml
create Project/b queue 0 nodepool null -> "rtx" [b-rtx@rtx] t/b.yaml
create Project/b queue 0 gpu.deserved null -> 1 [b-rtx@rtx] t/b.yaml
`},
		{"removed project and queue", func(h *Tenancy) {
			h.Projects = h.Projects[:1]
			h.Projects[0].Spec.Queues = nil
		}, `destroy Project/a queue 0 name "a-rtx" -> null [a-rtx@rtx]
destroy Project/c metadata.name "c" -> null
`},
		{"queue moved to another index", func(h *Tenancy) {
			h.Projects[0].Spec.Queues = []Queue{{Name: "a-cpu", NodePool: "cpu"}, h.Projects[0].Spec.Queues[0], {Name: "a-big", NodePool: "big"}}
		}, `create Project/a queue 2 name null -> "a-cpu" [a-cpu@cpu] new
create Project/a queue 2 nodepool null -> "cpu" [a-cpu@cpu] new
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := small()
			if c.name == "queue moved to another index" {
				base.Projects[0].Spec.Queues = append(base.Projects[0].Spec.Queues, Queue{Name: "a-big", NodePool: "big"})
			}
			head := small()
			if c.name == "queue moved to another index" {
				head.Projects[0].Spec.Queues = append(head.Projects[0].Spec.Queues, Queue{Name: "a-big", NodePool: "big"})
			}
			c.edit(head)
			changes, err := Diff(base, head)
			if err != nil {
				t.Fatal(err)
			}
			if got := diffLines(changes); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			after, err := Apply(base, changes)
			if err != nil {
				t.Fatalf("the changes do not apply to the base: %v", err)
			}
			if c.name == "queue moved to another index" {
				return // the base's order of spec.queues is kept
			}
			for i := range head.Projects {
				head.Projects[i].Origin = nil
			}
			for i := range after.Projects {
				after.Projects[i].Origin = nil
			}
			if got, want := jsonOf(t, after), jsonOf(t, head); got != want {
				t.Errorf("Apply(base, Diff(base, head)) is not head:\n%s\n%s", got, want)
			}
		})
	}
}

func TestDiffRefuses(t *testing.T) {
	head := small()
	head.NodePools[0].Spec.LabelValue = "rtx2"
	head.Projects[0].Spec.Queues[0].Resources.GPU.Deserved = nil
	head.Projects[1].Spec.Queues[0].Resources.GPU.Deserved = num("2")
	head.Projects[1].Spec.Queues = append(head.Projects[1].Spec.Queues[:0:0], Queue{Name: "c-cpu", NodePool: "cpu"})
	_, err := Diff(small(), head)
	want := `NodePool/rtx: the label pair changes from gpu=rtx to gpu=rtx2; KRM does not allow changing a node pool's label pair after creation (create a new pool instead)
Project/a: the head removes gpu.deserved of queue a-rtx (3); krmplan plans a new value, not a field's removal: write the number (KRM reads an omitted one as 0)
Project/c: the head removes its queue on node pool "rtx" and changes its other queues; the queues after a removed one move up, so remove the queue in one change and change the others in the next`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestDiffRefusesSingletons: a setting of KRM's singletons that the head
// changes, as KRM reads it, is refused with both values; one written out
// at KRM's default, or set through extraArgs to the same value, is none.
func TestDiffRefusesSingletons(t *testing.T) {
	yes, no := true, false
	base := small()
	base.ManagedNodes = &ManagedNodesConfig{Metadata: Meta{Name: "kai-managed-nodes-config"}, Terms: []NodeSelectorTerm{{MatchExpressions: []NodeSelectorRequirement{{Key: "gpu", Operator: "In", Values: []string{"rtx"}}}}}}
	base.KRMConfig = &KRMConfig{Metadata: Meta{Name: "krm-config"}, CreateNamespaces: &yes}
	same := small()
	same.ManagedNodes = &ManagedNodesConfig{Metadata: Meta{Name: "kai-managed-nodes-config"}, Terms: base.ManagedNodes.Terms, Origin: &Origin{File: "other.yaml", Line: 9}}
	same.KRMConfig = &KRMConfig{Metadata: Meta{Name: "krm-config"}, ProjectNamePrefix: "kai", ProjectLabelKey: "kai/project"}
	if _, err := Diff(base, same); err != nil {
		t.Errorf("the same settings, written otherwise: %v", err)
	}
	head := small()
	head.ManagedNodes = &ManagedNodesConfig{Metadata: Meta{Name: "kai-managed-nodes-config"}, Terms: []NodeSelectorTerm{
		{MatchExpressions: []NodeSelectorRequirement{{Key: "gpu", Operator: "In", Values: []string{"rtx", "h100"}}}},
		{MatchExpressions: []NodeSelectorRequirement{{Key: "pool", Operator: "Exists"}}}}}
	head.KRMConfig = &KRMConfig{Metadata: Meta{Name: "krm-config"}, ProjectNamePrefix: "team", CreateNamespaces: &no}
	_, err := Diff(base, head)
	want := `ManagedNodesConfig/kai-managed-nodes-config: spec.inclusion_criteria.nodeSelectorTerms changes from (gpu In [rtx]) to (gpu In [rtx h100]) or (pool Exists); krmplan plans node pools, departments and projects, not KRM's singletons: change it in a pull request of its own and review that by hand
KRMConfig/krm-config: spec.projectController.args.projectNamePrefix changes from "kai" (KRM's default) to "team"; krmplan plans node pools, departments and projects, not KRM's singletons: change it in a pull request of its own and review that by hand
KRMConfig/krm-config: spec.projectController.features.createNamespaces changes from "true" (KRM's default) to "false"; krmplan plans node pools, departments and projects, not KRM's singletons: change it in a pull request of its own and review that by hand`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	head.ManagedNodes, head.KRMConfig = nil, nil
	_, err = Diff(base, head)
	if want := "ManagedNodesConfig/kai-managed-nodes-config: spec.inclusion_criteria.nodeSelectorTerms changes from (gpu In [rtx]) to absent; "; err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "KRMConfig/") {
		t.Errorf("got  %v\nwant %s… and no KRMConfig line (absent is KRM's defaults)", err, want)
	}
}
