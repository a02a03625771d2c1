package integration

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/render/dryrun"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// gitOpsWarning is the plan's warning for project benchmark, which the
// setup labels as Argo CD would.
const gitOpsWarning = "project benchmark is owned by Argo CD (argocd.argoproj.io/instance=tenancy): a live patch to it is put back at the next sync — change the GitOps source instead, or pause the sync before running the patch script"

// TestLive is the whole loop against one API server, in order (each part
// starts from the cluster the previous one left): the sample tenancy with
// nodes, Queues with usage and namespaces is created; snapshot reads it;
// plans use capacity and usage; the rendered script is run with kubectl;
// a stale value stops it; an RBAC-limited user's snapshot; the server's
// dry run; the git snapshot's live overlay; reader errors; and last, the
// CRDs removed.
func TestLive(t *testing.T) {
	f := newFixture(t)
	setup(f)

	t.Run("snapshot reads the cluster", func(t *testing.T) { testSnapshot(f.in(t)) })
	t.Run("reader pages through every list", func(t *testing.T) { testPaging(f.in(t)) })
	t.Run("plans use capacity and usage", func(t *testing.T) { testPlanFindings(f.in(t)) })
	t.Run("the patch script changes the values, once", func(t *testing.T) { testApply(f.in(t)) })
	t.Run("a value changed by someone else stops the script", func(t *testing.T) { testStale(f.in(t)) })
	t.Run("server dry run", func(t *testing.T) { testDryRun(f.in(t)) })
	t.Run("server dry run refusals in the server's words", func(t *testing.T) { testDryRunRefusals(f.in(t)) })
	t.Run("RBAC forbids listing Queues", func(t *testing.T) { testRBAC(f.in(t)) })
	t.Run("git snapshot with and without the live overlay", func(t *testing.T) { testGitOverlay(f.in(t)) })
	t.Run("kubeconfig and timeout errors", func(t *testing.T) { testErrors(f.in(t)) })
	t.Run("kubeconfig like kubectl: contexts, --cluster, --user, --as", func(t *testing.T) { testKubeconfig(f.in(t)) })
	t.Run("MIG and AMD cards, Queue requests and age", func(t *testing.T) { testCapacity(f.in(t)) })
	t.Run("the KRMConfig's flags and a Queue under manual override", func(t *testing.T) { testKRMConfigFlags(f.in(t)) })
	t.Run("one tenancy read live and from git: the same findings", func(t *testing.T) { testReadersAgree(f.in(t)) })
	t.Run("a root project without spec.parent moves into a department", func(t *testing.T) { testRootProjectPatch(f.in(t)) })
	t.Run("CRDs missing", func(t *testing.T) { testCRDsMissing(f.in(t)) })
}

// setup creates the sample tenancy (examples/sample/tenancy.yaml), labels
// project benchmark as Argo CD does, adds a KRMConfig, one GPU node of 4
// cards in pool rtx-pro-6000 and one CPU node, the project namespaces
// labelled kai/project, and the KAI Queues KRM would derive with usage:
// workspace-rtx uses 2 cards (non-preemptible) and 1500m cpu, 3Gi memory;
// benchmark-rtx uses 3 cards (borrowing above its guarantee of 1).
func setup(f *fx) {
	f.createYAML(filepath.Join(f.root, "examples", "sample", "tenancy.yaml"))
	f.mergePatch(live.GVRProject, "benchmark", `{"metadata":{"labels":{"argocd.argoproj.io/instance":"tenancy"}}}`)
	f.createYAML(f.write("krmconfig.yaml", "apiVersion: kai.resources/v1alpha1\nkind: KRMConfig\nmetadata: {name: krm-config}\nspec:\n  global: {namespaceProjectLabelKey: kai/project}\n"))
	f.node("gpu-node-1", map[string]string{"example.com/gpu-class": "rtx-pro-6000", "kubernetes.io/hostname": "gpu-node-1"}, "4", "4", true, false)
	f.node("cpu-node-1", map[string]string{"kubernetes.io/hostname": "cpu-node-1"}, "", "", true, false)
	for _, p := range []string{"kai-verify", "workspace", "benchmark"} {
		f.namespace(p, map[string]string{"kai/project": p})
	}
	f.queue("platform-rtx", "", [3]any{4, 4, 1}, map[string]any{"nvidia.com/gpu": "3"}, nil)
	f.queue("kai-verify-rtx", "platform-rtx", [3]any{0, 1, 1}, nil, nil)
	f.queue("workspace-rtx", "platform-rtx", [3]any{3, 3, 1},
		map[string]any{"nvidia.com/gpu": "2", "cpu": "1500m", "memory": "3Gi"}, map[string]any{"nvidia.com/gpu": "2"})
	f.queue("benchmark-rtx", "platform-rtx", [3]any{1, 4, 1}, map[string]any{"nvidia.com/gpu": int64(3)}, nil)
}

// namespaceCount is the number of namespaces the server holds.
func (f *fx) namespaceCount() int {
	l, err := f.cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return len(l.Items)
}

func testSnapshot(f *fx) {
	// KUBECONFIG from the environment and its current context, as kubectl.
	r := f.must(f.krmplan("snapshot", "-o", "state.json"), 0, "snapshot")
	if r.stdout != "" {
		f.t.Errorf("snapshot -o wrote to stdout: %q", r.stdout)
	}
	want := fmt.Sprintf("Read 1 node pool, 1 department and 3 projects from context envtest (%[1]s).\nRead 2 nodes, 4 Queues and %[2]d namespaces.\n"+
		"Wrote state.json: context envtest (%[1]s), 1 node pool, 1 department, 3 projects, 2 nodes, 4 Queues, %[2]d namespaces.\n", f.server, f.namespaceCount())
	f.wantEqual("stderr", r.stderr, want)

	s := f.state("state.json")
	f.wantEqual("source", s.Source, snapshot.Source{Kind: "cluster", Context: "envtest", Server: f.server})
	f.wantEqual("taken_at", s.TakenAt, "2026-01-01T00:00:00Z")
	if len(s.NotRead) != 0 {
		f.t.Errorf("not_read = %v, want none", s.NotRead)
	}
	f.snapshotObjects(s)
	f.snapshotCluster(s)
	// Only spec and the metadata that matters; never a credential.
	text := f.read("state.json")
	for _, bad := range []string{"managedFields", "sync-wave", "conditions", "certificate", "client-key", "token", "BEGIN", "password"} {
		if strings.Contains(text, bad) {
			f.t.Errorf("state.json contains %q", bad)
		}
	}
	// The Queues' ages (the fair share's tie-break), no other object's.
	if n := strings.Count(text, `"creationTimestamp"`); n != len(s.LiveQueues) {
		f.t.Errorf("state.json has %d creationTimestamps, want one per Queue (%d)", n, len(s.LiveQueues))
	}
	// Deterministic: the same cluster gives the same bytes.
	f.must(f.krmplan("snapshot", "--context", "envtest", "-o", "again.json"), 0, "second snapshot")
	if f.read("again.json") != text {
		f.t.Errorf("two snapshots of an unchanged cluster differ")
	}
	// stdout when there is no -o.
	if r := f.must(f.krmplan("snapshot"), 0, "snapshot to stdout"); r.stdout != text {
		f.t.Errorf("snapshot without -o printed other bytes than -o wrote")
	}
}

// snapshotObjects checks the KRM objects of the live snapshot s: specs,
// metadata and GitOps keys as the cluster holds them.
func (f *fx) snapshotObjects(s *snapshot.State) {
	if len(s.NodePools) != 1 || s.NodePools[0].Spec != (tenancy.NodePoolSpec{LabelKey: "example.com/gpu-class", LabelValue: "rtx-pro-6000"}) ||
		s.NodePools[0].Metadata.UID == "" || s.NodePools[0].Metadata.ResourceVersion == "" {
		f.t.Errorf("node pools = %+v", s.NodePools)
	}
	if got := f.get(live.GVRDepartment, "platform"); len(s.Departments) != 1 ||
		s.Departments[0].Metadata.UID != string(got.GetUID()) || s.Departments[0].Metadata.ResourceVersion != got.GetResourceVersion() {
		f.t.Errorf("department metadata = %+v, want uid %s rv %s", s.Departments, got.GetUID(), got.GetResourceVersion())
	}
	dq := s.Departments[0].Spec.Queues[0]
	f.wantEqual("platform queue", fmt.Sprintf("%s %s gpu %s/%s/%s cpu %s/%s", dq.Name, dq.NodePool,
		dq.Resources.GPU.Deserved, dq.Resources.GPU.Limit, dq.Resources.GPU.OverQuotaWeight, dq.Resources.CPU.Deserved, dq.Resources.CPU.Limit),
		"platform-rtx rtx-pro-6000 gpu 4/4/1 cpu -1/-1")
	var projects []string
	for _, p := range s.Projects {
		q := p.Spec.Queues[0]
		projects = append(projects, fmt.Sprintf("%s parent=%s ns=%s pools=%v %s prio=%d gpu=%s/%s gitops=%v",
			p.Metadata.Name, p.Spec.Parent, p.Spec.Namespace, p.Spec.DefaultNodePools, q.Name, *q.Priority,
			q.Resources.GPU.Deserved, q.Resources.GPU.Limit, p.Metadata.GitOps))
	}
	f.wantEqual("projects", strings.Join(projects, "\n"), strings.Join([]string{
		"benchmark parent=platform ns=benchmark pools=[rtx-pro-6000] benchmark-rtx prio=50 gpu=1/4 gitops=map[argocd.argoproj.io/instance:tenancy]",
		"kai-verify parent=platform ns=kai-verify pools=[rtx-pro-6000] kai-verify-rtx prio=100 gpu=0/1 gitops=map[]",
		"workspace parent=platform ns=workspace pools=[rtx-pro-6000] workspace-rtx prio=100 gpu=3/3 gitops=map[]",
	}, "\n"))
	if mn := s.ManagedNodes; mn == nil || mn.Metadata.Name != "kai-managed-nodes-config" ||
		fmt.Sprint(mn.Terms) != "[{[{example.com/gpu-class In [rtx-pro-6000]}]}]" {
		f.t.Errorf("managed nodes config = %+v", s.ManagedNodes)
	}
	if s.KRMConfig == nil || s.KRMConfig.Metadata.Name != "krm-config" || s.KRMConfig.ProjectLabelKey != "kai/project" {
		f.t.Errorf("KRMConfig = %+v", s.KRMConfig)
	}
}

// snapshotCluster checks what the live snapshot s holds of the cluster:
// its nodes, the scheduler's Queues with their usage, the namespaces.
func (f *fx) snapshotCluster(s *snapshot.State) {
	var nodes []string
	for _, n := range s.Nodes {
		nodes = append(nodes, fmt.Sprintf("%s cap=%s alloc=%s %v ready=%v cordoned=%v class=%s", n.Name, n.GPUCapacity, n.GPUAllocatable, n.Allocatable, n.Ready, n.Cordoned, n.Labels["example.com/gpu-class"]))
	}
	f.wantEqual("nodes", strings.Join(nodes, "; "), "cpu-node-1 cap=0 alloc=0 map[cpu:63 memory:500Gi] ready=true cordoned=false class=; "+
		"gpu-node-1 cap=4 alloc=4 map[cpu:63 memory:500Gi nvidia.com/gpu:4] ready=true cordoned=false class=rtx-pro-6000")
	var queues []string
	for _, q := range s.LiveQueues {
		used, _, err := q.Usage(quota.GPU, false)
		if err != nil {
			f.t.Fatal(err)
		}
		mem, _, _ := q.Usage(quota.Memory, false)
		queues = append(queues, fmt.Sprintf("%s parent=%s quota=%s limit=%s used=%s mem=%s alloc=%v np=%v", q.Name, q.ParentQueue,
			q.Resources.GPU.Deserved, q.Resources.GPU.Limit, used, mem, q.Allocated, q.AllocatedNonPreemptible))
	}
	f.wantEqual("live queues", strings.Join(queues, "\n"), strings.Join([]string{
		"benchmark-rtx parent=platform-rtx quota=1 limit=4 used=3 mem=0 alloc=map[nvidia.com/gpu:3] np=map[]",
		"kai-verify-rtx parent=platform-rtx quota=0 limit=1 used=0 mem=0 alloc=map[] np=map[]",
		"platform-rtx parent= quota=4 limit=4 used=3 mem=0 alloc=map[nvidia.com/gpu:3] np=map[]",
		"workspace-rtx parent=platform-rtx quota=3 limit=3 used=2 mem=3221.225472 alloc=map[cpu:1500m memory:3Gi nvidia.com/gpu:2] np=map[nvidia.com/gpu:2]",
	}, "\n"))
	labelled := map[string]string{}
	for _, ns := range s.Namespaces {
		if v, ok := ns.Labels["kai/project"]; ok {
			labelled[ns.Name] = v
		}
	}
	f.wantEqual("project namespaces", labelled, map[string]string{"benchmark": "benchmark", "kai-verify": "kai-verify", "workspace": "workspace"})
}

// testPaging reads with a page size of 1 and checks every list was paged
// with Limit and Continue and that the result is the same state.
func testPaging(f *fx) {
	var mu sync.Mutex
	queries := map[string][]string{}
	cfg := rest.CopyConfig(f.env.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			mu.Lock()
			queries[req.URL.Path] = append(queries[req.URL.Path], req.URL.RawQuery)
			mu.Unlock()
			return rt.RoundTrip(req)
		})
	}
	read := func(page int64) *snapshot.State {
		r, err := live.NewClusterReader(&live.KubeTarget{Config: cfg, Context: "envtest", Server: f.server})
		if err != nil {
			f.t.Fatal(err)
		}
		r.PageSize = page
		s, err := r.ReadState(context.Background())
		if err != nil {
			f.t.Fatal(err)
		}
		s.Seal()
		return s
	}
	paged := read(1)
	mu.Lock()
	got := queries["/apis/kai.resources/v1alpha1/projects"]
	nodes := queries["/api/v1/nodes"]
	queries = map[string][]string{}
	mu.Unlock()
	if len(got) != 3 || got[0] != "limit=1" || !strings.HasPrefix(got[1], "continue=") || !strings.HasSuffix(got[1], "&limit=1") || !strings.HasPrefix(got[2], "continue=") {
		f.t.Errorf("project list requests = %q, want limit=1 then two with continue", got)
	}
	if len(nodes) != 2 {
		f.t.Errorf("node list requests = %q, want 2 pages", nodes)
	}
	whole := read(0)
	if whole.Digest != paged.Digest || !reflect.DeepEqual(whole, paged) {
		f.t.Errorf("a paged read differs from a read in one page")
	}
	mu.Lock()
	if q := queries["/apis/kai.resources/v1alpha1/projects"]; len(q) != 1 || q[0] != "limit=500" {
		f.t.Errorf("default page: project list requests %q, want one with limit=500", q)
	}
	mu.Unlock()
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// testPlanFindings plans against the live snapshot: the checks use the
// pool's cards (4, from the node) and the Queues' usage.
func testPlanFindings(f *fx) {
	move := filepath.Join(f.root, "examples", "sample", "move-one-card.hcl")
	r := f.must(f.krmplan("plan", move, "--state", "state.json", "--out", "plan.json", "--no-color"), 0, "plan move-one-card")
	f.wantEqual("findings of move-one-card", findings(r.stdout), []string{"Warning: " + gitOpsWarning})
	f.wantLine("plan", r.stdout, "Plan: 0 to add, 2 to change, 0 to destroy.")
	f.wantLine("plan", r.stdout, "Order: 2 steps in phases, every intermediate state verified against the checks.")

	// A planned limit below the usage warns: benchmark-rtx uses 3 cards.
	f.write("below-usage.hcl", "project \"benchmark\" {\n  queue \"rtx-pro-6000\" {\n    gpu = { limit = 2 }\n  }\n}\n")
	r = f.must(f.krmplan("plan", "below-usage.hcl", "--state", "state.json", "--no-color"), 0, "plan below usage")
	f.wantLine("plan below usage", r.stdout, "Warning: benchmark-rtx: the queue uses 3 cards, above its gpu limit of 2 cards — 1 card over; KAI's scheduler gives it no more cards until its usage is below the limit")

	// A department above the pool's 4 cards is an error (the node is Ready
	// and uncordoned: the count is settled).
	f.write("over-pool.hcl", "department \"platform\" {\n  queue \"rtx-pro-6000\" {\n    gpu = { deserved = 5, limit = 5 }\n  }\n}\n")
	r = f.must(f.krmplan("plan", "over-pool.hcl", "--state", "state.json", "--no-color"), 1, "plan over the pool")
	f.wantLine("plan over the pool", r.stdout, "Error: pool rtx-pro-6000: departments are guaranteed 5 cards, the pool has 4 cards — 1 card over")
	f.wantLine("plan over the pool", r.stdout, "Warning: platform-rtx: the department's gpu limit of 5 cards is above the 4 cards of pool rtx-pro-6000 — 1 card of it can never be reached")
	f.wantLine("plan over the pool", r.stdout, "Not renderable: 1 error; this plan cannot be rendered.")
}

// patchLine is the kubectl command of one step as the script writes it.
func patchLine(plural, name, ops string) string {
	return fmt.Sprintf("kubectl --context 'envtest' patch %s %s --type=json --field-manager=krmplan -p '%s'", plural, name, ops)
}

// testApply renders the move-one-card plan as patches and runs the script
// with the real kubectl: the values change; a second run fails at the
// first test and changes nothing.
func testApply(f *fx) {
	p := f.plan("plan.json")
	f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", p.PlanID, "-o", "apply.sh"), 0, "render")
	script := f.read("apply.sh")
	f.wantLine("script header", script, "# WARNING: "+gitOpsWarning)
	f.wantLine("script", script, patchLine("projects.kai.resources", "workspace",
		`[{"op":"test","path":"/spec/queues/0/name","value":"workspace-rtx"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":3},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":2}]`))
	f.wantLine("script", script, patchLine("projects.kai.resources", "benchmark",
		`[{"op":"test","path":"/spec/queues/0/name","value":"benchmark-rtx"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":1},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":2}]`))

	r := f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh"), 0, "the patch script")
	f.wantEqual("kubectl output", r.stdout, "project.kai.resources/workspace patched\nproject.kai.resources/benchmark patched\n")
	f.wantEqual("workspace deserved", f.queue0(live.GVRProject, "workspace", "deserved"), 2)
	f.wantEqual("benchmark deserved", f.queue0(live.GVRProject, "benchmark", "deserved"), 2)
	managers := map[string]bool{}
	for _, mf := range f.get(live.GVRProject, "workspace").GetManagedFields() {
		managers[mf.Manager] = true
	}
	if !managers["krmplan"] {
		f.t.Errorf("workspace field managers %v, want krmplan among them", managers)
	}

	rvW, rvB := f.rv(live.GVRProject, "workspace"), f.rv(live.GVRProject, "benchmark")
	r = f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh")
	if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, "The request is invalid") {
		f.t.Errorf("second run: exit %d, stdout %q, stderr %q; want a refusal of the first patch and nothing patched", r.code, r.stdout, r.stderr)
	}
	if f.rv(live.GVRProject, "workspace") != rvW || f.rv(live.GVRProject, "benchmark") != rvB {
		f.t.Errorf("the second run changed an object")
	}
}

// testStale: between render and apply someone else changes kai-verify's
// limit; the script applies step 1, fails at step 2 (422) keeping the
// other person's value, and never runs step 3.
func testStale(f *fx) {
	f.must(f.krmplan("snapshot", "-o", "moved.json"), 0, "snapshot after the move")
	f.write("back.hcl", `project "benchmark" {
  queue "rtx-pro-6000" {
    gpu = { deserved = 1 }
  }
}
project "kai-verify" {
  queue "rtx-pro-6000" {
    gpu = { limit = 2 }
  }
}
project "workspace" {
  queue "rtx-pro-6000" {
    gpu = { deserved = 3 }
  }
}
`)
	f.must(f.krmplan("plan", "back.hcl", "--state", "moved.json", "--out", "back.json"), 0, "plan back")
	p := f.plan("back.json")
	var order []string
	for _, st := range p.Steps {
		order = append(order, string(st.Phase)+": "+st.Object.Name)
	}
	f.wantEqual("steps", order, []string{"shrinking projects: benchmark", "growing or new projects: kai-verify", "growing or new projects: workspace"})
	f.must(f.krmplan("render", "back.json", "--format", "patch", "--approve", p.PlanID, "-o", "back.sh"), 0, "render back")

	f.setQueue0(live.GVRProject, "kai-verify", "/resources/gpu/limit", 3)
	r := f.exec(f.environ(f.env.Kubeconfig), "sh", "back.sh")
	if r.code == 0 {
		f.t.Fatalf("the script succeeded over a changed value:\n%s", r.stdout)
	}
	f.wantEqual("kubectl output", r.stdout, "project.kai.resources/benchmark patched\n")
	if !strings.Contains(r.stderr, "The request is invalid") {
		f.t.Errorf("stderr %q, want kubectl's 422 refusal", r.stderr)
	}
	f.wantEqual("benchmark deserved (step 1 applied)", f.queue0(live.GVRProject, "benchmark", "deserved"), 1)
	f.wantEqual("kai-verify limit (the other person's value)", f.queue0(live.GVRProject, "kai-verify", "limit"), 3)
	f.wantEqual("workspace deserved (step 3 never ran)", f.queue0(live.GVRProject, "workspace", "deserved"), 2)
}

// testDryRun: --server-dry-run on a plan the server accepts adds a note
// and persists nothing; after someone changes a tested value, the same
// plan gets an error finding in the server's words and is not renderable.
func testDryRun(f *fx) {
	f.must(f.krmplan("snapshot", "-o", "now.json"), 0, "snapshot")
	f.write("grow.hcl", `project "benchmark" {
  queue "rtx-pro-6000" {
    gpu = { limit = 3 }
  }
}
project "workspace" {
  queue "rtx-pro-6000" {
    gpu = { deserved = 3 }
  }
}
`)
	rvW, rvB := f.rv(live.GVRProject, "workspace"), f.rv(live.GVRProject, "benchmark")
	r := f.must(f.krmplan("plan", "grow.hcl", "--state", "now.json", "--server-dry-run", "--out", "grow.json", "--no-color"), 0, "plan --server-dry-run")
	note := "Note: server dry run: the API server accepted all 2 steps (dryRun=All, nothing persisted); each step was checked against the live object as it is now, without the effect of the steps before it, since a dry run persists nothing"
	f.wantLine("dry run", r.stdout, note)
	p := f.plan("grow.json")
	dryRunNotes := 0
	for _, x := range p.Findings {
		if x.Code == planner.CodeServerDryRun {
			dryRunNotes++
		}
	}
	if !p.Renderable() || dryRunNotes != 1 || p.Summary.Notes != 3 {
		f.t.Errorf("saved plan: renderable %v, %d dry-run notes, summary %+v; want renderable, 1, 3 notes", p.Renderable(), dryRunNotes, p.Summary)
	}
	if f.rv(live.GVRProject, "workspace") != rvW || f.rv(live.GVRProject, "benchmark") != rvB {
		f.t.Errorf("the dry run persisted a change")
	}

	f.setQueue0(live.GVRProject, "workspace", "/resources/gpu/deserved", 2.5)
	r = f.must(f.krmplan("plan", "grow.hcl", "--state", "now.json", "--server-dry-run", "--no-color"), 1, "plan --server-dry-run over a changed value")
	f.wantLine("dry run refusal", r.stdout, "Error: step 2/2 (patch Project workspace, growing or new projects): the API server refused it in a dry run: "+
		"the server rejected our request due to an error in our request — a value this patch tests (a queue name or a number as read) is no longer what the snapshot read: "+
		"the object changed since the snapshot; take a new snapshot and plan again")
	f.wantLine("dry run refusal", r.stdout, "Note: server dry run: the API server accepted 1 of 2 steps (dryRun=All, nothing persisted); each step was checked against the live object as it is now, without the effect of the steps before it, since a dry run persists nothing")
	f.wantLine("dry run refusal", r.stdout, "Not renderable: 1 error; this plan cannot be rendered.")
	f.wantEqual("workspace deserved", f.queue0(live.GVRProject, "workspace", "deserved"), 2.5)
	f.wantEqual("benchmark limit", f.queue0(live.GVRProject, "benchmark", "limit"), 4)

	// A snapshot without a context cannot name the cluster by itself.
	s := f.state("now.json")
	s.Source.Context = ""
	s.Seal()
	f.write("nocontext.json", string(s.Marshal()))
	r = f.must(f.krmplan("plan", "grow.hcl", "--state", "nocontext.json", "--server-dry-run"), 1, "dry run without a context")
	f.wantEqual("stderr", r.stderr, "Error: --server-dry-run: the snapshot names no cluster context (a git snapshot without a live overlay); pass --context C or --kubeconfig F\n")
	r = f.must(f.krmplan("plan", "grow.hcl", "--state", "nocontext.json", "--server-dry-run", "--context", "envtest", "--no-color"), 1, "dry run with --context")
	if !strings.Contains(r.stdout, "Error: step 2/2 (patch Project workspace") {
		f.t.Errorf("--context envtest: no refusal of step 2 in\n%s", r.stdout)
	}
}

// testDryRunRefusals sends steps the server refuses on its own (no KRM
// webhook runs here): the NodePool's CEL immutability rule and a create of
// an object that exists.
func testDryRunRefusals(f *fx) {
	steps := []planner.Step{
		{Phase: planner.PhaseNewPools, Action: planner.StepPatch, Object: tenancy.KindNodePool.Object("rtx-pro-6000"),
			Ops: []planner.Op{{Op: "replace", Path: "/spec/labelValue", Value: []byte(`"h100"`)}}},
		{Phase: planner.PhaseGrowDepartments, Action: planner.StepCreate, Object: tenancy.KindDepartment.Object("platform"),
			Manifest: []byte(`{"apiVersion":"kai.resources/v1alpha1","kind":"Department","metadata":{"name":"platform"},"spec":{"queues":[]}}`)},
		{Phase: planner.PhaseGrowDepartments, Action: planner.StepCreate, Object: tenancy.KindDepartment.Object("research"),
			Manifest: []byte(`{"apiVersion":"kai.resources/v1alpha1","kind":"Department","metadata":{"name":"research"},"spec":{"queues":[]}}`)},
	}
	fs, err := dryrun.ServerDryRun(context.Background(), f.dyn, steps)
	if err != nil {
		f.t.Fatal(err)
	}
	var got []string
	for _, x := range fs {
		got = append(got, fmt.Sprintf("%s %s %s: %s", x.Level, x.Code, x.Object, x.Message))
	}
	if len(got) != 3 {
		f.t.Fatalf("findings %q, want 2 refusals and the note", got)
	}
	cel := "error server-dry-run-refused NodePool/rtx-pro-6000: step 1/3 (patch NodePool rtx-pro-6000, new node pools): the API server refused it in a dry run: NodePool.kai.resources \"rtx-pro-6000\" is invalid: spec: Invalid value: "
	if !strings.HasPrefix(got[0], cel) || !strings.HasSuffix(got[0], "labelKey and labelValue are immutable") {
		f.t.Errorf("CEL refusal:\n  %s\nwant the prefix\n  %s…labelKey and labelValue are immutable", got[0], cel)
	}
	f.wantEqual("create refusal", got[1], `error server-dry-run-refused Department/platform: step 2/3 (create Department platform, growing or new departments): the API server refused it in a dry run: departments.kai.resources "platform" already exists`)
	f.wantEqual("note", got[2], "note server-dry-run : server dry run: the API server accepted 1 of 3 steps (dryRun=All, nothing persisted); each step was checked against the live object as it is now, without the effect of the steps before it, since a dry run persists nothing")
	if _, err := f.dyn.Resource(live.GVRDepartment).Get(context.Background(), "research", metav1.GetOptions{}); err == nil {
		f.t.Errorf("the dry-run create of department research persisted it")
	}
	if v := f.get(live.GVRNodePool, "rtx-pro-6000").Object["spec"].(map[string]any)["labelValue"]; v != "rtx-pro-6000" {
		f.t.Errorf("labelValue = %v", v)
	}
}

// testRBAC: a user who may read the KRM objects, nodes and namespaces but
// not Queues gets a snapshot with a not_read entry, and the plan says the
// usage checks were not run; one who may not list nodes gets a plan that
// says the pool's cards are unknown; one without access to the KRM
// objects gets no snapshot.
func testRBAC(f *fx) {
	ctx := context.Background()
	err := f.env.BindClusterRole(ctx, "krmplan-planner", rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "krmplan:planners"},
		rbacv1.PolicyRule{APIGroups: []string{"kai.resources"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes", "namespaces"}, Verbs: []string{"get", "list"}})
	if err != nil {
		f.t.Fatal(err)
	}
	u, err := f.env.AddUser("planner", "krmplan:planners")
	if err != nil {
		f.t.Fatal(err)
	}
	reason := `forbidden: queues.scheduling.run.ai is forbidden: User "planner" cannot list resource "queues" in API group "scheduling.run.ai" at the cluster scope`
	r := f.must(f.krmplan("snapshot", "--kubeconfig", u.Kubeconfig, "-o", "planner.json"), 0, "snapshot as planner")
	f.wantEqual("stderr", r.stderr, fmt.Sprintf("Read 1 node pool, 1 department and 3 projects from context envtest (%[1]s).\nRead 2 nodes and %[2]d namespaces.\nNot read: queues — %[3]s\n"+
		"Wrote planner.json: context envtest (%[1]s), 1 node pool, 1 department, 3 projects, 2 nodes, Queues not read, %[2]d namespaces.\n",
		f.server, f.namespaceCount(), reason))
	s := f.state("planner.json")
	f.wantEqual("not_read", s.NotRead, []snapshot.NotRead{{What: snapshot.SourceQueues, Reason: reason}})
	if len(s.LiveQueues) != 0 || len(s.Nodes) != 2 {
		f.t.Errorf("live queues %d, nodes %d; want 0 and 2", len(s.LiveQueues), len(s.Nodes))
	}
	r = f.must(f.krmplan("plan", "grow.hcl", "--state", "planner.json", "--no-color"), 0, "plan as planner")
	f.wantLine("plan", r.stdout, "Note: usage checks not run: queues not read ("+reason+") — usage against the limits, non-preemptible usage against the guarantees and the scheduler's Queue numbers were not compared")

	// Nodes not listable: the pool's card count is unknown, and the plan says so.
	err = f.env.BindClusterRole(ctx, "krmplan-no-nodes", rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "krmplan:no-nodes"},
		rbacv1.PolicyRule{APIGroups: []string{"kai.resources", "scheduling.run.ai"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list"}})
	if err != nil {
		f.t.Fatal(err)
	}
	u2, err := f.env.AddUser("planner2", "krmplan:no-nodes")
	if err != nil {
		f.t.Fatal(err)
	}
	f.must(f.krmplan("snapshot", "--kubeconfig", u2.Kubeconfig, "-o", "nonodes.json"), 0, "snapshot without nodes")
	nodesReason := `forbidden: nodes is forbidden: User "planner2" cannot list resource "nodes" in API group "" at the cluster scope`
	f.wantEqual("not_read", f.state("nonodes.json").NotRead, []snapshot.NotRead{{What: snapshot.SourceNodes, Reason: nodesReason}})
	r = f.must(f.krmplan("plan", "grow.hcl", "--state", "nonodes.json", "--no-color"), 0, "plan without nodes")
	f.wantLine("plan", r.stdout, "Note: node pool rtx-pro-6000: the card count is unknown (nodes not read: "+nodesReason+"), so the guarantees of the departments and of the project queues outside a department were not compared with the pool's cards")

	// Without any permission on the KRM objects there is nothing to plan.
	nobody, err := f.env.AddUser("nobody")
	if err != nil {
		f.t.Fatal(err)
	}
	r = f.must(f.krmplan("snapshot", "--kubeconfig", nobody.Kubeconfig, "-o", "nobody.json"), 1, "snapshot as nobody")
	f.wantEqual("stderr", r.stderr, fmt.Sprintf("Error: reading nodepools.kai.resources from context envtest (%s): forbidden: nodepools.kai.resources is forbidden: User \"nobody\" cannot list resource \"nodepools\" in API group \"kai.resources\" at the cluster scope; krmplan needs get and list on the kai.resources objects\n", f.server))
}

// testGitOverlay: a git snapshot reads no cluster unless --context or
// --kubeconfig names one (KUBECONFIG alone does not), and then takes
// nodes, Queues and namespaces from it.
func testGitOverlay(f *fx) {
	f.gitRepo(filepath.Join(f.dir, "repo"), filepath.Join(f.root, "examples", "sample", "tenancy.yaml"))

	r := f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "-o", "git.json"), 0, "git snapshot")
	s := f.state("git.json")
	f.wantEqual("stderr", r.stderr, "Wrote git.json: git repo at HEAD ("+s.Source.Commit[:12]+"), 1 file, 1 node pool, 1 department, 3 projects, no cluster data.\n")
	f.wantEqual("offline not_read", len(s.NotRead), 3)
	f.wantEqual("offline source", s.Source.Context+s.Source.Server, "")

	r = f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "--context", "envtest", "-o", "overlay.json"), 0, "git snapshot with overlay")
	s = f.state("overlay.json")
	f.wantEqual("stderr", r.stderr, fmt.Sprintf("Read the live overlay from context envtest (%[1]s).\nRead 2 nodes, 4 Queues and %[2]d namespaces.\n"+
		"Wrote overlay.json: git repo at HEAD (%[3]s), 1 file, 1 node pool, 1 department, 3 projects, cluster data from context envtest (%[1]s).\n",
		f.server, f.namespaceCount(), s.Source.Commit[:12]))
	f.wantEqual("source", fmt.Sprintf("%s %s %s", s.Source.Kind, s.Source.Context, s.Source.Server), "git envtest "+f.server)
	if len(s.NotRead) != 0 || len(s.Nodes) != 2 || len(s.LiveQueues) != 4 || len(s.Departments) != 1 {
		f.t.Errorf("overlay: not_read %v, %d nodes, %d queues, %d departments", s.NotRead, len(s.Nodes), len(s.LiveQueues), len(s.Departments))
	}
	// The git file still says workspace 3 / benchmark 1; the cluster's
	// Queues were never reconciled (no KRM here) and hold the same numbers.
	r = f.must(f.krmplan("plan", filepath.Join(f.root, "examples", "sample", "move-one-card.hcl"), "--state", "overlay.json", "--no-color"), 0, "plan on the overlay")
	f.wantLine("plan on the overlay", r.stdout, "Plan: 0 to add, 2 to change, 0 to destroy.")
	for _, l := range findings(r.stdout) {
		if strings.Contains(l, "not read") || strings.Contains(l, "unknown") {
			f.t.Errorf("plan on the overlay says %q", l)
		}
	}

	r = f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "--context", "envtest", "--no-cluster"), 1, "--no-cluster with --context")
	f.wantEqual("stderr", r.stderr, "Error: snapshot: --no-cluster contradicts --context: give one\n")
	r = f.must(f.krmplan("snapshot", "--no-cluster"), 1, "--no-cluster without --git-repo")
	f.wantEqual("stderr", r.stderr, "Error: snapshot: --no-cluster needs --git-repo (without --git-repo, snapshot reads a live cluster)\n")
}

func testErrors(f *fx) {
	r := f.must(f.krmplan("snapshot", "--context", "nope"), 1, "unknown context")
	if !strings.Contains(r.stderr, `context "nope" does not exist`) || r.stdout != "" {
		f.t.Errorf("unknown context: stdout %q stderr %q", r.stdout, r.stderr)
	}
	r = f.must(f.krmplan("snapshot", "--timeout", "1ns", "-o", "late.json"), 1, "timeout")
	if !strings.HasPrefix(r.stderr, "Error: reading nodepools.kai.resources from context envtest ("+f.server+"): timed out (") ||
		!strings.HasSuffix(r.stderr, "; the read is bounded by --timeout 1ns\n") {
		f.t.Errorf("timeout: stderr %q", r.stderr)
	}
	home := f.t.TempDir()
	env := append(f.environ(filepath.Join(home, "missing")), "HOME="+home)
	r = f.must(f.exec(env, f.bin, "snapshot"), 1, "no kubeconfig")
	f.wantEqual("no kubeconfig", r.stderr, "Error: no cluster configured: $KUBECONFIG "+filepath.Join(home, "missing")+": none of its files exists; pass --kubeconfig FILE or set $KUBECONFIG\n")
}

// testCRDsMissing removes the Queue CRD (the snapshot then records why
// Queues were not read), then the NodePool CRD (the snapshot fails).
func testCRDsMissing(f *fx) {
	f.deleteCRD("queues.scheduling.run.ai", live.GVRQueue)
	r := f.must(f.krmplan("snapshot", "-o", "noqueues.json"), 0, "snapshot without the Queue CRD")
	s := f.state("noqueues.json")
	f.wantEqual("not_read", s.NotRead, []snapshot.NotRead{{What: snapshot.SourceQueues,
		Reason: "the Queue CRD (queues.scheduling.run.ai, v2) is not installed: the server does not serve it (KAI Scheduler is missing or older)"}})
	if !strings.Contains(r.stderr, "Not read: queues — the Queue CRD") {
		f.t.Errorf("stderr %q", r.stderr)
	}

	f.deleteCRD("nodepools.kai.resources", live.GVRNodePool)
	r = f.must(f.krmplan("snapshot", "-o", "nokrm.json"), 1, "snapshot without the KRM CRDs")
	f.wantEqual("stderr", r.stderr, fmt.Sprintf("Error: reading nodepools.kai.resources from context envtest (%s): the KRM CRDs (kai.resources/v1alpha1) are not installed: the server does not serve nodepools.kai.resources; is KAI Resource Management installed, and is this the right cluster?\n", f.server))
	if m, _ := filepath.Glob(filepath.Join(f.dir, "nokrm.json")); len(m) != 0 {
		f.t.Errorf("a failed snapshot wrote nokrm.json")
	}
}
