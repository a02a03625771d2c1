package script

import (
	"strings"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
)

func TestPatchScriptHeaderNamesGitOpsOwnedObjects(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("a", 64), Snapshot: snapshot.State{Source: snapshot.Source{Kind: "cluster", Context: "prod"}},
		Findings: []planner.Finding{
			{Code: planner.CodeGitOpsOwned, Level: planner.LevelWarning, Object: "Project/a", Message: "project a is owned by Argo CD (argocd.argoproj.io/instance=t): a live patch to it is put back"},
			{Code: "unassigned-share", Level: planner.LevelNote, Message: "not in the header"},
		}}
	script := string(PatchScript(p))
	want := "# WARNING: project a is owned by Argo CD (argocd.argoproj.io/instance=t): a live patch to it is put back\nset -eu\n"
	if !strings.Contains(script, want) || strings.Contains(script, "not in the header") {
		t.Errorf("script header:\n%s\nwant the line\n%s", script, want)
	}
	p.Findings = p.Findings[1:]
	if script := string(PatchScript(p)); strings.Contains(script, "WARNING") {
		t.Errorf("a plan without GitOps-owned objects:\n%s", script)
	}
}
