package script

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

func TestPatchScriptHeaderNamesGitOpsOwnedObjects(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("a", 64), Snapshot: &snapshot.State{Source: snapshot.Source{Kind: "cluster", Context: "prod"}},
		Findings: []planner.Finding{
			{Code: planner.CodeGitOpsOwned, Level: planner.LevelWarning, Object: tenancy.KindProject.Object("a"), Message: "project a is owned by Argo CD (argocd.argoproj.io/instance=t): a live patch to it is put back"},
			{Code: "unassigned-share", Level: planner.LevelNote, Message: "not in the header"},
		}}
	script := render(t, p)
	want := "# WARNING: project a is owned by Argo CD (argocd.argoproj.io/instance=t): a live patch to it is put back\nset -eu\n"
	if !strings.Contains(script, want) || strings.Contains(script, "not in the header") {
		t.Errorf("script header:\n%s\nwant the line\n%s", script, want)
	}
	p.Findings = p.Findings[1:]
	if script := render(t, p); strings.Contains(script, "WARNING") {
		t.Errorf("a plan without GitOps-owned objects:\n%s", script)
	}
}

// render is PatchScript's script of p, which must render.
func render(t *testing.T, p *planner.Plan) string {
	t.Helper()
	b, err := PatchScript(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A plan whose ref, repository path and context hold newlines and shell
// syntax: the header escapes them, the context is one quoted word, and a
// queue name with a quote and non-ASCII text stays inside the patch's
// single quotes, as \u escapes.
func TestPatchScriptQuotesAndEscapesInput(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("b", 64),
		Snapshot: &snapshot.State{Source: snapshot.Source{Kind: "git", Repo: "/srv/repo\ntouch pwned\n#", Ref: "HEAD^{/x\ntouch pwned}",
			Commit: strings.Repeat("c", 40), Context: "it's $(touch pwned)\u2028"}},
		Findings: []planner.Finding{{Code: planner.CodeGitOpsOwned, Message: "project a is owned by Argo CD (argocd.argoproj.io/instance=x\x1b[2K)"}},
		Steps: []planner.Step{{Phase: planner.Phase("shrinking projects\n"), Action: planner.StepPatch, Object: tenancy.KindProject.Object("a"),
			Ops: []planner.Op{{Op: "test", Path: "/spec/queues/0/name", Value: json.RawMessage(`"a'b é"`)}}}},
	}
	if _, err := PatchScript(p); err == nil || err.Error() != `the snapshot's cluster context "it's $(touch pwned)\u2028" holds a control character: kubectl --context would get a name the script cannot show; use a context name without one` {
		t.Fatalf("a context with U+2028: %v", err)
	}
	p.Snapshot.Source.Context = "it's $(touch pwned)"
	want := `#!/bin/sh
# krmplan patch script for plan bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
# snapshot: git /srv/repo\ntouch pwned\n# at HEAD^{/x\ntouch pwned} (commit cccccccccccccccccccccccccccccccccccccccc)
# 1 step in phases (new node pools, shrinking projects, shrinking departments,
# growing departments, growing projects); every intermediate state was
# verified against the checks. Each patch first tests the values it changes:
# if one changed since the snapshot, kubectl fails and the script stops.
# WARNING: project a is owned by Argo CD (argocd.argoproj.io/instance=x\x1b[2K)
set -eu

# 1/1 shrinking projects\n: Project a
kubectl --context 'it'\''s $(touch pwned)' patch projects.kai.resources a --type=json --field-manager=krmplan -p '[{"op":"test","path":"/spec/queues/0/name","value":"a'\''b \u00e9"}]'
`
	if got := render(t, p); got != want {
		t.Errorf("script:\n%s\nwant:\n%s", got, want)
	}
}

// Steps that cannot be the plan's kubectl commands are refused, naming
// the step and the value.
func TestPatchScriptRefusesSteps(t *testing.T) {
	manifest := json.RawMessage(`{"apiVersion":"kai.resources/v1alpha1","kind":"Department","metadata":{"name":"d"}}`)
	for _, tc := range []struct {
		step planner.Step
		want string
	}{
		{planner.Step{Action: planner.StepPatch, Object: tenancy.KindProject.Object("a$(touch pwned)")},
			`step 1/1 (Project "a$(touch pwned)"): Project "a$(touch pwned)" is not a valid Kubernetes object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{planner.Step{Action: planner.StepPatch, Object: tenancy.KindProject.Object("a\n")},
			`step 1/1 (Project "a\n"): Project "a\n" is not a valid Kubernetes object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{planner.Step{Action: planner.StepPatch, Object: tenancy.KindKRMConfig.Object("a")},
			`step 1/1 (KRMConfig "a"): kind "KRMConfig" is not a KRM kind krmplan renders (NodePool, Department, Project)`},
		{planner.Step{Action: "apply", Object: tenancy.KindProject.Object("a")},
			`step 1/1 (Project "a"): action "apply" is not patch, create or delete`},
		{planner.Step{Action: planner.StepPatch, Object: tenancy.KindProject.Object("a"), Ops: []planner.Op{{Op: "test", Value: json.RawMessage(`1; touch pwned`)}}},
			`step 1/1 (Project "a"): the patch is not JSON: json: error calling MarshalJSON for type json.RawMessage: invalid character ';' after top-level value`},
		{planner.Step{Action: planner.StepCreate, Object: tenancy.KindDepartment.Object("a"), Manifest: json.RawMessage(`[1]`)},
			`step 1/1 (Department "a"): the manifest is not a JSON object: json: cannot unmarshal array into Go value of type struct { Kind string "json:\"kind\""; Metadata struct { Name string "json:\"name\"" } "json:\"metadata\"" }`},
		{planner.Step{Action: planner.StepCreate, Object: tenancy.KindDepartment.Object("a"), Manifest: manifest},
			`step 1/1 (Department "a"): the manifest is Department "d", not the step's object`},
	} {
		p := &planner.Plan{PlanID: strings.Repeat("a", 64), Snapshot: &snapshot.State{}, Steps: []planner.Step{tc.step}}
		if _, err := PatchScript(p); err == nil || err.Error() != tc.want {
			t.Errorf("%+v:\n got %v\nwant %s", tc.step, err, tc.want)
		}
	}
}

// A here-document ends only at its delimiter: a line of the body equal to
// KRMPLAN_EOF gets a longer delimiter.
func TestHereDocDelimiter(t *testing.T) {
	var w shell
	w.hereDoc([]byte("a\nKRMPLAN_EOF\nKRMPLAN_EOF_\nb"), "kubectl", "create", "-f", "-")
	want := "kubectl create -f - <<'KRMPLAN_EOF__'\na\nKRMPLAN_EOF\nKRMPLAN_EOF_\nb\nKRMPLAN_EOF__\n"
	if got := w.b.String(); got != want {
		t.Errorf("here-document:\n%s\nwant:\n%s", got, want)
	}
}

// asciiJSON keeps the JSON value and writes everything outside ASCII as
// \u escapes, a character above U+FFFF as its surrogate pair and a byte
// that is not UTF-8 as U+FFFD.
func TestASCIIJSON(t *testing.T) {
	got, err := asciiJSON([]byte("{ \"a\": \"é\u2028\U0001f600\xff\x7f\", \"b\": [1, 2.50] }"))
	if want := `{"a":"\u00e9\u2028\ud83d\ude00\ufffd\u007f","b":[1,2.50]}`; err != nil || string(got) != want {
		t.Errorf("asciiJSON = %s, %v; want %s", got, err, want)
	}
}
