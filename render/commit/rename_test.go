package commit

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/tenancy"
)

// renameDept is department research, with 8 cards on pool h100.
const renameDept = `apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: research}
spec:
  queues:
  - {name: research-h100, nodepool: h100, resources: {gpu: {deserved: 8, limit: 8, overQuotaWeight: 1}}}
`

// renameTenancy is a hand-formatted tenancy: a department, project nlp
// with comments above it, beside and between its values (one naming the
// project, one beside its name), no spec.namespace (KRM's default,
// kai-nlp) and its own indentation, then project vision.
const renameTenancy = renameDept + `---
# NLP: the language team.
# Renamed to "language" this quarter.
apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
   name: nlp   # "nlp" since 2024, "text" before
   labels: {team: language}
spec:
   # the department that pays
   parent: research
   queues:
     - name: ""        # KRM names it nlp-h100
       nodepool: h100
       # two cards, eight at most
       resources: {gpu: {deserved: 2, limit: 8, overQuotaWeight: 1}}
---
# vision
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: vision}
spec:
  parent: research
  queues:
  - {name: "", nodepool: h100, resources: {gpu: {deserved: 2, limit: 8, overQuotaWeight: 1}}}
`

const renameDesired = "moved {\n  from = \"nlp\"\n  to   = \"language\"\n}\n"

// A rename edits nlp's document where it is: its metadata.name (the
// spaces after it re-padded, as for every value edit, so the comment
// keeps its column where it can), and the namespace made explicit
// (kai-nlp, KRM's default for nlp, inserted as yamledit inserts a missing
// key: in its conventional place, first in spec, in the mapping's
// indentation); its comments, its label, its key order and every other
// byte of the file stay. The notes point at the comments
// that still name nlp: the one beside the name (CommentNotes, once), the
// one beside the queue's name; the head comment's "language" is no name
// of nlp.
//
// With Windows line ends the edited document keeps them, and a comment
// directly above the document that names nlp is noted too.
func TestSpliceRenameInPlace(t *testing.T) {
	nameNote := `tenancy.yaml:13: metadata.name of project nlp changed from nlp to language, but the comment on the same line was not reworded: # "nlp" since 2024, "text" before`
	queueNote := "tenancy.yaml:19: project nlp is renamed to language in its document, but the comment on this line still names nlp: # KRM names it nlp-h100"
	crlf := strings.ReplaceAll(strings.Replace(renameTenancy, `# Renamed to "language" this quarter.`, "# nlp is renamed this quarter.", 1), "\n", "\r\n")
	for _, c := range []struct {
		name, src, eol string
		notes          []string
	}{
		{"LF", renameTenancy, "\n", []string{nameNote, queueNote}},
		{"CRLF, a head comment naming nlp", crlf, "\r\n",
			[]string{nameNote, "tenancy.yaml:9: project nlp is renamed to language in its document, but the comment on this line still names nlp: # nlp is renamed this quarter.", queueNote}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := plantest.PlanOn(t, plantest.Repo{"tenancy.yaml": []byte(c.src)}, []string{"tenancy.yaml"}, renameDesired)
			out, sp := spliced(t, fx, Options{})
			want := strings.Replace(c.src, "   name: nlp   # \"nlp\"", "   name: language # \"nlp\"", 1)
			want = strings.Replace(want, "spec:"+c.eol+"   # the department", "spec:"+c.eol+"   namespace: kai-nlp"+c.eol+"   # the department", 1)
			if got := string(out["tenancy.yaml"]); got != want {
				t.Errorf("tenancy.yaml:\n%q\nwant\n%q", got, want)
			}
			sameLines(t, "notes", sp.Notes, c.notes)
			if len(sp.Files) != 1 || sp.Files[0].Created || sp.Files[0].Deleted {
				t.Errorf("files: %+v", sp.Files)
			}
		})
	}
}

// Where the document cannot be edited in place — its metadata.name is a
// YAML alias of its label's value, which splice does not change — the rename is nlp's document
// removed, with its comments, and language's added after the last
// project, as before, and a note says so and why.
func TestSpliceRenameRemoveAndAdd(t *testing.T) {
	src := renameDept + `---
# the language team
apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  labels: {team: &name nlp}
  name: *name
spec:
  namespace: nlp
  parent: research
  queues:
  - {name: "", nodepool: h100, resources: {gpu: {deserved: 2, limit: 8, overQuotaWeight: 1}}}
`
	fx := plantest.PlanOn(t, plantest.Repo{"tenancy.yaml": []byte(src)}, []string{"tenancy.yaml"}, renameDesired)
	out, sp := spliced(t, fx, Options{})
	want := src[:strings.Index(src, "# the language team")] + `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: language
spec:
  namespace: nlp
  parent: research
  queues:
  - {name: "", nodepool: h100, resources: {gpu: {deserved: 2, limit: 8, overQuotaWeight: 1}}}
`
	if got := string(out["tenancy.yaml"]); got != want {
		t.Errorf("tenancy.yaml:\n%s\nwant\n%s", got, want)
	}
	wantNotes := []string{"tenancy.yaml:9: project nlp is renamed to language as a removal of its document, with its comments, and a new document: its document cannot be edited in place (tenancy.yaml:13: metadata.name of project nlp is reached through the YAML alias *name (anchor &name on line 12); splice does not change a value shared through an anchor)"}
	sameLines(t, "notes", sp.Notes, wantNotes)
}

// renameChanges says why a rename's document cannot be edited in place
// when the target puts the new project in another file, or its spec is
// not the old one's with values changed (a queue dropped); the plans of
// desired.hcl never do either, so the fixture's plan is altered.
func TestRenameChangesRefusals(t *testing.T) {
	from, to := tenancy.KindProject.Object("nlp"), tenancy.KindProject.Object("language")
	fx := plantest.PlanOn(t, plantest.Repo{"tenancy.yaml": []byte(renameTenancy)}, []string{"tenancy.yaml"}, renameDesired)
	if _, cs, why := renameChanges(fx.Plan, from, to); why != "" || len(cs) != 2 || cs[0].Pointer != "/metadata/name" || cs[1].Pointer != "/spec/namespace" {
		t.Fatalf("changes %+v, why %q", cs, why)
	}
	for i := range fx.Plan.Changes {
		if c := &fx.Plan.Changes[i]; c.Object() == to {
			c.File = "language.yaml"
		}
	}
	if _, _, why := renameChanges(fx.Plan, from, to); why != `desired.hcl puts language in language.yaml (file = "language.yaml")` {
		t.Errorf("why %q", why)
	}

	fx = plantest.PlanOn(t, plantest.Repo{"tenancy.yaml": []byte(renameTenancy)}, []string{"tenancy.yaml"}, renameDesired)
	_, tx := fx.Plan.Indexes()
	tx.Project("language").Spec.Queues = nil
	if _, _, why := renameChanges(fx.Plan, from, to); why != "its new spec drops nlp's queue on node pool h100" {
		t.Errorf("why %q", why)
	}
}

// A file named after the project that holds only its document is renamed
// with it, as a person would `git mv` it: projects/nlp.yaml is deleted,
// projects/language.yaml holds its bytes with the rename's edits, and the
// kustomization that lists the old name (the folder's, or the root's by
// its path) lists the new one in its place.
func TestSpliceRenameMovesItsFile(t *testing.T) {
	nlp := "# the language team\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata:\n  name: nlp\nspec:\n  parent: research\n  namespace: nlp   # shared with the notebooks\n  queues:\n  - {name: \"\", nodepool: h100, resources: {gpu: {deserved: 2, limit: 8, overQuotaWeight: 1}}}\n"
	vision := strings.NewReplacer("language team", "vision team", "name: nlp", "name: vision", "namespace: nlp   # shared with the notebooks", "namespace: vision").Replace(nlp)
	repo := plantest.Repo{"research.yaml": []byte(renameDept), "projects/nlp.yaml": []byte(nlp), "projects/vision.yaml": []byte(vision),
		"projects/kustomization.yaml": []byte("resources:\n  - nlp.yaml\n  - vision.yaml\n")}
	fx := plantest.PlanOn(t, repo, []string{"research.yaml", "projects/nlp.yaml", "projects/vision.yaml"}, renameDesired)
	out, sp := spliced(t, fx, Options{})
	var files []string
	for _, f := range sp.Files {
		files = append(files, fmt.Sprintf("%s created=%v deleted=%v", f.Path, f.Created, f.Deleted))
	}
	wantFiles := []string{"projects/kustomization.yaml created=false deleted=false", "projects/language.yaml created=true deleted=false", "projects/nlp.yaml created=false deleted=true"}
	sameLines(t, "files", files, wantFiles)
	if got, want := string(out["projects/language.yaml"]), strings.Replace(nlp, "name: nlp", "name: language", 1); got != want {
		t.Errorf("projects/language.yaml:\n%s\nwant\n%s", got, want)
	}
	if got, want := string(out["projects/kustomization.yaml"]), "resources:\n  - language.yaml\n  - vision.yaml\n"; got != want {
		t.Errorf("projects/kustomization.yaml:\n%s\nwant\n%s", got, want)
	}
	if len(sp.Notes) != 0 {
		t.Errorf("notes %q", sp.Notes)
	}
	wantKept := []string{"projects/kustomization.yaml: resources entry nlp.yaml -> language.yaml"}
	if !slices.Equal(sp.KeptInStep, wantKept) {
		t.Errorf("kept in step %q, want %q", sp.KeptInStep, wantKept)
	}

	// The files are listed by path, the new name after the old one too.
	fx = plantest.PlanOn(t, repo, []string{"research.yaml", "projects/nlp.yaml", "projects/vision.yaml"}, strings.ReplaceAll(renameDesired, "language", "zeta"))
	_, sp = spliced(t, fx, Options{})
	files = files[:0]
	for _, f := range sp.Files {
		files = append(files, f.Path)
	}
	sameLines(t, "files", files, []string{"projects/kustomization.yaml", "projects/nlp.yaml", "projects/zeta.yaml"})

	// One kustomization at the root names the file by its path.
	delete(repo, "projects/kustomization.yaml")
	repo["kustomization.yaml"] = []byte("resources:\n  - research.yaml\n  - ./projects/nlp.yaml   # NLP\n  - projects/vision.yaml\n")
	fx = plantest.PlanOn(t, repo, []string{"research.yaml", "projects/nlp.yaml", "projects/vision.yaml"}, renameDesired)
	out, sp = spliced(t, fx, Options{})
	if got, want := string(out["kustomization.yaml"]), "resources:\n  - research.yaml\n  - ./projects/language.yaml # NLP\n  - projects/vision.yaml\n"; got != want {
		t.Errorf("kustomization.yaml:\n%s\nwant\n%s", got, want)
	}
	if wantKept := []string{"kustomization.yaml: resources entry ./projects/nlp.yaml -> ./projects/language.yaml"}; !slices.Equal(sp.KeptInStep, wantKept) {
		t.Errorf("kept in step %q, want %q", sp.KeptInStep, wantKept)
	}
	if wantNotes := []string{"kustomization.yaml:3: resources entry changed from ./projects/nlp.yaml to ./projects/language.yaml, but the comment on the same line was not reworded: # NLP"}; !slices.Equal(sp.Notes, wantNotes) {
		t.Errorf("notes %q, want %q", sp.Notes, wantNotes)
	}

	// A file named after nlp that holds other documents too keeps its name.
	several := plantest.Repo{"nlp.yaml": []byte(renameTenancy)}
	fx = plantest.PlanOn(t, several, []string{"nlp.yaml"}, renameDesired)
	out, sp = spliced(t, fx, Options{})
	if _, ok := out["nlp.yaml"]; !ok || len(sp.Files) != 1 {
		t.Errorf("files %+v", sp.Files)
	}

	// A file of the new name that exists already is left alone: the
	// project stays in its file, edited in place, and a note says why.
	repo["projects/language.yaml"] = []byte("# not a tenancy file\n")
	fx = plantest.PlanOn(t, repo, []string{"research.yaml", "projects/nlp.yaml", "projects/vision.yaml"}, renameDesired)
	out, sp = spliced(t, fx, Options{})
	if got, want := string(out["projects/nlp.yaml"]), strings.Replace(nlp, "name: nlp", "name: language", 1); got != want || len(sp.Files) != 1 {
		t.Errorf("projects/nlp.yaml:\n%s\nwant\n%s\nfiles %d", got, want, len(sp.Files))
	}
	wantNotes := []string{"projects/nlp.yaml: the renamed project stays in this file, named after its old name: projects/language.yaml exists already"}
	sameLines(t, "notes", sp.Notes, wantNotes)
}

// sameLines fails t when got is not want, showing both, a line each.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
