package integration

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// update rewrites the golden files of TestHandmadeTenancy
// (go test ./internal/integration -run TestHandmadeTenancy -update).
var update = flag.Bool("update", false, "rewrite the golden files of TestHandmadeTenancy")

// handmadeDir is the hand-formatted tenancy a team keeps (one file per
// department with its projects, pools/, a kustomization.yaml; comments,
// flow and block maps, odd indentation, a CRLF file, quoted strings, a
// `---` with a comment) and the golden files of each scenario on it.
const handmadeDir = "testdata/handmade"

// handmadeScenario is one change a new user makes to the tenancy: refused
// (when set) is a first try that the plan refuses, desired the one it
// plans.
type handmadeScenario struct {
	name, refused, desired string
}

var handmadeScenarios = []handmadeScenario{
	{name: "project", desired: "removed { project = \"hm-vision\" }\n"},
	{name: "queue", desired: "removed {\n  project = \"hm-nlp\"\n  queue   = \"hm-a100\"\n}\n"},
	{name: "department", refused: "removed { department = \"hm-legacy\" }\n",
		desired: "removed { department = \"hm-legacy\" }\nremoved { project = \"hm-batch\" }\n"},
	{name: "pool", refused: "removed { node_pool = \"hm-a100\" }\n",
		desired: "removed { node_pool = \"hm-a100\" }\n" +
			"removed { department = \"hm-legacy\" }\nremoved { project = \"hm-batch\" }\n" +
			"removed {\n  department = \"hm-research\"\n  queue      = \"hm-a100\"\n}\n" +
			"removed {\n  project = \"hm-nlp\"\n  queue   = \"hm-a100\"\n}\n" +
			"removed {\n  project = \"hm-vision\"\n  queue   = \"hm-a100\"\n}\n"},
	{name: "rename", desired: "moved {\n  from = \"hm-tools\"\n  to   = \"hm-toolbox\"\n}\n"},
}

// TestHandmadeTenancy tries, as a new user would, each removal and a
// rename on a hand-formatted tenancy over several files (issue 16, "Done
// when"): the plan (its exact text), the patch script (exact), the splice
// (the exact bytes of every file it changes, and git's word that every
// other file is unchanged, that a file left empty is deleted and leaves
// the kustomization), and the patch script run with the real kubectl
// against the real API server, after which the cluster holds exactly the
// objects of the spliced branch; its rollback then leaves those of main.
// It runs before TestLive removes the CRDs (file order).
func TestHandmadeTenancy(t *testing.T) {
	f := newFixture(t)
	t.Cleanup(func() {
		f.deleteHandmade()
		_ = f.cs.CoreV1().Namespaces().Delete(context.Background(), "kai-hm-tools", metav1.DeleteOptions{})
	})
	f.handmadeRepo()
	f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy", "--no-cluster", "-o", "state.json"), 0, "snapshot")
	for _, sc := range handmadeScenarios {
		t.Run(sc.name, func(t *testing.T) { f.in(t).handmade(sc) })
	}
}

// handmade runs one scenario.
func (f *fx) handmade(sc handmadeScenario) {
	golden := filepath.Join(f.root, "internal/integration", handmadeDir, "golden", sc.name)
	if sc.refused != "" {
		f.write(sc.name+"-refused.hcl", sc.refused)
		r := f.must(f.krmplan("plan", sc.name+"-refused.hcl", "--state", "state.json", "--out", sc.name+"-refused.json"), 1, "plan "+sc.refused)
		f.golden(golden, "refused.txt", f.normal(r.stdout, sc.name+"-refused.json"))
	}
	f.write(sc.name+".hcl", sc.desired)
	plan := sc.name + ".json"
	r := f.must(f.krmplan("plan", sc.name+".hcl", "--state", "state.json", "--out", plan), 0, "plan "+sc.desired)
	f.golden(golden, "plan.txt", f.normal(r.stdout, plan))
	id := f.plan(plan).PlanID
	script := sc.name + ".sh"
	f.must(f.krmplan("render", plan, "--format", "patch", "--approve", id, "--context", "envtest", "-o", script), 0, "render patch")
	f.golden(golden, "patch.sh", f.normal(f.read(script), plan))

	branch := "hm/" + sc.name
	f.must(f.krmplan("render", plan, "--format", "splice", "--approve", id, "--branch", branch), 0, "render splice")
	git := func(args ...string) string {
		return f.must(f.exec(f.environ(f.env.Kubeconfig), "git", append([]string{"-C", "repo"}, args...)...), 0, "git "+strings.Join(args, " ")).stdout
	}
	f.golden(golden, "commit.txt", f.normal(git("log", "-1", "--format=%B", branch), plan))
	// git compares the blobs: a file it does not name has every byte it had.
	status := git("diff", "--no-renames", "--name-status", "main", branch)
	f.golden(golden, "splice.txt", status)
	for _, line := range strings.Split(strings.TrimSpace(status), "\n") {
		st, path, _ := strings.Cut(line, "\t")
		if st != "D" {
			f.golden(golden, filepath.Join("files", path), git("show", branch+":"+path))
		}
	}

	f.t.Cleanup(f.deleteHandmade)
	f.handmadeCluster()
	env := f.environ(f.env.Kubeconfig)
	if sc.name == "rename" {
		// KRM taking the namespace back during the window (an older KRM
		// that ignores the override label, or a reconcile begun before the
		// relabel), as a kubectl that writes the old label back right
		// after the DELETE of hm-tools.
		f.must(f.exec(nil, "mkdir", "-p", filepath.Join(f.dir, "bin")), 0, "mkdir")
		f.write("bin/kubectl", krmRevertsLabel(filepath.Join(f.env.AssetsDir, "kubectl")))
		f.must(f.exec(nil, "chmod", "+x", filepath.Join(f.dir, "bin/kubectl")), 0, "chmod")
		env = append(env, "PATH="+filepath.Join(f.dir, "bin")+string(os.PathListSeparator)+f.env.AssetsDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	run := f.exec(env, "sh", script)
	f.golden(golden, "run.txt", "exit "+itoa(run.code)+"\n-- stdout --\n"+run.stdout+"-- stderr --\n"+run.stderr)
	want := f.splicedSpecs(branch)
	// The fixture's 10 objects, with the plan's adds and destroys.
	if sum := f.plan(plan).Summary; len(want) != 10+sum.Add-sum.Destroy {
		f.t.Fatalf("the spliced branch has %d objects, the plan adds %d to 10 and destroys %d: %v", len(want), sum.Add, sum.Destroy, want)
	}
	f.wantEqual("the cluster's objects after the script", f.handmadeSpecs(), want)
	if sc.name == "rename" {
		ns, err := f.cs.CoreV1().Namespaces().Get(context.Background(), "kai-hm-tools", metav1.GetOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		// The label is hm-toolbox's; the override label the hold set is gone.
		f.wantEqual("kai-hm-tools's labels", ns.Labels, map[string]string{"kai/project": "hm-toolbox", "team": "tools", "kubernetes.io/metadata.name": "kai-hm-tools"})
	}
	// The rollback puts the cluster back as main has it.
	f.must(f.exec(env, "sh", sc.name+".rollback.sh"), 0, "the rollback script")
	f.wantEqual("the cluster's objects after the rollback", f.handmadeSpecs(), f.splicedSpecs("main"))
	if sc.name == "rename" {
		ns, err := f.cs.CoreV1().Namespaces().Get(context.Background(), "kai-hm-tools", metav1.GetOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		f.wantEqual("kai-hm-tools's labels after the rollback", ns.Labels, map[string]string{"kai/project": "hm-tools", "team": "tools", "kubernetes.io/metadata.name": "kai-hm-tools"})
	}
}

// krmRevertsLabel is a kubectl (a shell script calling the real one) that,
// after the DELETE of project hm-tools (not its dry run), labels namespace
// kai-hm-tools for hm-tools again, as KRM's reconcile of hm-tools would.
func krmRevertsLabel(real string) string {
	return `#!/bin/sh
case "$*" in
*"delete --raw /apis/kai.resources/v1alpha1/projects/hm-tools -f -")
	body=$(cat)
	printf '%s\n' "$body" | '` + real + `' "$@" || exit $?
	case $body in
	*dryRun*) ;;
	*) '` + real + `' "$1" "$2" label namespace kai-hm-tools kai/project=hm-tools --overwrite >/dev/null ;;
	esac
	exit 0
	;;
esac
exec '` + real + `' "$@"
`
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// normal is out with what differs from run to run replaced: the work
// folder ($WORK), the plan's id (PLANID) and the snapshot's commit
// (COMMIT).
func (f *fx) normal(out, plan string) string {
	p := f.plan(plan)
	out = strings.ReplaceAll(out, p.PlanID, "PLANID")
	out = strings.ReplaceAll(out, p.PlanID[:12], "PLANID")
	c := p.Snapshot.Source.Commit
	out = strings.ReplaceAll(out, c, "COMMIT")
	out = strings.ReplaceAll(out, c[:12], "COMMIT")
	return strings.ReplaceAll(out, f.dir, "$WORK")
}

// golden compares got with the golden file dir/name (writes it with
// -update).
func (f *fx) golden(dir, name, got string) {
	f.t.Helper()
	path := filepath.Join(dir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			f.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		f.t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		f.t.Errorf("%s differs from the golden file %s:\n%s\n(run with -update to rewrite it)", name, path, firstDiff(got, string(want)))
	}
}

// firstDiff is the first line where got and want differ, quoted.
func firstDiff(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			b, _ := json.Marshal([]string{gl, wl})
			return "line " + itoa(i+1) + ": got, want " + string(b)
		}
	}
	return ""
}

// handmadeRepo copies the tenancy into a new repository, "repo", and
// commits it (with fixed dates, so that its commit is the same each run).
func (f *fx) handmadeRepo() {
	f.t.Helper()
	src := filepath.Join(f.root, "internal/integration", handmadeDir, "tenancy")
	env := append(f.environ(f.env.Kubeconfig), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	f.must(f.exec(nil, "mkdir", "-p", "repo"), 0, "mkdir")
	f.must(f.exec(nil, "cp", "-R", src, filepath.Join(f.dir, "repo", "tenancy")), 0, "cp")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Platform Team"},
		{"config", "user.email", "platform@example.com"}, {"add", "."}, {"commit", "-q", "-m", "tenancy"}} {
		f.must(f.exec(env, "git", append([]string{"-C", "repo"}, args...)...), 0, "git "+strings.Join(args, " "))
	}
}

// handmadeFiles is the tenancy's KRM files, in the repository.
func (f *fx) handmadeFiles() []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(f.dir, "repo", "tenancy"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) != "kustomization.yaml" {
			out = append(out, p)
		}
		return err
	})
	sort.Strings(out)
	return out
}

// handmadeCluster creates the tenancy's objects as they are at main, and
// the namespace of hm-tools (KRM's default one, labelled for it).
func (f *fx) handmadeCluster() {
	f.t.Helper()
	for _, p := range f.handmadeFiles() {
		f.createYAML(p)
	}
	ctx := context.Background()
	if _, err := f.cs.CoreV1().Namespaces().Get(ctx, "kai-hm-tools", metav1.GetOptions{}); err != nil {
		f.namespace("kai-hm-tools", map[string]string{"kai/project": "hm-tools", "team": "tools"})
	} else {
		_, err := f.cs.CoreV1().Namespaces().Patch(ctx, "kai-hm-tools", types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"kai/project":"hm-tools","team":"tools","kai.resources/resource-manual-override":null}}}`), metav1.PatchOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
	}
}

// handmadeKinds is the kinds of the tenancy, children first.
var handmadeKinds = []tenancy.Kind{tenancy.KindProject, tenancy.KindDepartment, tenancy.KindNodePool}

// handmadeSpecs is the spec of every hm- object the cluster holds, by
// address, read into krmplan's typed spec (as splicedSpecs reads the
// files).
func (f *fx) handmadeSpecs() map[string]string {
	f.t.Helper()
	out := map[string]string{}
	for _, k := range handmadeKinds {
		l, err := f.dyn.Resource(live.KindGVR(k)).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		for _, o := range l.Items {
			if !strings.HasPrefix(o.GetName(), "hm-") {
				continue
			}
			b, _ := json.Marshal(o.Object["spec"])
			typed := typedSpec(k)
			if err := json.Unmarshal(b, typed); err != nil {
				f.t.Fatal(err)
			}
			got, _ := json.Marshal(typed)
			out[k.Object(o.GetName()).String()] = string(got)
		}
	}
	return out
}

// splicedSpecs is handmadeSpecs of the tenancy files at branch.
func (f *fx) splicedSpecs(branch string) map[string]string {
	f.t.Helper()
	files := f.must(f.exec(nil, "git", "-C", "repo", "ls-tree", "-r", "--name-only", branch), 0, "git ls-tree").stdout
	var ten snapshot.Parsed
	for _, name := range strings.Fields(files) {
		if filepath.Base(name) == "kustomization.yaml" {
			continue
		}
		b := f.must(f.exec(nil, "git", "-C", "repo", "show", branch+":"+name), 0, "git show").stdout
		if err := ten.ParseTenancy(name, []byte(b)); err != nil {
			f.t.Fatal(err)
		}
	}
	x := tenancy.NewIndex(&ten.Tenancy)
	out := map[string]string{}
	for _, k := range handmadeKinds {
		for _, name := range x.Names(k) {
			got, _ := json.Marshal(x.Spec(k.Object(name)))
			out[k.Object(name).String()] = string(got)
		}
	}
	return out
}

// typedSpec is a new spec of kind k's type.
func typedSpec(k tenancy.Kind) any {
	switch k {
	case tenancy.KindNodePool:
		return &tenancy.NodePoolSpec{}
	case tenancy.KindDepartment:
		return &tenancy.DepartmentSpec{}
	}
	return &tenancy.ProjectSpec{}
}

// deleteHandmade deletes every hm- object: the tests share one API
// server, and TestLive lists the whole cluster. The namespace's project
// label goes too (the test API server never finishes deleting a
// namespace, so it stays, unlabelled, until the next scenario needs it).
func (f *fx) deleteHandmade() {
	ctx := context.Background()
	for _, k := range handmadeKinds {
		l, err := f.dyn.Resource(live.KindGVR(k)).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, o := range l.Items {
			if strings.HasPrefix(o.GetName(), "hm-") {
				_ = f.dyn.Resource(live.KindGVR(k)).Delete(ctx, o.GetName(), metav1.DeleteOptions{})
			}
		}
	}
	_, _ = f.cs.CoreV1().Namespaces().Patch(ctx, "kai-hm-tools", types.MergePatchType, []byte(`{"metadata":{"labels":{"kai/project":null}}}`), metav1.PatchOptions{})
}
