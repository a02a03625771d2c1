package planner

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// split is a random valid gpu split: per department and pool a guarantee
// and limit, per project its guarantee and limit, children summing to at
// most their department.
type split struct {
	pools []string
	depts map[string][2]string                       // dept/pool → deserved, limit
	projs map[string]map[string]map[string][2]string // dept → project → pool → deserved, limit
}

func half(r *rand.Rand, max int) string {
	return quota.MustParse(fmt.Sprintf("%d.%d", r.Intn(max+1), 5*r.Intn(2))).String()
}

func randomSplit(r *rand.Rand, nPools, nDepts, nProjs int) split {
	s := split{depts: map[string][2]string{}, projs: map[string]map[string]map[string][2]string{}}
	for p := 0; p < nPools; p++ {
		s.pools = append(s.pools, fmt.Sprintf("pool%d", p))
	}
	for d := 0; d < nDepts; d++ {
		dn := fmt.Sprintf("dept%d", d)
		s.projs[dn] = map[string]map[string][2]string{}
		for _, p := range s.pools {
			total := quota.MustParse(half(r, 16))
			s.depts[dn+"/"+p] = [2]string{total.String(), total.Add(quota.FromInt(int64(r.Intn(4)))).String()}
			left := total
			for j := 0; j < nProjs; j++ {
				pn := fmt.Sprintf("%s-proj%d", dn, j)
				if s.projs[dn][pn] == nil {
					s.projs[dn][pn] = map[string][2]string{}
				}
				v := quota.MustParse(half(r, 6))
				if v.Cmp(left) > 0 {
					v = left
				}
				left = left.Sub(v)
				s.projs[dn][pn][p] = [2]string{v.String(), v.Add(quota.FromInt(int64(r.Intn(3)))).String()}
			}
		}
	}
	return s
}

func (s split) yaml() string {
	var b strings.Builder
	for _, p := range s.pools {
		b.WriteString(pool(p, "gpu", p))
	}
	for d := 0; d < len(s.projs); d++ {
		dn := fmt.Sprintf("dept%d", d)
		var qs []string
		for _, p := range s.pools {
			v := s.depts[dn+"/"+p]
			qs = append(qs, q(dn+"-"+p, p, fmt.Sprintf("{deserved: %s, limit: %s}", v[0], v[1])))
		}
		b.WriteString(dept(dn, qs...))
		for j := 0; j < len(s.projs[dn]); j++ {
			pn := fmt.Sprintf("%s-proj%d", dn, j)
			qs = nil
			for _, p := range s.pools {
				v := s.projs[dn][pn][p]
				qs = append(qs, q(pn+"-"+p, p, fmt.Sprintf("{deserved: %s, limit: %s}", v[0], v[1])))
			}
			b.WriteString(proj(pn, dn, "", qs...))
		}
	}
	return b.String()
}

func num(v string) *config.Num { return &config.Num{Value: quota.MustParse(v)} }

// overlay states every gpu deserved and limit of s.
func (s split) overlay() *config.Overlay {
	ov := &config.Overlay{File: "desired.hcl"}
	for d := 0; d < len(s.projs); d++ {
		dn := fmt.Sprintf("dept%d", d)
		cd := config.Department{Name: dn}
		for _, p := range s.pools {
			v := s.depts[dn+"/"+p]
			cd.Queues = append(cd.Queues, config.Queue{Pool: p, GPU: &config.Resource{Deserved: num(v[0]), Limit: num(v[1])}})
		}
		ov.Departments = append(ov.Departments, cd)
		for j := 0; j < len(s.projs[dn]); j++ {
			pn := fmt.Sprintf("%s-proj%d", dn, j)
			cp := config.Project{Name: pn}
			for _, p := range s.pools {
				v := s.projs[dn][pn][p]
				cp.Queues = append(cp.Queues, config.Queue{Pool: p, GPU: &config.Resource{Deserved: num(v[0]), Limit: num(v[1])}})
			}
			ov.Projects = append(ov.Projects, cp)
		}
	}
	return ov
}

// applyPatches runs the plan's JSON patches, in order, on the JSON of the
// objects, the way the API server would, and checks the state after every
// step: it must hold no error. It returns the final state.
func applyPatches(t *testing.T, before *snapshot.State, p *Plan) *snapshot.State {
	t.Helper()
	docs := map[tenancy.ObjectAddr][]byte{}
	for _, d := range before.Departments {
		b, _ := json.Marshal(map[string]any{"spec": d.Spec})
		docs[tenancy.KindDepartment.Object(d.Metadata.Name)] = b
	}
	for _, pr := range before.Projects {
		b, _ := json.Marshal(map[string]any{"spec": pr.Spec})
		docs[tenancy.KindProject.Object(pr.Metadata.Name)] = b
	}
	state := func() *snapshot.State {
		s := cloneTenancy(before)
		for i := range s.Departments {
			var doc struct{ Spec tenancy.DepartmentSpec }
			if err := json.Unmarshal(docs[tenancy.KindDepartment.Object(s.Departments[i].Metadata.Name)], &doc); err != nil {
				t.Fatal(err)
			}
			s.Departments[i].Spec = doc.Spec
		}
		for i := range s.Projects {
			var doc struct{ Spec tenancy.ProjectSpec }
			if err := json.Unmarshal(docs[tenancy.KindProject.Object(s.Projects[i].Metadata.Name)], &doc); err != nil {
				t.Fatal(err)
			}
			s.Projects[i].Spec = doc.Spec
		}
		return s
	}
	for n, st := range p.Steps {
		ops, _ := json.Marshal(st.Ops)
		patch, err := jsonpatch.DecodePatch(ops)
		if err != nil {
			t.Fatalf("step %d: %v", n+1, err)
		}
		k := st.Object
		out, err := patch.Apply(docs[k])
		if err != nil {
			t.Fatalf("step %d (%s): the patch does not apply to the object as read: %v\n%s", n+1, k, err, ops)
		}
		docs[k] = out
		for _, f := range Check(state(), nil) {
			if f.Level == LevelError {
				t.Fatalf("after step %d of %d (%s %s) the state has an error: %s", n+1, len(p.Steps), st.Phase, k, f.Message)
			}
		}
	}
	return state()
}

// TestRandomMovesRenderInASafeOrder is the property of the render order:
// for random valid tenancies and random valid targets, the plan is
// renderable, its steps apply as JSON patches to the objects as read, every
// prefix passes the checks, and the last state is the target. 300
// tenancies; 30 under -short.
func TestRandomMovesRenderInASafeOrder(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < cases(300); i++ {
		nPools, nDepts, nProjs := 1+r.Intn(3), 1+r.Intn(3), 1+r.Intn(4)
		from := randomSplit(r, nPools, nDepts, nProjs)
		to := randomSplit(r, nPools, nDepts, nProjs)
		before := mustState(t, from.yaml())
		p, diags := Build(before, to.overlay())
		if diags.HasErrors() {
			t.Fatalf("case %d: %v", i, diags)
		}
		if !p.Renderable() || !p.OrderVerified {
			t.Fatalf("case %d: not renderable: %q\nfrom:\n%s", i, messages(p.Findings), from.yaml())
		}
		got := applyPatches(t, before, p)
		want := mustState(t, to.yaml())
		if !sameSpecs(got, want) {
			t.Fatalf("case %d: the patches do not reach the target", i)
		}
	}
}

func sameSpecs(a, b *snapshot.State) bool {
	enc := func(s *snapshot.State) string {
		var sb strings.Builder
		for _, d := range s.Departments {
			j, _ := json.Marshal(d.Spec)
			sb.Write(j)
		}
		for _, p := range s.Projects {
			j, _ := json.Marshal(p.Spec)
			sb.Write(j)
		}
		return sb.String()
	}
	return enc(a) == enc(b)
}

// TestVerifyStepsCatchesABadOrder builds a plan whose phases cannot keep the
// state clean and checks that verification says so instead of passing.
func TestVerifyStepsCatchesABadOrder(t *testing.T) {
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}"))+
		proj("a", "d", "", q("a-q", "h100", "{deserved: 4, limit: 4}")))
	ov := &config.Overlay{File: "desired.hcl",
		Departments: []config.Department{{Name: "d", Queues: []config.Queue{{Pool: "h100", GPU: &config.Resource{Deserved: num("2"), Limit: num("2")}}}}},
		Projects:    []config.Project{{Name: "a", Queues: []config.Queue{{Pool: "h100", GPU: &config.Resource{Deserved: num("2"), Limit: num("2")}}}}}}
	p, _ := Build(before, ov)
	if !p.OrderVerified {
		t.Fatalf("the phase order should be safe: %q", messages(p.Findings))
	}
	// Reverse the steps: the department would shrink below its project.
	target, _, _, _ := applyOverlay(before, ov)
	steps := []Step{p.Steps[1], p.Steps[0]}
	bad := verifySteps(before, target, p.Changes, steps)
	if bad == nil {
		t.Fatal("reversed order passed verification")
	}
	want := "no safe order: after step 1 (patch Department d, shrinking departments) the state would have an error this plan does not end with: d-q: the projects are guaranteed 4 cards in total, but the department only has 2 cards — 2 cards of those guarantees cannot be met"
	if bad.Message != want {
		t.Fatalf("message:\n got %s\nwant %s", bad.Message, want)
	}
}

// TestRootProjectsInTheStepOrder: on a full pool, cards move between a
// department and a root project (no spec.parent: a root queue beside the
// departments) both ways; the root project shrinks with the projects,
// before the departments shrink, and grows last, and every intermediate
// state passes the checks (pool-over-capacity included).
func TestRootProjectsInTheStepOrder(t *testing.T) {
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 10, limit: 16}"))+
		proj("a", "d", "", q("a-q", "h100", "{deserved: 10, limit: 16}"))+proj("r", "d", "", q("r-q", "h100", "{deserved: 6, limit: 16}")))
	before.Projects[1].Spec.Parent = "" // r is a root project
	before.NotRead = nil
	before.Nodes = []snapshot.Node{{Name: "n1", Labels: map[string]string{"gpu": "h100"}, GPUCapacity: quota.FromInt(16), GPUAllocatable: quota.FromInt(16), Ready: true}}
	gpu := func(v string) *config.Resource { return &config.Resource{Deserved: num(v)} }
	for _, tc := range []struct {
		name         string
		dept, a, r   string
		phases, objs string
	}{
		{"to the root project", "6", "6", "10", "shrinking projects,shrinking departments,growing or new projects", "Project/a,Department/d,Project/r"},
		{"from the root project", "14", "14", "2", "shrinking projects,growing or new departments,growing or new projects", "Project/r,Department/d,Project/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ov := &config.Overlay{File: "desired.hcl",
				Departments: []config.Department{{Name: "d", Queues: []config.Queue{{Pool: "h100", GPU: gpu(tc.dept)}}}},
				Projects: []config.Project{{Name: "a", Queues: []config.Queue{{Pool: "h100", GPU: gpu(tc.a)}}},
					{Name: "r", Queues: []config.Queue{{Pool: "h100", GPU: gpu(tc.r)}}}}}
			p, diags := Build(before, ov)
			if diags.HasErrors() || !p.Renderable() || !p.OrderVerified {
				t.Fatalf("not renderable: %v %q", diags, messages(p.Findings))
			}
			var phases, objs []string
			for _, st := range p.Steps {
				phases, objs = append(phases, string(st.Phase)), append(objs, st.Object.String())
			}
			if strings.Join(phases, ",") != tc.phases || strings.Join(objs, ",") != tc.objs {
				t.Fatalf("steps %v %v, want %s %s", phases, objs, tc.phases, tc.objs)
			}
			got := applyPatches(t, before, p)
			if got.Projects[1].Spec.Parent != "" || got.Projects[1].Spec.Queues[0].Resources.GPU.Deserved.String() != tc.r {
				t.Fatalf("root project after the patches: %+v", got.Projects[1].Spec)
			}
		})
	}
	// The unsafe order is refused: the root project growing before the
	// department shrinks puts the pool over its 16 cards.
	ov := &config.Overlay{File: "desired.hcl",
		Departments: []config.Department{{Name: "d", Queues: []config.Queue{{Pool: "h100", GPU: gpu("6")}}}},
		Projects: []config.Project{{Name: "a", Queues: []config.Queue{{Pool: "h100", GPU: gpu("6")}}},
			{Name: "r", Queues: []config.Queue{{Pool: "h100", GPU: gpu("10")}}}}}
	p, _ := Build(before, ov)
	target, _, _, _ := applyOverlay(before, ov)
	bad := verifySteps(before, target, p.Changes, []Step{p.Steps[2], p.Steps[0], p.Steps[1]})
	want := "no safe order: after step 1 (patch Project r, growing or new projects) the state would have an error this plan does not end with: pool h100: departments and project queues outside a department are guaranteed 20 cards, the pool has 16 cards — 4 cards over"
	if bad == nil || bad.Message != want {
		t.Fatalf("reordered: %v\nwant %s", bad, want)
	}
}

// TestRootProjectParentPatch: moving a root project into a department
// tests and replaces spec.parent when the object has the key (parent: ""),
// and adds it after a test of null when the project was written without
// one: a JSON-patch test of a value or a replace of an absent path fails,
// and a test of null passes only while the key is absent
// (internal/integration TestAbsentGuard proves it on the API server).
func TestRootProjectParentPatch(t *testing.T) {
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}"))+
		proj("r", "d", "", q("r-q", "h100", "{deserved: 0, limit: 4}")))
	ov := &config.Overlay{File: "desired.hcl", Projects: []config.Project{{Name: "r", Department: &config.Str{Value: "d"}}}}
	for omitted, want := range map[bool]string{
		false: `[{"op":"test","path":"/spec/parent","value":""},{"op":"replace","path":"/spec/parent","value":"d"}]`,
		true:  `[{"op":"test","path":"/spec/parent","value":null},{"op":"add","path":"/spec/parent","value":"d"}]`,
	} {
		s := cloneTenancy(before)
		s.Projects[0].Spec.Parent, s.Projects[0].Spec.ParentOmitted = "", omitted
		s.Seal()
		p, diags := Build(s, ov)
		if diags.HasErrors() || len(p.Steps) != 1 {
			t.Fatalf("omitted %v: %v, %d steps", omitted, diags, len(p.Steps))
		}
		if ops, _ := json.Marshal(p.Steps[0].Ops); string(ops) != want {
			t.Errorf("omitted %v: ops %s\nwant %s", omitted, ops, want)
		}
	}
}
