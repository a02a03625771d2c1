package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// guardTenancy is a tenancy of its own (every name starts with "rep-",
// so that it shares nothing with the other tests): a pool of 16 cards,
// two departments (cpu and memory unlimited, so that a new project's
// unlimited defaults fit under them), a project without a gpu limit.
const guardTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: rep-a100}
spec: {labelKey: rep.example.com/gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: rep-vision}
spec:
  queues:
    - name: rep-vision-a100
      nodepool: rep-a100
      resources:
        gpu: {deserved: 8, limit: 8, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: rep-speech}
spec:
  queues:
    - name: rep-speech-a100
      nodepool: rep-a100
      resources:
        gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: rep-detect}
spec:
  parent: rep-vision
  queues:
    - name: rep-detect-a100
      nodepool: rep-a100
      resources:
        gpu: {deserved: 6, overQuotaWeight: 1}
`

// guardDesired moves two cards from vision to speech (detect shrinks first,
// and gets a limit it did not have), and creates project rep-lab under
// speech with them.
const guardDesired = `department "rep-vision" {
  queue "rep-a100" {
    gpu = { deserved = 6, limit = 6 }
  }
}
department "rep-speech" {
  queue "rep-a100" {
    gpu = { deserved = 6, limit = 6 }
  }
}
project "rep-detect" {
  queue "rep-a100" {
    gpu = { deserved = 4, limit = 6 }
  }
}
project "rep-lab" {
  department = "rep-speech"
  namespace  = "rep-lab"
  queue "rep-a100" {
    name = "rep-lab-a100"
    gpu = { deserved = 2, limit = 4, over_quota_weight = 1 }
  }
}
`

// guardObjects are the objects of guardTenancy and guardDesired.
var guardObjects = []tenancy.ObjectAddr{
	tenancy.KindNodePool.Object("rep-a100"), tenancy.KindDepartment.Object("rep-vision"), tenancy.KindDepartment.Object("rep-speech"),
	tenancy.KindProject.Object("rep-detect"), tenancy.KindProject.Object("rep-lab"),
}

// TestFailingGuard runs a live plan's patch script and its rollback with
// the real kubectl against the real API server (issue #15 point 1):
// --check-live refuses the plan once someone changed a value it tests;
// the script rendered before that change applies step 1, stops at step 2
// with a report naming the value, the steps applied and the ways on, and
// exits 12; the rollback of step 1 puts its value back; the whole script
// and then the whole rollback give back the snapshot's objects exactly;
// and an object re-created under the plan's name is not deleted. It must
// run before TestLive (file order), which lists the whole cluster, and
// cleans up its objects and its node.
func TestFailingGuard(t *testing.T) {
	f := newFixture(t)
	f.deleteAtCleanup(guardObjects)
	t.Cleanup(func() { _ = f.cs.CoreV1().Nodes().Delete(context.Background(), "rep-node", metav1.DeleteOptions{}) })
	f.createYAML(f.write("tenancy.yaml", guardTenancy))
	f.node("rep-node", map[string]string{"rep.example.com/gpu": "a100"}, "16", "16", true, false)
	before := f.specs()

	f.must(f.krmplan("snapshot", "-o", "state.json"), 0, "snapshot")
	f.write("desired.hcl", guardDesired)
	f.must(f.krmplan("plan", "desired.hcl", "--state", "state.json", "--out", "plan.json"), 0, "plan")
	p := f.plan("plan.json")
	var steps []string
	for _, st := range p.Steps {
		steps = append(steps, fmt.Sprintf("%s %s %s", st.Phase, st.Action, st.Object))
	}
	f.wantEqual("steps", strings.Join(steps, "; "), "shrinking projects patch Project/rep-detect; shrinking departments patch Department/rep-vision; "+
		"growing or new departments patch Department/rep-speech; growing or new projects patch Project/rep-detect; growing or new projects create Project/rep-lab")
	r := f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", p.PlanID, "--check-live", "-o", "apply.sh"), 0, "render --check-live")
	f.wantLine("render --check-live", r.stderr, "Checked live: every test of the 5 steps holds on context envtest (a server dry run; nothing changed).")

	t.Run("--check-live refuses a stale plan", func(t *testing.T) { f.in(t).staleCheckLive(p) })
	t.Run("the script stops at step 2 and says why", func(t *testing.T) { f.in(t).stopsAtStep2() })
	t.Run("the rollback of step 1 puts its value back", func(t *testing.T) {
		f := f.in(t)
		f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh", "1"), 0, "rollback 1")
		f.wantEqual("rep-detect deserved", f.queue0(live.GVRProject, "rep-detect", "deserved"), 6)
		// Once more: the step is undone already, which is no failure.
		r := f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh", "1"), 0, "rollback 1 again")
		f.wantLine("rollback 1 again", r.stderr, "krmplan: step 1/5 is already undone: Project rep-detect holds the values the snapshot read (a server dry run of the step's tests)")
		f.wantLine("rollback 1 again", r.stderr, "krmplan: undone: step 1: the cluster holds the snapshot's values for them again")
		if strings.Contains(r.stderr, "changed since") {
			t.Errorf("rollback 1 again reports a change:\n%s", r.stderr)
		}
		f.wantEqual("rep-detect deserved", f.queue0(live.GVRProject, "rep-detect", "deserved"), 6)
		// Arguments the scripts do not take are refused before any call.
		r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh", "1", "2"), 2, "rollback 1 2")
		f.wantEqual("rollback 1 2", r.stderr, "krmplan: usage: sh 'apply.rollback.sh' [N]: undo steps N down to 1 of the patch script (N from 1 to 5; default 5, all of them)\n")
		r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh", "now"), 2, "apply.sh now")
		f.wantEqual("apply.sh now", r.stderr, "krmplan: usage: sh apply.sh: the patch script takes no argument (it applies every step; its rollback takes N)\n")
		f.setQueue0(live.GVRDepartment, "rep-vision", "/resources/gpu/deserved", 8) // the other person puts theirs back
		if got := f.specs(); !reflect.DeepEqual(got, before) {
			t.Errorf("after the rollback of step 1 the cluster holds\n%v\nwant the snapshot's\n%v", got, before)
		}
	})
	t.Run("the whole script, then the whole rollback", func(t *testing.T) { f.in(t).roundTrip(before) })
}

// staleCheckLive: someone takes a card from rep-vision; --check-live names
// the value, refuses the plan and writes nothing.
func (f *fx) staleCheckLive(p *planner.Plan) {
	f.setQueue0(live.GVRDepartment, "rep-vision", "/resources/gpu/deserved", 7)
	r := f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", p.PlanID, "--check-live", "-o", "stale.sh"), 1, "render --check-live of a stale plan")
	f.wantEqual("stderr", r.stderr, "--check-live: step 2/5 (shrinking departments: Department rep-vision): gpu.deserved of queue rep-vision-a100 "+
		"(/spec/queues/0/resources/gpu/deserved) changed since the snapshot: the plan read 8, the cluster holds 7\n"+
		"Error: render refused: --check-live: context envtest changed since the snapshot (1 test of the plan failed in a server dry run), "+
		"and the script would stop at step 2; take a new snapshot and plan again\n")
	f.wantAbsent("--check-live refused the plan", "stale.sh", "stale.rollback.sh")
}

// stopsAtStep2: the script rendered before the change applies step 1 and
// stops at step 2 (exit 12) with its report; rep-vision keeps the other
// person's 7 cards.
func (f *fx) stopsAtStep2() {
	r := f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh"), 12, "the patch script")
	f.wantEqual("stdout", r.stdout, "project.kai.resources/rep-detect patched\n")
	want := `krmplan: step 1/5: shrinking projects: Project rep-detect
krmplan: step 2/5: shrinking departments: Department rep-vision
The request is invalid: the server rejected our request due to an error in our request
krmplan: step 2/5 failed: kubectl refused the patch of Department rep-vision
krmplan:   changed since the snapshot: gpu.deserved of queue rep-vision-a100 (/spec/queues/0/resources/gpu/deserved): the plan read 8, the cluster holds 7
krmplan: applied: step 1 of 5; not applied: steps 2 to 5 (a step is applied whole or not at all)
krmplan: two ways on:
krmplan:   - plan again from what the cluster holds now (the new plan holds only what is left to change): krmplan snapshot --context 'envtest' -o state.json, then krmplan plan 'desired.hcl' --state state.json --out plan.json (the desired file as the plan recorded it, from the folder krmplan plan ran in)
krmplan:   - or undo what was applied, with the rollback script rendered with this one: sh 'apply.rollback.sh' 1
krmplan: stopped at step 2/5: exit code 12
`
	f.wantEqual("the report", r.stderr, want)
	f.t.Logf("the report of the failing guard:\n%s", r.stderr)
	f.wantEqual("rep-detect deserved (step 1 applied)", f.queue0(live.GVRProject, "rep-detect", "deserved"), 4)
	f.wantEqual("rep-vision deserved (the other person's)", f.queue0(live.GVRDepartment, "rep-vision", "deserved"), 7)
	if _, err := f.dyn.Resource(live.GVRProject).Get(context.Background(), "rep-lab", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		f.t.Errorf("rep-lab (step 5) exists: %v", err)
	}
}

// roundTrip runs the whole script (every step applied, the target's
// values), re-creates rep-lab as someone else would (the rollback refuses
// to delete it), then deletes that namesake and runs the whole rollback:
// the cluster holds the snapshot's objects exactly.
func (f *fx) roundTrip(before map[tenancy.ObjectAddr]string) {
	r := f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh"), 0, "the patch script")
	f.wantEqual("stderr's last line", lastLine(r.stderr), "krmplan: all 5 steps applied")
	after := f.specs()
	f.wantEqual("rep-lab", after[tenancy.KindProject.Object("rep-lab")],
		`{"namespace":"rep-lab","parent":"rep-speech","queues":[{"name":"rep-lab-a100","nodepool":"rep-a100","resources":{"cpu":{"deserved":-1,"limit":-1,"overQuotaWeight":1},"gpu":{"deserved":2,"limit":4,"overQuotaWeight":1},"memory":{"deserved":-1,"limit":-1,"overQuotaWeight":1}}}]}`)
	f.wantEqual("rep-detect", after[tenancy.KindProject.Object("rep-detect")],
		`{"parent":"rep-vision","queues":[{"name":"rep-detect-a100","nodepool":"rep-a100","resources":{"gpu":{"deserved":4,"limit":6,"overQuotaWeight":1}}}]}`)
	lab := f.get(live.GVRProject, "rep-lab")
	f.wantEqual("rep-lab's annotations", lab.GetAnnotations(), map[string]string{planner.CreatedByAnnotation: f.plan("plan.json").PlanID})

	// Someone deletes rep-lab and creates their own of the same name and
	// spec: the rollback's first step refuses to delete it.
	ctx := context.Background()
	if err := f.dyn.Resource(live.GVRProject).Delete(ctx, "rep-lab", metav1.DeleteOptions{}); err != nil {
		f.t.Fatal(err)
	}
	theirs := &unstructured.Unstructured{Object: map[string]any{"apiVersion": tenancy.APIVersion, "kind": "Project",
		"metadata": map[string]any{"name": "rep-lab"}, "spec": lab.Object["spec"]}}
	uid := f.create(live.GVRProject, theirs).GetUID()
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh"), 15, "the rollback over a re-created namesake")
	f.wantLine("the rollback's report", r.stderr, "krmplan:   changed since the patch script ran: annotation krmplan/plan (/metadata/annotations/krmplan~1plan): the plan set "+f.plan("plan.json").PlanID+", the cluster holds nothing there")
	f.wantLine("the rollback's report", r.stderr, "krmplan: undone: nothing; not undone: steps 5 to 1")
	if got := f.get(live.GVRProject, "rep-lab").GetUID(); got != uid {
		f.t.Errorf("the namesake rep-lab (uid %s) was replaced by uid %s", uid, got)
	}

	// Without it, the rollback undoes every step ("nothing to delete" for
	// rep-lab): the snapshot's objects, exactly.
	if err := f.dyn.Resource(live.GVRProject).Delete(ctx, "rep-lab", metav1.DeleteOptions{}); err != nil {
		f.t.Fatal(err)
	}
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh"), 0, "the whole rollback")
	f.wantLine("the rollback", r.stderr, "krmplan:   projects.kai.resources/rep-lab does not exist: nothing to delete")
	f.wantEqual("stderr's last line", lastLine(r.stderr), "krmplan: undone: steps 5 to 1: the cluster holds the snapshot's values for them again")
	if got := f.specs(); !reflect.DeepEqual(got, before) {
		f.t.Errorf("after the rollback the cluster holds\n%v\nwant the snapshot's\n%v", got, before)
	}

	// Once more, with rep-lab the script's own: the rollback deletes it.
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh"), 0, "the patch script again")
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh"), 0, "the whole rollback again")
	f.wantEqual("kubectl's output", r.stdout, "projects.kai.resources/rep-lab deleted\nproject.kai.resources/rep-detect patched\n"+
		"department.kai.resources/rep-speech patched\ndepartment.kai.resources/rep-vision patched\nproject.kai.resources/rep-detect patched\n")
	if got := f.specs(); !reflect.DeepEqual(got, before) {
		f.t.Errorf("after the second rollback the cluster holds\n%v\nwant the snapshot's\n%v", got, before)
	}
}

// specs is specsOf(guardObjects).
func (f *fx) specs() map[tenancy.ObjectAddr]string { return f.specsOf(guardObjects) }

// specsOf is the spec of each of objs the cluster holds, as JSON (sorted
// members), "" for one it does not hold.
func (f *fx) specsOf(objs []tenancy.ObjectAddr) map[tenancy.ObjectAddr]string {
	out := map[tenancy.ObjectAddr]string{}
	for _, a := range objs {
		o, err := f.dyn.Resource(live.KindGVR(a.Kind)).Get(context.Background(), a.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			out[a] = ""
			continue
		}
		if err != nil {
			f.t.Fatal(err)
		}
		b, _ := json.Marshal(o.Object["spec"])
		out[a] = string(b)
	}
	return out
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1]
}
