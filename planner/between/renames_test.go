package between

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/planner"
)

// renameBase is a tenancy whose project nlp has a derived queue name and
// no spec.namespace (so its namespace is team-nlp, by the KRMConfig's
// prefix), and whose project vision names its queue.
var renameBase = func() string {
	b, err := os.ReadFile("testdata/rename-base.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// refsRepo is a repository whose main holds base and whose branch pr
// holds head, both as tenancy.yaml.
func refsRepo(t *testing.T, base, head string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "tenancy.yaml")
	gitIn(t, dir, "init", "-q", "-b", "main")
	for i, s := range []string{base, head} {
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			gitIn(t, dir, "checkout", "-q", "-b", "pr")
		}
		gitIn(t, dir, "add", "tenancy.yaml")
		gitIn(t, dir, "commit", "-q", "-m", "tenancy")
	}
	return dir
}

// replace is s with old replaced by new once; it fails when s lacks old.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the tenancy has no %q", old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestRenameIsTheMovedPlan: a project renamed in the YAML (its queues with
// derived names, its namespace named) plans exactly as the moved block of
// desired.hcl: the same changes (the destroy marked moved), findings and
// steps.
func TestRenameIsTheMovedPlan(t *testing.T) {
	head := replace(t, renameBase, "  name: nlp\nspec:\n", "  name: language\nspec:\n  namespace: team-nlp\n")
	repo := refsRepo(t, renameBase, head)
	between, err := Plan(gitSnapshot(t, repo, "main"), gitSnapshot(t, repo, "pr"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ov, diags := config.Load("desired.hcl", []byte("moved {\n  from = \"nlp\"\n  to   = \"language\"\n}\n"), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	desired, diags := planner.Build(gitSnapshot(t, repo, "main"), ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if between.Summary != desired.Summary || !between.OrderVerified || !desired.OrderVerified || between.Summary.Errors > 0 {
		t.Errorf("summary %+v verified %v, desired.hcl gives %+v verified %v", between.Summary, between.OrderVerified, desired.Summary, desired.OrderVerified)
	}
	// A moved block has no file =: the splice places its project as it
	// places a new one. The head says where it is written.
	for i := range between.Changes {
		between.Changes[i].File = ""
	}
	bc, bf, bs := comparable(t, between)
	dc, df, ds := comparable(t, desired)
	for _, c := range []struct{ what, got, want string }{{"changes", bc, dc}, {"findings", bf, df}, {"steps", bs, ds}} {
		if c.got != c.want {
			t.Errorf("the %s between the refs:\n%s\nare not those of the moved block:\n%s", c.what, c.got, c.want)
		}
	}
	if !strings.Contains(bf, "warning moved-project Project/nlp") || !strings.Contains(bc, `"moved_to": "language"`) {
		t.Errorf("no rename planned:\n%s\n%s", bc, bf)
	}
}

// TestRenameRefused: the renames krmplan cannot plan as a moved block does
// are findings that name both projects and the queue, never a silent
// removal and creation.
func TestRenameRefused(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"explicit queue name kept", "  name: vision\n", "  name: sight\n",
			`error rename-queue-name-taken Project/sight "vision-h100" "h100" "": project vision is removed and project sight is added with its queue name vision-h100: KRM cannot rename a project, and while vision's Queue vision-h100 exists (KRM deletes it after the project) KRM names sight's queue vision-h100 plus "-" and 4 random characters, for good (a project's Queue is found by its labels, then by name only when no other object owns one); rename it in two pull requests: remove vision, and once its Queues are gone add sight with the queue names, or give sight's queues derived names (name: "") and spec.namespace: vision to plan it as a rename`},
		{"renamed and changed", "  name: nlp\nspec:\n  parent: research\n  queues:\n    - name: \"\"\n      nodepool: h100\n      priority: 100\n",
			"  name: language\nspec:\n  namespace: team-nlp\n  parent: research\n  queues:\n    - name: \"\"\n      nodepool: h100\n      priority: 50\n",
			`error rename-with-changes Project/language "" "" "": project language renames project nlp (the same queues, nlp-h100 to language-h100, and its namespace team-nlp), but changes its queue on node pool h100: KRM cannot rename a project, and krmplan plans a rename (created, the namespace relabelled, the old one removed) only of the project as it is; rename it in one pull request and change it in the next`},
		{"namespace not carried", "  name: nlp\n", "  name: language\n",
			`warning rename-namespace-not-carried Project/language "" "" "": project language has project nlp's queues (nlp-h100 to language-h100) but not its namespace: KRM cannot rename a project, so this plan removes nlp and creates language with namespace team-language, and team-nlp stays with its workloads, labelled kai/project=nlp; to rename nlp with its namespace, set spec.namespace: team-nlp on language (the plan is then a rename: the namespace relabelled between the create and the remove)`},
		{"queue entry renamed", "    - name: vision-h100\n", "    - name: vision-big\n",
			`warning queue-name-kept Project/vision "vision-big" "h100" "": project vision's queue on node pool h100 is renamed from "vision-h100" to "vision-big" in the spec, but KRM finds the Queue it made by its labels (the project and the node pool) and keeps its name vision-h100: no Queue vision-big is made, the checks and messages name it vision-big, and workloads keep naming vision-h100; to get a Queue named vision-big, remove the entry in one plan (a removed block, or a pull request) and add it again in the next`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := refsRepo(t, renameBase, replace(t, renameBase, c.old, c.new))
			p, err := Plan(gitSnapshot(t, repo, "main"), gitSnapshot(t, repo, "pr"), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, findings, _ := comparable(t, p)
			if !strings.Contains(findings, c.want+" (present before false") {
				t.Errorf("the findings:\n%s\nlack\n%s", findings, c.want)
			}
			for i := range p.Changes {
				if p.Changes[i].MovedTo != "" {
					t.Errorf("change %d is planned as a rename: %+v", i, p.Changes[i])
				}
			}
			if strings.HasPrefix(c.want, "error") && (p.OrderVerified || p.Renderable()) {
				t.Errorf("an error finding, but verified %v renderable %v", p.OrderVerified, p.Renderable())
			}
		})
	}
}
