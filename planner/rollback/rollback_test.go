package rollback_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/rollback"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// rollbackTenancy has what a rollback must put back exactly: a queue
// without a limit (the plan adds one), a queue without a cpu block (the
// plan adds the block), a project whose department the plan changes.
const rollbackTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: a100}
spec: {labelKey: gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: vision}
spec:
  queues:
    - name: vision-a100
      nodepool: a100
      resources:
        gpu: {deserved: 8, limit: 8, overQuotaWeight: 1}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: speech}
spec:
  queues:
    - name: speech-a100
      nodepool: a100
      resources:
        gpu: {deserved: 4, limit: 4}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: detect}
spec:
  parent: vision
  queues:
    - name: detect-a100
      nodepool: a100
      resources:
        gpu: {deserved: 6}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: asr}
spec:
  parent: speech
  queues:
    - name: asr-a100
      nodepool: a100
      priority: 50
      resources:
        gpu: {deserved: 2, limit: 4}
`

// rollbackDesired shrinks vision and detect, grows speech and asr (a limit
// added, a cpu block added), appends a queue on a new pool to asr, and
// creates a pool, a department and a project under it.
const rollbackDesired = `node_pool "h200" {
  label_key   = "gpu"
  label_value = "h200"
}
department "vision" {
  queue "a100" {
    gpu = { deserved = 6, limit = 6 }
  }
}
department "speech" {
  queue "a100" {
    gpu = { deserved = 6, limit = 6, over_quota_weight = 2 }
  }
  queue "h200" {
    name = "speech-h200"
    gpu = { deserved = 4, limit = 4 }
  }
}
project "detect" {
  queue "a100" {
    gpu = { deserved = 4, limit = 6 }
  }
}
project "asr" {
  queue "a100" {
    gpu = { deserved = 4 }
    cpu = { limit = 16000, over_quota_weight = 1 }
  }
  queue "h200" {
    name = "asr-h200"
    gpu = { deserved = 2, limit = 4 }
  }
}
department "lab" {
  queue "h200" {
    name = "lab-h200"
    gpu = { deserved = 2, limit = 2 }
  }
}
project "tools" {
  department = "lab"
  queue "h200" {
    name = "tools-h200"
    gpu = { deserved = 1, limit = 2 }
  }
}
`

// cluster is the JSON of each object, as an API server would hold it.
type cluster map[tenancy.ObjectAddr]map[string]any

func clusterOf(t *testing.T, s *snapshot.State) cluster {
	c := cluster{}
	x := tenancy.NewIndex(&s.Tenancy)
	for _, a := range addrs(s) {
		b, _ := x.Manifest(a)
		c[a] = decode(t, b)
	}
	return c
}

func addrs(s *snapshot.State) []tenancy.ObjectAddr {
	var out []tenancy.ObjectAddr
	for _, p := range s.NodePools {
		out = append(out, tenancy.KindNodePool.Object(p.Metadata.Name))
	}
	for _, d := range s.Departments {
		out = append(out, tenancy.KindDepartment.Object(d.Metadata.Name))
	}
	for _, p := range s.Projects {
		out = append(out, tenancy.KindProject.Object(p.Metadata.Name))
	}
	return out
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// run applies one step as the API server would: a create (with the
// annotation the patch script adds), a JSON patch, or a delete whose tests
// must pass first.
func (c cluster) run(t *testing.T, p *planner.Plan, st planner.Step, what string) {
	t.Helper()
	a := st.Object
	switch st.Action {
	case planner.StepCreate:
		if c[a] != nil {
			t.Fatalf("%s: create %s, which exists", what, a)
		}
		m := decode(t, st.Manifest)
		m["metadata"].(map[string]any)["annotations"] = map[string]any{planner.CreatedByAnnotation: p.PlanID}
		c[a] = m
	case planner.StepPatch, planner.StepDelete:
		ops := st.Ops
		if st.Action == planner.StepDelete {
			ops = planner.TestOps(st)
			if len(ops) != len(st.Ops) {
				t.Fatalf("%s: a delete step holds more than tests: %+v", what, st.Ops)
			}
		}
		b, _ := json.Marshal(ops)
		patch, err := jsonpatch.DecodePatch(b)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		doc, _ := json.Marshal(c[a])
		out, err := patch.Apply(doc)
		if err != nil {
			t.Fatalf("%s (%s %s): %v\npatch %s\nobject %s", what, st.Action, a, err, b, doc)
		}
		c[a] = decode(t, out)
		if st.Action == planner.StepDelete {
			delete(c, a)
		}
	}
}

// TestRollbackRestoresTheSnapshot: the patch script's steps then the
// rollback's give back the snapshot's objects exactly — the limit and the
// cpu block the plan added are absent again, the appended queues and the
// new objects gone — and after the first k steps alone, the rollback's
// last k steps do the same.
func TestRollbackRestoresTheSnapshot(t *testing.T) {
	s := plantest.State(t, "tenancy.yaml", []byte(rollbackTenancy))
	p := plantest.Plan(t, s, "desired.hcl", []byte(rollbackDesired))
	if !p.Renderable() || !p.OrderVerified {
		t.Fatalf("the plan is not renderable: %+v", p.Findings)
	}
	back, err := rollback.Steps(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(p.Steps) {
		t.Fatalf("%d rollback steps for %d steps", len(back), len(p.Steps))
	}
	want := clusterOf(t, s)
	for k := 0; k <= len(p.Steps); k++ {
		c := clusterOf(t, s)
		for i, st := range p.Steps[:k] {
			c.run(t, p, st, "step "+itoa(i+1))
		}
		if k == len(p.Steps) && !reflect.DeepEqual(specs(c), specs(clusterOf(t, p.TargetState()))) {
			t.Fatalf("the steps do not reach the target")
		}
		for i, st := range back[len(back)-k:] {
			c.run(t, p, st, "rollback step "+itoa(len(back)-k+i+1))
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("after %d steps and their rollback:\n%s\nwant the snapshot:\n%s", k, dump(c), dump(want))
		}
	}
}

// specs is c without metadata (the target has no annotation).
func specs(c cluster) map[tenancy.ObjectAddr]any {
	out := map[tenancy.ObjectAddr]any{}
	for a, m := range c {
		out[a] = m["spec"]
	}
	return out
}

func dump(c cluster) string {
	var b strings.Builder
	for a, m := range c {
		j, _ := json.Marshal(m)
		b.WriteString(a.String() + " " + string(j) + "\n")
	}
	return b.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRollbackOps: the exact operations of each rollback step, last step
// first.
func TestRollbackOps(t *testing.T) {
	s := plantest.State(t, "tenancy.yaml", []byte(rollbackTenancy))
	p := plantest.Plan(t, s, "desired.hcl", []byte(rollbackDesired))
	back, err := rollback.Steps(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, st := range back {
		ops, _ := json.Marshal(st.Ops)
		got = append(got, itoa(i+1)+" "+string(st.Action)+" "+st.Object.String()+" ("+string(st.Phase)+") "+string(ops))
	}
	id, _ := json.Marshal(p.PlanID)
	want := []string{
		`1 delete Project/tools (growing or new projects) [{"op":"test","path":"/metadata/annotations/krmplan~1plan","value":` + string(id) + `},{"op":"test","path":"/spec/queues/0/name","value":"tools-h200"},{"op":"test","path":"/spec/parent","value":"lab"},{"op":"test","path":"/spec/queues/0/nodepool","value":"h200"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":1},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":2},{"op":"test","path":"/spec/queues/0/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/overQuotaWeight","value":1}]`,
		`2 patch Project/detect (growing or new projects) [{"op":"test","path":"/spec/queues/0/name","value":"detect-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":6},{"op":"remove","path":"/spec/queues/0/resources/gpu/limit"}]`,
		`3 patch Project/asr (growing or new projects) [{"op":"test","path":"/spec/queues/0/name","value":"asr-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":4},{"op":"test","path":"/spec/queues/0/resources/cpu/limit","value":16000},{"op":"test","path":"/spec/queues/0/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/name","value":"asr-h200"},{"op":"test","path":"/spec/queues/1/nodepool","value":"h200"},{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":2},{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":4},{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":2},{"op":"remove","path":"/spec/queues/0/resources/cpu"},{"op":"remove","path":"/spec/queues/1"}]`,
		`4 patch Department/speech (growing or new departments) [{"op":"test","path":"/spec/queues/0/name","value":"speech-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":6},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":6},{"op":"test","path":"/spec/queues/0/resources/gpu/overQuotaWeight","value":2},{"op":"test","path":"/spec/queues/1/name","value":"speech-h200"},{"op":"test","path":"/spec/queues/1/nodepool","value":"h200"},{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":4},{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":4},{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/1/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/1/resources/memory/overQuotaWeight","value":1},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":4},{"op":"replace","path":"/spec/queues/0/resources/gpu/limit","value":4},{"op":"remove","path":"/spec/queues/0/resources/gpu/overQuotaWeight"},{"op":"remove","path":"/spec/queues/1"}]`,
		`5 delete Department/lab (growing or new departments) [{"op":"test","path":"/metadata/annotations/krmplan~1plan","value":` + string(id) + `},{"op":"test","path":"/spec/queues/0/name","value":"lab-h200"},{"op":"test","path":"/spec/queues/0/nodepool","value":"h200"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":2},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":2},{"op":"test","path":"/spec/queues/0/resources/gpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/cpu/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/cpu/overQuotaWeight","value":1},{"op":"test","path":"/spec/queues/0/resources/memory/deserved","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/limit","value":-1},{"op":"test","path":"/spec/queues/0/resources/memory/overQuotaWeight","value":1}]`,
		`6 patch Department/vision (shrinking departments) [{"op":"test","path":"/spec/queues/0/name","value":"vision-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":6},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":6},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":8},{"op":"replace","path":"/spec/queues/0/resources/gpu/limit","value":8}]`,
		`7 patch Project/detect (shrinking projects) [{"op":"test","path":"/spec/queues/0/name","value":"detect-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":4},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":6}]`,
		`8 delete NodePool/h200 (new node pools) [{"op":"test","path":"/metadata/annotations/krmplan~1plan","value":` + string(id) + `},{"op":"test","path":"/spec/labelKey","value":"gpu"},{"op":"test","path":"/spec/labelValue","value":"h200"}]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rollback:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRollbackRecreatesRemovals: a removed project is created again as
// read, a removed queue entry is added back at its index after tests of
// the entries left; the steps then the rollback give back the snapshot's
// specs, for every prefix of the steps.
func TestRollbackRecreatesRemovals(t *testing.T) {
	s := plantest.State(t, "tenancy.yaml", []byte(rollbackTenancy))
	p := plantest.Plan(t, s, "desired.hcl", []byte("removed { project = \"asr\" }\nremoved {\n  department = \"speech\"\n  queue      = \"a100\"\n}\n"+
		"project \"detect\" {\n  queue \"a100\" {\n    gpu = { limit = 6 }\n  }\n}\n"))
	if !p.Renderable() || !p.OrderVerified {
		t.Fatalf("the plan is not renderable: %+v", p.Findings)
	}
	back, err := rollback.Steps(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, st := range back {
		ops, _ := json.Marshal(st.Ops)
		got = append(got, itoa(i+1)+" "+string(st.Action)+" "+st.Object.String()+" "+string(ops)+" "+string(st.Manifest))
	}
	want := []string{
		`1 patch Department/speech [{"op":"add","path":"/spec/queues/0","value":{"name":"speech-a100","nodepool":"a100","resources":{"gpu":{"deserved":4,"limit":4}}}}] `,
		`2 patch Project/detect [{"op":"test","path":"/spec/queues/0/name","value":"detect-a100"},{"op":"test","path":"/spec/queues/0/resources/gpu/limit","value":6},{"op":"remove","path":"/spec/queues/0/resources/gpu/limit"}] `,
		`3 create Project/asr null {"apiVersion":"kai.resources/v1alpha1","kind":"Project","metadata":{"name":"asr"},"spec":{"parent":"speech","queues":[{"name":"asr-a100","nodepool":"a100","priority":50,"resources":{"gpu":{"deserved":2,"limit":4}}}]}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rollback:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for k := 0; k <= len(p.Steps); k++ {
		c := clusterOf(t, s)
		for i, st := range p.Steps[:k] {
			c.run(t, p, st, "step "+itoa(i+1))
		}
		for i, st := range back[len(back)-k:] {
			c.run(t, p, st, "rollback step "+itoa(len(back)-k+i+1))
		}
		if !reflect.DeepEqual(specs(c), specs(clusterOf(t, s))) {
			t.Errorf("after %d steps and their rollback:\n%s\nwant the snapshot:\n%s", k, dump(c), dump(clusterOf(t, s)))
		}
	}
}
