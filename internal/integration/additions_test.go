package integration

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/testapiserver"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// additionsTenancy is a tenancy of its own (every name starts with "add-",
// so that it shares nothing with TestLive's sample), committed into git.
const additionsTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata:
  name: add-a100
  annotations:
    argocd.argoproj.io/sync-wave: "1"
spec:
  labelKey: add.example.com/gpu
  labelValue: a100
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata:
  name: add-dept
spec:
  queues:
    - name: add-dept-a100
      nodepool: add-a100
      resources:
        gpu:    {deserved: 4,  limit: 4,  overQuotaWeight: 1}
        cpu:    {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: add-proj
spec:
  parent: add-dept
  queues:
    - name: add-proj-a100
      nodepool: add-a100
      resources:
        gpu:    {deserved: 2,  limit: 4,  overQuotaWeight: 1}
        cpu:    {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
`

// additionsDesired adds a node pool, a queue on it for the department and
// for the project, a new department and a new project under it.
const additionsDesired = `node_pool "add-h200" {
  label_key   = "add.example.com/gpu"
  label_value = "h200"
}
department "add-dept" {
  queue "add-h200" {
    name = "add-dept-h200"
    gpu = { deserved = 8, limit = 8 }
  }
}
project "add-proj" {
  queue "add-h200" {
    name     = "add-proj-h200"
    priority = 75
    gpu = { deserved = 2, limit = 8 }
  }
}
department "add-research" {
  queue "add-h200" {
    name = "add-research-h200"
    gpu = { deserved = 4, limit = 4 }
  }
}
project "add-lab" {
  department = "add-research"
  namespace  = "add-lab"
  queue "add-h200" {
    name = "add-lab-h200"
    gpu = { deserved = 4, limit = 4 }
    memory = { deserved = 256000, limit = 512000 }
  }
}
`

// TestAdditionsScript runs the patch script of a plan that adds objects and
// queues (issue 5) with the real kubectl against the real API server, whose
// CRD schemas validate every manifest and every JSON patch, and checks that
// the cluster then holds exactly the objects that the splice of the same
// plan writes into git. It cleans up its objects: TestLive (a later file)
// lists the whole cluster. It must run before TestLive removes the CRDs,
// which Go's file order (additions_test.go < live_test.go) ensures.
// additions are the objects the plan creates or changes.
var additions = []tenancy.ObjectAddr{
	tenancy.KindNodePool.Object("add-a100"), tenancy.KindNodePool.Object("add-h200"),
	tenancy.KindDepartment.Object("add-dept"), tenancy.KindDepartment.Object("add-research"),
	tenancy.KindProject.Object("add-proj"), tenancy.KindProject.Object("add-lab"),
}

func TestAdditionsScript(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.deleteAtCleanup(additions)
	if _, err := f.dyn.Resource(live.GVRProject).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		t.Fatalf("the KRM CRDs are not served (did a test remove them before this one?): %v", err)
	}
	f.write("tenancy.yaml", additionsTenancy)
	f.createYAML(filepath.Join(f.dir, "tenancy.yaml"))
	git := f.additionsRepo()

	f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "--no-cluster", "-o", "state.json"), 0, "snapshot")
	f.write("desired.hcl", additionsDesired)
	f.must(f.krmplan("plan", "desired.hcl", "--state", "state.json", "--out", "plan.json", "--no-color"), 0, "plan")
	id := f.plan("plan.json").PlanID
	before := f.specsOf(additions)
	f.gitContext(id)
	f.additionsScript(f.read("patch.sh"))

	// The splice of the same plan: the branch holds what the cluster holds.
	f.must(f.krmplan("render", "plan.json", "--format", "splice", "--approve", id, "--branch", "quota/additions"), 0, "render splice")
	f.sameAsCluster(git("show", "quota/additions:tenancy.yaml"))

	// The rollback deletes what the script created (its own, by the
	// krmplan/plan annotation) and patches the rest back: the snapshot's
	// objects, exactly.
	r := f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.rollback.sh"), 0, "the rollback")
	f.wantEqual("the rollback's kubectl output", r.stdout, "project.kai.resources/add-proj patched\nprojects.kai.resources/add-lab deleted\n"+
		"departments.kai.resources/add-research deleted\ndepartment.kai.resources/add-dept patched\nnodepools.kai.resources/add-h200 deleted\n")
	f.wantEqual("stderr's last line", lastLine(r.stderr), "krmplan: undone: steps 5 to 1: the cluster holds the snapshot's values for them again")
	f.wantEqual("the objects after the rollback", f.specsOf(additions), before)
}

// gitContext renders the patch script of a git snapshot's plan: without a
// context it is refused (it would run against whatever context is
// current); with KRMPLAN_CONTEXT it names that context in its header and
// in every kubectl call.
func (f *fx) gitContext(id string) {
	r := f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", id, "-o", "patch.sh"), 1, "render patch without a context")
	f.wantEqual("stderr", r.stderr, "Error: render refused: the snapshot (from git, without a live overlay) names no cluster context, "+
		"and a patch script never runs against whatever context is current: pass --context NAME (or set KRMPLAN_CONTEXT=NAME), the kubeconfig context of the cluster to patch\n")
	f.wantAbsent("render refused", "patch.sh", "patch.rollback.sh")
	env := append(f.environ(f.env.Kubeconfig), "KRMPLAN_CONTEXT="+testapiserver.AdminContext)
	f.must(f.exec(env, f.bin, "render", "plan.json", "--format", "patch", "--approve", id, "-o", "patch.sh"), 0, "render patch with KRMPLAN_CONTEXT")
	for _, name := range []string{"patch.sh", "patch.rollback.sh"} {
		s := f.read(name)
		f.wantLine(name+"'s header", s, "# cluster: every kubectl call runs with --context "+testapiserver.AdminContext+" ($KRMPLAN_CONTEXT at render)")
		for _, line := range strings.Split(s, "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "kubectl ") && !strings.HasPrefix(l, "kubectl --context '"+testapiserver.AdminContext+"' ") {
				f.t.Errorf("%s: a kubectl call without --context %s: %s", name, testapiserver.AdminContext, line)
			}
		}
	}
}

// additionsRepo commits additionsTenancy into a new repository, "repo",
// and returns a function that runs git there.
func (f *fx) additionsRepo() func(args ...string) string { return f.tenancyRepo(additionsTenancy) }

// tenancyRepo commits tenancy as tenancy.yaml into a new repository,
// "repo", and returns a function that runs git there.
func (f *fx) tenancyRepo(tenancy string) func(args ...string) string {
	repo := filepath.Join(f.dir, "repo")
	git := func(args ...string) string {
		f.t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(f.environ(f.env.Kubeconfig), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			f.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	f.must(f.exec(f.environ(f.env.Kubeconfig), "git", "init", "-q", "-b", "main", repo), 0, "git init")
	f.write("repo/tenancy.yaml", tenancy)
	git("config", "user.name", "Additions Test")
	git("config", "user.email", "additions@example.com")
	git("add", "tenancy.yaml")
	git("commit", "-q", "-m", "tenancy")
	return git
}

// additionsScript checks the patch script's order and runs it: the pool
// first, then the departments, then the projects; a second run stops at
// the first step, as the pool exists.
func (f *fx) additionsScript(script string) {
	order := regexp.MustCompile(`(?m)^# \d+/\d+ [a-z ]+: (\w+ [a-z0-9-]+)$`).FindAllStringSubmatch(script, -1)
	var steps []string
	for _, m := range order {
		steps = append(steps, m[1])
	}
	want := "NodePool add-h200|Department add-dept|Department add-research|Project add-lab|Project add-proj"
	if got := strings.Join(steps, "|"); got != want {
		f.t.Fatalf("steps %s, want %s\n%s", got, want, script)
	}
	r := f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.sh"), 0, "the patch script")
	wantOut := "nodepool.kai.resources/add-h200 created\ndepartment.kai.resources/add-dept patched\ndepartment.kai.resources/add-research created\nproject.kai.resources/add-lab created\nproject.kai.resources/add-proj patched\n"
	if r.stdout != wantOut {
		f.t.Errorf("the script printed\n%s\nwant\n%s", r.stdout, wantOut)
	}
	if r := f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.sh"); r.code == 0 || !strings.Contains(r.stderr, "already exists") {
		f.t.Errorf("a second run: exit %d\n%s", r.code, r.stderr)
	}
}

// sameAsCluster checks that the spliced tenancy file holds each of the
// additions as the cluster holds it after the script, spec for spec.
func (f *fx) sameAsCluster(spliced string) {
	var ten snapshot.Parsed
	if err := ten.ParseTenancy("tenancy.yaml", []byte(spliced)); err != nil {
		f.t.Fatal(err)
	}
	x := tenancy.NewIndex(&ten.Tenancy)
	for _, a := range additions {
		liveSpec, _ := json.Marshal(f.get(live.KindGVR(a.Kind), a.Name).Object["spec"])
		// The live spec read into the same type as the spliced one.
		typed := typedSpec(a.Kind)
		if err := json.Unmarshal(liveSpec, typed); err != nil {
			f.t.Fatal(err)
		}
		got, _ := json.Marshal(typed)
		want, _ := json.Marshal(x.Spec(a))
		if string(got) != string(want) {
			f.t.Errorf("%s: the cluster holds %s, the splice wrote %s", a, got, want)
		}
	}
}
