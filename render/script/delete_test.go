package script

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// A delete step with the snapshot's uid: the test patch, then the DELETE
// in a dry run and for real, both with the uid as precondition in the body.
func TestDeleteStepWithUID(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("d", 64), Snapshot: &snapshot.State{Source: snapshot.Source{Kind: "cluster", Context: "prod"}},
		Steps: []planner.Step{{Phase: planner.PhaseRemoveProjects, Action: planner.StepDelete, Object: tenancy.KindProject.Object("legacy"),
			Ops: []planner.Op{{Op: "test", Path: "/metadata/uid", Value: json.RawMessage(`"0da295b5-6d0f-4031-8897-009f50cadbed"`)},
				{Op: "test", Path: "/spec/queues/0/name", Value: json.RawMessage(`"it's"`)}}}}}
	got := render(t, p)
	want := `
# 1/1 removing projects and project queues: Project legacy
kubectl --context 'prod' patch projects.kai.resources legacy --type=json -p '[{"op":"test","path":"/metadata/uid","value":"0da295b5-6d0f-4031-8897-009f50cadbed"},{"op":"test","path":"/spec/queues/0/name","value":"it'\''s"}]'
printf '%s\n' '{"apiVersion":"v1","dryRun":["All"],"kind":"DeleteOptions","preconditions":{"uid":"0da295b5-6d0f-4031-8897-009f50cadbed"}}' | kubectl --context 'prod' delete --raw '/apis/kai.resources/v1alpha1/projects/legacy' -f - >/dev/null
echo 'projects.kai.resources/legacy deletion accepted in a server dry run'
printf '%s\n' '{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"0da295b5-6d0f-4031-8897-009f50cadbed"}}' | kubectl --context 'prod' delete --raw '/apis/kai.resources/v1alpha1/projects/legacy' -f - >/dev/null
echo 'projects.kai.resources/legacy deleted'
`
	if !strings.HasSuffix(got, want) {
		t.Errorf("script:\n%s\nwant it to end with:\n%s", got, want)
	}
	if !strings.Contains(got, "# A deletion first tests the object as read, then deletes it with its uid as a\n") {
		t.Errorf("the header does not say how deletions are guarded:\n%s", got)
	}
}

// Without the snapshot's uid (a git snapshot), the script reads it, refuses
// one that is not a uid, and tests and deletes that one.
func TestDeleteStepReadsTheUID(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("d", 64), Snapshot: &snapshot.State{Source: snapshot.Source{Kind: "git"}},
		Steps: []planner.Step{{Phase: planner.PhaseRemovePools, Action: planner.StepDelete, Object: tenancy.KindNodePool.Object("old"),
			Ops: []planner.Op{{Op: "test", Path: "/spec/labelKey", Value: json.RawMessage(`"gpu"`)}}}}}
	got := render(t, p)
	want := `
# 1/1 removing node pools: NodePool old
uid=$(kubectl get nodepools.kai.resources old -o 'jsonpath={.metadata.uid}')
case "$uid" in ''|*[!0-9a-f-]*) echo "krmplan: nodepools.kai.resources old has no uid as read: $uid" >&2; exit 1;; esac
kubectl patch nodepools.kai.resources old --type=json -p '[{"op":"test","path":"/metadata/uid","value":"'"$uid"'"},{"op":"test","path":"/spec/labelKey","value":"gpu"}]'
printf '{"apiVersion":"v1","dryRun":["All"],"kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n' "$uid" | kubectl delete --raw '/apis/kai.resources/v1alpha1/nodepools/old' -f - >/dev/null
echo 'nodepools.kai.resources/old deletion accepted in a server dry run'
printf '{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"%s"}}\n' "$uid" | kubectl delete --raw '/apis/kai.resources/v1alpha1/nodepools/old' -f - >/dev/null
echo 'nodepools.kai.resources/old deleted'
`
	if !strings.HasSuffix(got, want) {
		t.Errorf("script:\n%s\nwant it to end with:\n%s", got, want)
	}
}
