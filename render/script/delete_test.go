package script

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// A delete step is krmplan_delete with the object's tests (the snapshot's
// uid among them), and on a refusal the report of each test.
func TestDeleteStep(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("d", 64), Snapshot: &snapshot.State{Source: snapshot.Source{Kind: "cluster", Context: "prod"}},
		Steps: []planner.Step{{Phase: planner.PhaseRemoveProjects, Action: planner.StepDelete, Object: tenancy.KindProject.Object("legacy"),
			Ops: []planner.Op{{Op: "test", Path: "/metadata/uid", Value: json.RawMessage(`"0da295b5-6d0f-4031-8897-009f50cadbed"`)},
				{Op: "test", Path: "/spec/queues/0/name", Value: json.RawMessage(`"it's"`)}}}}}
	b, err := PatchScript(p, Options{Cluster: Cluster{Context: "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		"# A deletion first tests the object as read (a server dry run), then deletes it\n",
		"\nkrmplan_delete projects.kai.resources legacy /apis/kai.resources/v1alpha1/projects/legacy '[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"0da295b5-6d0f-4031-8897-009f50cadbed\"},{\"op\":\"test\",\"path\":\"/spec/queues/0/name\",\"value\":\"it'\\''s\"}]'\n",
		`printf '{"apiVersion":"v1","dryRun":["All"],"kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n' "$krmplan_uid" |`,
		"krmplan_say 'step 1/1 failed: kubectl refused the delete of Project legacy'\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the script lacks\n%s\nscript:\n%s", want, got)
		}
	}
	c, err := Commands(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "# 1/1 removing projects and project queues: Project legacy\n" +
		"kubectl --context 'prod' patch projects.kai.resources legacy --type=json --dry-run=server -p '[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"0da295b5-6d0f-4031-8897-009f50cadbed\"},{\"op\":\"test\",\"path\":\"/spec/queues/0/name\",\"value\":\"it'\\''s\"}]'\n" +
		"# then DELETE /apis/kai.resources/v1alpha1/projects/legacy, a dry run first, with preconditions.uid = its uid\n"
	if string(c) != want {
		t.Errorf("Commands:\n%s\nwant:\n%s", c, want)
	}
}
