package script

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	want := "# WARNING: project a is owned by Argo CD (argocd.argoproj.io/instance=t): a live patch to it is put back\nset -u\n"
	if !strings.Contains(script, want) || strings.Contains(script, "not in the header") {
		t.Errorf("script header:\n%s\nwant the line\n%s", script, want)
	}
	p.Findings = p.Findings[1:]
	if script := render(t, p); strings.Contains(script, "WARNING") {
		t.Errorf("a plan without GitOps-owned objects:\n%s", script)
	}
}

// prod is the options of a script for context prod, whose rollback is
// apply.rollback.sh.
var prod = Options{Cluster: Cluster{Context: "prod", From: "the snapshot's context"}, Rollback: "apply.rollback.sh"}

// render is PatchScript's script of p for context prod, which must
// render.
func render(t *testing.T, p *planner.Plan) string {
	t.Helper()
	b, err := PatchScript(p, prod)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hostilePlan is a plan whose ref, repository path, desired file and
// phase hold newlines and shell syntax, and whose queue name holds a
// quote, non-ASCII text and ESC.
func hostilePlan() *planner.Plan {
	return &planner.Plan{PlanID: strings.Repeat("b", 64),
		Snapshot: &snapshot.State{Source: snapshot.Source{Kind: "git", Repo: "/srv/repo\ntouch pwned\n#", Ref: "HEAD^{/x\ntouch pwned}",
			Commit: strings.Repeat("c", 40)}},
		Desired:  planner.Desired{File: "d'$(touch pwned)\n.hcl"},
		Findings: []planner.Finding{{Code: planner.CodeGitOpsOwned, Message: "project a is owned by Argo CD (argocd.argoproj.io/instance=x\x1b[2K)"}},
		Steps: []planner.Step{{Phase: planner.Phase("shrinking projects\n"), Action: planner.StepPatch, Object: tenancy.KindProject.Object("a"),
			Ops: []planner.Op{{Op: "test", Path: "/spec/queues/0/name", Value: json.RawMessage(`"a'b é\u001b"`)}}}},
	}
}

// hostileOptions are a context and a kubeconfig with quotes and shell
// syntax, and a rollback file with a quote.
var hostileOptions = Options{Cluster: Cluster{Context: "it's $(touch pwned)", Kubeconfig: "/k'c", From: "--context at render"}, Rollback: "out/a'b.rollback.sh"}

// The header escapes the input, the context and the kubeconfig are each
// one quoted word, the reports' texts are quoted words with their control
// characters escaped, and the queue name stays inside the patch's single
// quotes, its non-ASCII text and ESC as \u escapes.
func TestPatchScriptQuotesAndEscapesInput(t *testing.T) {
	p := hostilePlan()
	o := hostileOptions
	o.Cluster.Context += "\u2028"
	if _, err := PatchScript(p, o); err == nil || err.Error() != `the cluster context "it's $(touch pwned)\u2028" holds a control character: kubectl --context would get a name the script cannot show; use a name without one` {
		t.Fatalf("a context with U+2028: %v", err)
	}
	want := `#!/bin/sh
# krmplan patch script for plan bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
# snapshot: git /srv/repo\ntouch pwned\n# at HEAD^{/x\ntouch pwned} (commit cccccccccccccccccccccccccccccccccccccccc)
# cluster: every kubectl call runs with --context it's $(touch pwned) --kubeconfig /k'c (--context at render)
# 1 step in phases (new node pools, shrinking projects, shrinking departments,
# growing departments, growing projects); every intermediate state was
# verified against the checks. Each patch first tests the values it changes:
# if one changed since the snapshot, kubectl refuses that step, and the script
# stops and says which value changed, which steps were applied and how to go on.
# Exit code: 0 every step applied; 10+N step N failed (250 for a step past 239); 2 an argument given (it takes none).
# New objects get the annotation krmplan/plan=<plan id>: the rollback
# script (out/a'b.rollback.sh) deletes only those.
# WARNING: project a is owned by Argo CD (argocd.argoproj.io/instance=x\x1b[2K)
set -u

krmplan_total=1
` + replanLine + `
` + rollbackLine + `

krmplan_kubectl() { kubectl --kubeconfig '/k'\''c' --context 'it'\''s $(touch pwned)' "$@"; }

` + library + "\n" + applyLibrary + `
# 1/1 shrinking projects\n: Project a
krmplan_say 'step 1/1: shrinking projects\n: Project a'
kubectl --kubeconfig '/k'\''c' --context 'it'\''s $(touch pwned)' patch projects.kai.resources a --type=json --field-manager=krmplan -p '[{"op":"test","path":"/spec/queues/0/name","value":"a'\''b \u00e9\u001b"}]'
if [ $? -ne 0 ]; then
	krmplan_say 'step 1/1 failed: kubectl refused the patch of Project a'
	krmplan_guards 'Project a' projects.kai.resources a \
		'[{"op":"test","path":"/spec/queues/0/name","value":"a'\''b \u00e9\u001b"}]' '{.spec.queues[0].name}' 'changed since the snapshot: the name of queue 0 (/spec/queues/0/name): the plan read a'\''b é\x1b'
	krmplan_failed 1
fi

krmplan_say 'all 1 step applied'
exit 0
`
	b, err := PatchScript(p, hostileOptions)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != want {
		t.Errorf("script:\n%s\nwant:\n%s", got, want)
	}
}

// replanLine and rollbackLine are the report's variables of the hostile
// plan: each a quoted word of a text that shell-quotes the names in it.
const (
	replanLine   = `krmplan_replan='krmplan snapshot --kubeconfig '\''/k'\''\'\'''\''c'\'' --context '\''it'\''\'\'''\''s $(touch pwned)'\'' -o state.json, then krmplan plan '\''d'\''\'\'''\''$(touch pwned)\n.hcl'\'' --state state.json --out plan.json (the desired file as the plan recorded it, from the folder krmplan plan ran in)'`
	rollbackLine = `krmplan_rollback=''\''a'\''\'\'''\''b.rollback.sh'\'''
case $0 in */*) krmplan_rollback="${0%/*}/$krmplan_rollback" ;; esac`
)

// The report's variables hold, for sh, the texts a person reads: the
// commands to copy, each name in them one quoted word.
func TestReportVariablesReadAsText(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	file := filepath.Join(t.TempDir(), "vars.sh")
	src := replanLine + "\n" + rollbackLine + "\nprintf '%s\\n' \"$krmplan_replan\" \"$krmplan_rollback\"\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", file).Output()
	// The rollback is named from the folder the script was run from.
	want := `krmplan snapshot --kubeconfig '/k'\''c' --context 'it'\''s $(touch pwned)' -o state.json, then krmplan plan 'd'\''$(touch pwned)\n.hcl' --state state.json --out plan.json (the desired file as the plan recorded it, from the folder krmplan plan ran in)
` + filepath.Dir(file) + `/'a'\''b.rollback.sh'
`
	if err != nil || string(out) != want {
		t.Errorf("sh printed %q, %v; want %q", out, err, want)
	}
}

// A script names its context: without one it is refused.
func TestPatchScriptNeedsAContext(t *testing.T) {
	p := &planner.Plan{PlanID: strings.Repeat("b", 64), OrderVerified: true, Snapshot: &snapshot.State{Source: snapshot.Source{Kind: "git"}}}
	for _, f := range []func(*planner.Plan, Options) ([]byte, error){PatchScript, RollbackScript} {
		if _, err := f(p, Options{}); err == nil || err.Error() != "no cluster context: a patch script names the context it runs against" {
			t.Errorf("no context: %v", err)
		}
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
		if _, err := PatchScript(p, prod); err == nil || err.Error() != tc.want {
			t.Errorf("%+v:\n got %v\nwant %s", tc.step, err, tc.want)
		}
	}
}

// A here-document ends only at its delimiter: a line of the body equal to
// KRMPLAN_EOF gets a longer delimiter.
func TestHereDocDelimiter(t *testing.T) {
	var w shell
	w.hereDoc([]byte("a\nKRMPLAN_EOF\nKRMPLAN_EOF_\nb"), []word{"kubectl", "create", "-f", "-"})
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
