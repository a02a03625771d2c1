package script

import (
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// renameTenancy is a pool, a department and project nlp with an unnamed
// queue, which a moved block may rename.
const renameTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: h100}
spec: {labelKey: pool, labelValue: h100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: research}
spec:
  queues:
    - name: research-h100
      nodepool: h100
      resources: {gpu: {deserved: 8, limit: 8, overQuotaWeight: 1}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: nlp}
spec:
  parent: research
  namespace: nlp
  queues:
    - name: ""
      nodepool: h100
      resources: {gpu: {deserved: 2, limit: 8, overQuotaWeight: 1}}
`

// The delete of a renamed project is refused either in its checks,
// before the relabel, or itself, after it: both say the same, written
// once as the step's function, which each refusal calls.
func TestRenameStepWritesItsReportOnce(t *testing.T) {
	p := plantest.Plan(t, plantest.State(t, "tenancy.yaml", []byte(renameTenancy)), "moved.hcl",
		[]byte("moved {\n  from = \"nlp\"\n  to   = \"language\"\n}\n"))
	script := render(t, p)
	for _, tc := range []struct {
		text string
		n    int
	}{
		{"krmplan_say 'step 2/2 failed: kubectl refused the delete of Project nlp'\n", 1},
		{"krmplan_guards 'Project nlp' projects.kai.resources nlp \\\n", 1},
		{"'changed since the snapshot: gpu.deserved of queue nlp-h100 (node pool h100) (/spec/queues/0/resources/gpu/deserved): the plan read 2'", 1},
		{"\n# what step 2/2 says when kubectl refuses the delete, in its checks or itself\nkrmplan_refused_2() {\n", 1},
		{"\nif [ $? -ne 0 ]; then\n\tkrmplan_refused_2\n\tkrmplan_failed 2\nfi\n", 1},
		{"\nif [ $? -ne 0 ]; then\n\tkrmplan_refused_2\n\tkrmplan_giveback nlp 'kai/project' language nlp ", 1},
	} {
		if n := strings.Count(script, tc.text); n != tc.n {
			t.Errorf("%d times in the script, want %d:\n%s\nscript:\n%s", n, tc.n, tc.text, script)
		}
	}
}

// The way on names the desired file as the plan recorded it, and says so:
// it is a path from where krmplan plan ran, not from where the script
// runs; a plan with variables needs its flags again.
func TestReplanSaysTheDesiredFileIsAsRecorded(t *testing.T) {
	const snap = "krmplan snapshot --context 'prod' -o state.json, then krmplan plan "
	for _, tc := range []struct {
		desired planner.Desired
		want    string
	}{
		{planner.Desired{File: "../plans/move.hcl"},
			snap + "'../plans/move.hcl' --state state.json --out plan.json (the desired file as the plan recorded it, from the folder krmplan plan ran in)"},
		{planner.Desired{File: "move.hcl", Variables: map[string]string{"cards": "4"}},
			snap + "'move.hcl' --state state.json --out plan.json (the desired file as the plan recorded it, from the folder krmplan plan ran in; with the --var and --var-file flags of that plan)"},
		{planner.Desired{},
			snap + "your desired file --state state.json --out plan.json"},
	} {
		if got := replan(&planner.Plan{Desired: tc.desired}, prod); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.desired, got, tc.want)
		}
	}
}

// The way on of a plan between two git refs is the same plan --git-repo
// command, with the refs, the repository and the --tenancy paths as the
// snapshots recorded them (each a quoted word) and the plan's forced
// removals; it says that the base is read from git, and, when the base
// had cluster data, that a file of it goes with the command.
func TestReplanOfARefsPlanIsTheRefsCommand(t *testing.T) {
	none := []snapshot.NotRead{{What: snapshot.SourceNodes, Reason: snapshot.NoCluster}}
	for _, tc := range []struct {
		base, head snapshot.Source
		notRead    []snapshot.NotRead
		desired    planner.Desired
		want       string
	}{
		{snapshot.Source{Repo: "/srv/my repo", Ref: "main", Paths: []string{"tenancy/", "extra.yaml"}}, snapshot.Source{Ref: "HEAD"}, none, planner.Desired{},
			"krmplan plan --git-repo '/srv/my repo' --base 'main' --head 'HEAD' --tenancy 'tenancy/' --tenancy 'extra.yaml' --out plan.json" +
				" (a plan between git refs reads its base from git, not from the cluster: the base 'main' must first hold what the cluster holds now)"},
		// Cluster data (none of the sources marked NoCluster), forced
		// removals, a ref with a quote, and a snapshot of an older
		// krmplan without paths: the files of both refs, each once.
		{snapshot.Source{Repo: "/r", Ref: "it's", Files: []snapshot.SourceFile{{Path: "a.yaml"}, {Path: "b.yaml"}}},
			snapshot.Source{Ref: "pr", Files: []snapshot.SourceFile{{Path: "b.yaml"}, {Path: "c.yaml"}}},
			[]snapshot.NotRead{{What: snapshot.SourceNamespaces, Reason: "forbidden"}},
			planner.Desired{ForceRemovals: []tenancy.RemovalAddr{{Object: tenancy.KindProject.Object("legacy")}, {Object: tenancy.KindDepartment.Object("x"), Pool: "h100"}}},
			"krmplan plan --git-repo '/r' --base 'it'\\''s' --head 'pr' --tenancy 'a.yaml' --tenancy 'b.yaml' --tenancy 'c.yaml' --cluster-data FILE" +
				" --force-removal 'project=legacy' --force-removal 'department=x,queue=h100' --out plan.json" +
				" (a plan between git refs reads its base from git, not from the cluster: the base 'it'\\''s' must first hold what the cluster holds now, and FILE the cluster's nodes, queues and namespaces now)"},
	} {
		p := &planner.Plan{Desired: tc.desired, Snapshot: &snapshot.State{Source: tc.base, NotRead: tc.notRead}, Head: &snapshot.State{Source: tc.head}}
		if got := replan(p, prod); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.base, got, tc.want)
		}
	}
}
