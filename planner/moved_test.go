package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/snapshot"
)

// movedPlanTenancy: department d with 4 cards on a100; project r takes
// deserved of them under a derived queue name, in namespace r-ns.
func movedPlanTenancy(deserved string) string {
	return `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: a100}
spec: {labelKey: gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: d}
spec:
  queues:
  - {name: d-a100, nodepool: a100, resources: {gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: r}
spec:
  parent: d
  namespace: r-ns
  queues:
  - {name: "", nodepool: a100, resources: {gpu: {deserved: ` + deserved + `, limit: 4, overQuotaWeight: 1}}}
`
}

// TestMovedCreatesThenRemoves: a moved project is created first (growing
// projects), the old one removed after it (removing renamed projects); the
// intermediate state, where both exist and share the namespace, is
// verified, and the shared namespace is no error there.
func TestMovedCreatesThenRemoves(t *testing.T) {
	p := catPlan(t, mustState(t, movedPlanTenancy("2")), "moved {\n  from = \"r\"\n  to   = \"s\"\n}\n")
	if !p.OrderVerified || !p.Renderable() {
		t.Fatalf("verified %v, renderable %v: %q", p.OrderVerified, p.Renderable(), messages(p.Findings))
	}
	if s := p.Summary; s.Add != 1 || s.Change != 0 || s.Destroy != 1 {
		t.Errorf("summary %+v, want 1 to add, 0 to change, 1 to destroy", s)
	}
	var steps []string
	for _, st := range p.Steps {
		steps = append(steps, string(st.Phase)+": "+string(st.Action)+" "+st.Object.String())
	}
	want := []string{"growing or new projects: create Project/s", "removing renamed projects: delete Project/r"}
	if !slices.Equal(steps, want) {
		t.Fatalf("steps\n%s\nwant\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	if got, want := string(p.Steps[0].Manifest), `{"apiVersion":"kai.resources/v1alpha1","kind":"Project","metadata":{"name":"s"},"spec":{"namespace":"r-ns","parent":"d","queues":[{"name":"","nodepool":"a100","resources":{"gpu":{"deserved":2,"limit":4,"overQuotaWeight":1}}}]}}`; got != want {
		t.Errorf("manifest\n got %s\nwant %s", got, want)
	}
	if got := codesOf(p.Findings); !slices.Contains(got, "warning moved-project") || slices.Contains(got, "error shared-namespace") {
		t.Errorf("findings %q", got)
	}
}

// TestMovedOverGuarantee: while both projects exist the department's
// projects are guaranteed both their cards; when that is over the
// department's, no order is safe and the plan says so.
func TestMovedOverGuarantee(t *testing.T) {
	p := catPlan(t, mustState(t, movedPlanTenancy("3")), "moved {\n  from = \"r\"\n  to   = \"s\"\n}\n")
	if p.OrderVerified || p.Renderable() {
		t.Fatalf("verified %v, renderable %v", p.OrderVerified, p.Renderable())
	}
	var msg string
	for _, f := range p.Findings {
		if f.Code == CodeUnsafeOrder {
			msg = f.Message
		}
	}
	if !strings.HasPrefix(msg, "no safe order: after step 1 (create Project s, growing or new projects) the state would have an error this plan does not end with: ") ||
		!strings.Contains(msg, "6 cards") {
		t.Errorf("unsafe-order message %q", msg)
	}
}

// TestMovedNamespaceLabel: the namespace a rename carries over is labelled
// for the old project until the patch script relabels it, so the new
// project gets no namespace-labelled-other-project for it; a project
// whose namespace is labelled for a third project still does (issue 16).
func TestMovedNamespaceLabel(t *testing.T) {
	for _, tc := range []struct{ label, want string }{
		{"r", ""},
		{"x", "warning namespace-labelled-other-project: project s: namespace r-ns is labelled kai/project=x, which binds it to project x, not to s"},
	} {
		before := mustState(t, movedPlanTenancy("2"))
		before.NotRead = slices.DeleteFunc(before.NotRead, func(n snapshot.NotRead) bool { return n.What == snapshot.SourceNamespaces })
		before.Namespaces = []snapshot.Namespace{{Name: "r-ns", Labels: map[string]string{"kai/project": tc.label}}}
		p := catPlan(t, before, "moved {\n  from = \"r\"\n  to   = \"s\"\n}\n")
		var got []string
		for _, m := range messages(p.Findings) {
			if strings.Contains(m, "namespace-labelled-other-project") {
				got = append(got, m)
			}
		}
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("namespace r-ns labelled for %s: findings %q, want %q", tc.label, got, tc.want)
		}
	}
}
