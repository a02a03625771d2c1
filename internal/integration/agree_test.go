package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defectsYAML is a tenancy of every KRM shape the readers once disagreed
// on, and of the defects issue 11 names, on pool h100 (one node of 8
// cards): a department queue with name "" (KRM names it research-h100),
// two unlimited projects under it (both named), a limit of -1 under it
// (normal: no finding), a cpu guarantee 1000 times off its siblings', a
// priority without a guarantee, a department with a negative guarantee,
// a root project without spec.parent and one with parent "" (queues with
// name ""; infra's 5 cards and research's 4 are above the pool's 8), and
// a root project whose written queue name is the one KRM derives for the
// department's.
var defectsYAML = "apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: h100}\nspec: {labelKey: example.com/gpu-class, labelValue: h100}\n" +
	defectDoc("Department", "research", "", `""`, "h100", "", "{deserved: 4, limit: 8, overQuotaWeight: 1}", "10000") +
	defectDoc("Department", "broke", "", "broke-h100", "h100", "", "{deserved: -2, limit: 4, overQuotaWeight: 1}", "0") +
	defectDoc("Project", "alpha", "  parent: research\n", "alpha-h100", "h100", "", "{deserved: -1, limit: -1, overQuotaWeight: 1}", "4000") +
	defectDoc("Project", "beta", "  parent: research\n", "beta-h100", "h100", "", "{deserved: -1, limit: -1, overQuotaWeight: 1}", "4000") +
	defectDoc("Project", "gamma", "  parent: research\n", "gamma-h100", "h100", "    priority: 200\n", "{deserved: 0, limit: -1, overQuotaWeight: 1}", "4") +
	defectDoc("Project", "infra", "", `""`, "h100", "", "{deserved: 5, limit: 8, overQuotaWeight: 1}", "0") +
	defectDoc("Project", "ops", "  parent: \"\"\n", `""`, "default", "", "{deserved: 0, limit: 0}", "0") +
	defectDoc("Project", "clash", "  parent: \"\"\n", "research-h100", "default", "", "{deserved: 0, limit: 0}", "0")

// defectDoc is one Department or Project of defectsYAML with one queue:
// parent and priority are whole lines ("" for none), gpu a flow mapping,
// cpu the cpu deserved in millicores (its limit and memory's unlimited).
func defectDoc(kind, name, parent, queue, pool, priority, gpu, cpu string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: %s\nmetadata: {name: %s}\nspec:\n%s  queues:\n"+
		"  - name: %s\n    nodepool: %s\n%s    resources:\n      gpu: %s\n      cpu: {deserved: %s, limit: -1}\n      memory: {deserved: 0, limit: -1}\n",
		kind, name, parent, queue, pool, priority, gpu, cpu)
}

type defectObject struct {
	gvr  schema.GroupVersionResource
	name string
}

// defectObjects are the objects of defectsYAML, for the teardown.
var defectObjects = []defectObject{
	{live.GVRProject, "alpha"}, {live.GVRProject, "beta"}, {live.GVRProject, "gamma"}, {live.GVRProject, "infra"},
	{live.GVRProject, "ops"}, {live.GVRProject, "clash"}, {live.GVRDepartment, "research"}, {live.GVRDepartment, "broke"},
	{live.GVRNodePool, "h100"},
}

// testReadersAgree creates defectsYAML in the cluster beside the sample
// tenancy and commits both files to a repository: the live snapshot and
// the git snapshot (with the live overlay, so both have the same nodes,
// Queues and namespaces) hold the same tenancy and get the same findings,
// message for message; and those are the right ones.
func testReadersAgree(f *fx) {
	f.createYAML(f.write("defects.yaml", defectsYAML))
	f.node("h100-node-1", map[string]string{"example.com/gpu-class": "h100"}, "8", "8", true, false)
	defer func() {
		ctx := context.Background()
		for _, o := range defectObjects {
			if err := f.dyn.Resource(o.gvr).Delete(ctx, o.name, metav1.DeleteOptions{}); err != nil {
				f.t.Errorf("deleting %s %s: %v", o.gvr.Resource, o.name, err)
			}
		}
		if err := f.cs.CoreV1().Nodes().Delete(ctx, "h100-node-1", metav1.DeleteOptions{}); err != nil {
			f.t.Errorf("deleting node h100-node-1: %v", err)
		}
	}()

	repo := f.gitRepo("agree", filepath.Join(f.root, "examples", "sample", "tenancy.yaml"), f.write("defects.yaml", defectsYAML))
	f.must(f.krmplan("snapshot", "-o", "agree-live.json"), 0, "live snapshot")
	f.must(f.krmplan("snapshot", "--git-repo", repo, "--tenancy", "tenancy.yaml", "--tenancy", "defects.yaml", "--context", "envtest", "-o", "agree-git.json"), 0, "git snapshot")
	fromLive, fromGit := f.state("agree-live.json"), f.state("agree-git.json")
	for _, p := range fromGit.Projects {
		if i := slices.IndexFunc(fromLive.Projects, func(l tenancy.Project) bool { return l.Metadata.Name == p.Metadata.Name }); i < 0 ||
			fromLive.Projects[i].Spec.Parent != p.Spec.Parent || fromLive.Projects[i].Spec.ParentOmitted != p.Spec.ParentOmitted {
			f.t.Errorf("project %s: git parent %q (omitted %v), live %+v", p.Metadata.Name, p.Spec.Parent, p.Spec.ParentOmitted, fromLive.Projects)
		}
	}
	got, want := verdict(planner.CheckState(fromLive)), verdict(planner.CheckState(fromGit))
	if len(got) == 0 {
		f.t.Fatal("no findings about the defects")
	}
	f.wantEqual("findings live and from git", got, want)

	for _, line := range []string{
		"error unlimited-under-finite: alpha-h100: the gpu guarantee is unlimited (-1), but department queue research-h100 only has 4 cards to share",
		"error unlimited-under-finite: beta-h100: the gpu guarantee is unlimited (-1), but department queue research-h100 only has 4 cards to share",
		"error pool-over-capacity: pool h100: departments and project queues outside a department are guaranteed 9 cards, the pool has 8 cards — 1 card over",
		"error negative-value: broke-h100: gpu deserved is -2; the only negative value KRM understands is -1 (unlimited)",
		"error duplicate-queue-name: research-h100: the queue name is also used by department research (department research's queue on h100 has no name, so KRM names it research-h100); queue names are cluster-wide and KRM does not share a Queue: the entry it reconciles second gets the name with a random suffix (research-h100-xxxx)",
		"note unit-slip: gamma-h100: the cpu deserved of 4 millicores is about 1/1000 of the median of the 3 queues under department queue research-h100 (4000 millicores); cpu is in millicores (1000 per core), so a value written in cores is 1000 times too small",
		"note priority-without-guarantee: gamma-h100: priority 200 puts this queue before its lower-priority siblings for idle cards only: with a gpu guarantee of 0 it never reclaims cards another queue uses within its guarantee (KAI lets a queue that asks beyond its own guarantee reclaim only from queues above their fair share), and non-preemptible workloads never run in it (they must fit in the guarantee)",
	} {
		if !slices.Contains(got, line) {
			f.t.Errorf("missing finding %q; have:\n%s", line, strings.Join(got, "\n"))
		}
	}
	for _, l := range got {
		for _, bad := range []string{"unknown-parent", "project-limit-over-department", "projects-over-department", "infra-h100: the queue name", "ops: the queue name"} {
			if strings.Contains(l, bad) {
				f.t.Errorf("finding %q: root projects, limits of -1 and a negative department guarantee are not that", l)
			}
		}
	}
}

// verdict is the findings about defectsYAML's objects and pool as level,
// code and message, sorted: what must be the same whichever reader read
// the tenancy (the places differ: a file's lines, or none). The sample's
// objects are left out: the subtests before patched them in the cluster,
// not in the file.
func verdict(fs []planner.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, fd := range fs {
		if !slices.ContainsFunc(defectObjects, func(o defectObject) bool { return o.name == fd.Object.Name }) && fd.Pool != "h100" {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: %s", fd.Level, fd.Code, fd.Message))
	}
	slices.Sort(out)
	return out
}

// testRootProjectPatch: a root project created without spec.parent moves
// into a department with the patch script run by kubectl: the patch adds
// the key after a test of null, which passes while the key is absent (a
// test of a value or a replace of an absent path would fail).
func testRootProjectPatch(f *fx) {
	f.createYAML(f.write("solo.yaml", "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: solo}\nspec:\n  queues:\n"+
		"  - name: \"\"\n    nodepool: rtx-pro-6000\n    resources:\n      gpu: {deserved: 0, limit: 1, overQuotaWeight: 1}\n"+
		"      cpu: {deserved: 0, limit: -1}\n      memory: {deserved: 0, limit: -1}\n"))
	defer func() {
		if err := f.dyn.Resource(live.GVRProject).Delete(context.Background(), "solo", metav1.DeleteOptions{}); err != nil {
			f.t.Errorf("deleting project solo: %v", err)
		}
	}()
	f.must(f.krmplan("snapshot", "-o", "solo.json"), 0, "snapshot")
	f.write("solo.hcl", "project \"solo\" {\n  department = \"platform\"\n}\n")
	r := f.must(f.krmplan("plan", "solo.hcl", "--state", "solo.json", "--out", "solo-plan.json", "--no-color"), 0, "plan the move")
	f.wantLine("plan", r.stdout, `      + parent = "platform"`)
	p := f.plan("solo-plan.json")
	f.must(f.krmplan("render", "solo-plan.json", "--format", "patch", "--approve", p.PlanID, "-o", "solo.sh"), 0, "render")
	f.wantLine("script", f.read("solo.sh"), patchLine("projects.kai.resources", "solo", `[{"op":"test","path":"/spec/parent","value":null},{"op":"add","path":"/spec/parent","value":"platform"}]`))
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "solo.sh"), 0, "the patch script")
	f.wantEqual("kubectl output", r.stdout, "project.kai.resources/solo patched\n")
	parent, _, _ := unstructured.NestedString(f.get(live.GVRProject, "solo").Object, "spec", "parent")
	f.wantEqual("solo's parent", parent, "platform")
}

// gitRepo makes a repository dir in the work folder with one commit of
// the files given (copied to its root), and returns dir.
func (f *fx) gitRepo(dir string, files ...string) string {
	f.t.Helper()
	git := func(args ...string) {
		f.t.Helper()
		env := append(f.environ(f.env.Kubeconfig), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
		f.must(f.exec(env, "git", append([]string{"-C", dir}, args...)...), 0, "git "+strings.Join(args, " "))
	}
	f.must(f.exec(nil, "mkdir", "-p", dir), 0, "mkdir")
	f.must(f.exec(nil, "cp", append(files, dir)...), 0, "cp")
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "tenancy")
	return dir
}
