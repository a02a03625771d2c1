package planner

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// verifyStepsOnWholeStates is the definition verifyOrder must agree with:
// apply the steps one by one and run every check on the whole state after
// each, refusing the first error the snapshot does not have.
func verifyStepsOnWholeStates(before *snapshot.State, changes []tenancy.Change, steps []Step) *Finding {
	allowed := map[findingKey]bool{}
	for _, f := range Check(before, nil) {
		if f.Level == LevelError {
			allowed[f.key()] = true
		}
	}
	work := tenancy.NewDraft(&before.Tenancy)
	for n, st := range steps[:max(len(steps)-1, 0)] {
		if err := work.Apply(stepChanges(changes, st)); err != nil {
			panic(err)
		}
		for _, f := range Check(withTenancy(before, work.Tenancy()), nil) {
			if f.Level == LevelError && !allowed[f.key()] {
				return unsafeOrder(n, st, f)
			}
		}
	}
	return nil
}

// verifyOrder is the verification Build runs, on steps in any order.
func verifyOrder(before, target *snapshot.State, changes []tenancy.Change, steps []Step, beforeFindings []Finding) *Finding {
	bx, tx := indexes(before, target)
	return firstUnsafe(newShared(before).stepErrors(before, bx, tx, changes, steps), beforeFindings)
}

// verifySteps is verifyOrder with the snapshot's findings made here.
func verifySteps(before, target *snapshot.State, changes []tenancy.Change, steps []Step) *Finding {
	return verifyOrder(before, target, changes, steps, Check(before, nil))
}

// rootMark is the parent messyTenancy writes for a root project, and then
// clears (spec.parent "").
const rootMark = "root-project"

// messyTenancy is a random small tenancy with what makes verification
// hard: root projects, pools sharing a label pair, project queues outside their
// department, the default pool, unknown parents and pools, shared queue
// names and namespaces, nodes not ready, guarantees over their limits.
func messyTenancy(t *testing.T, r *rand.Rand) *snapshot.State {
	pools := []string{"p0", "p1", "p2"}[:1+r.Intn(3)]
	onPools := func() []string {
		var out []string
		for _, p := range append(pools, "default", "nowhere") {
			if (p == "default" && r.Intn(8) != 0) || (p == "nowhere" && r.Intn(20) != 0) || r.Intn(3) == 0 {
				continue
			}
			out = append(out, p)
		}
		if len(out) == 0 {
			out = pools[:1]
		}
		return out
	}
	gpu := func() string {
		return fmt.Sprintf("{deserved: %s, limit: %s}", half(r, 6), []string{half(r, 10), "-1"}[r.Intn(2)])
	}
	var b strings.Builder
	for i, p := range pools {
		key := "k"
		if i > 0 && r.Intn(8) == 0 {
			key = "k" + pools[i-1] // p and the pool before it may share a pair
			p = pools[i-1]
		}
		b.WriteString(pool(pools[i], key, p))
	}
	nDepts := 1 + r.Intn(3)
	for d := 0; d < nDepts; d++ {
		var qs []string
		for _, p := range onPools() {
			qs = append(qs, q(fmt.Sprintf("d%d-%s", d, p), p, gpu()))
		}
		b.WriteString(dept(fmt.Sprintf("d%d", d), qs...))
	}
	for j := 0; j < 1+r.Intn(6); j++ {
		parent := fmt.Sprintf("d%d", r.Intn(nDepts+1)) // sometimes unknown
		if r.Intn(6) == 0 {
			parent = rootMark // a root project, made below
		}
		var qs []string
		for _, p := range onPools() {
			name := fmt.Sprintf("j%d-%s", j, p)
			if r.Intn(15) == 0 {
				name = fmt.Sprintf("d0-%s", p) // a queue name used twice
			}
			qs = append(qs, q(name, p, gpu()))
		}
		b.WriteString(proj(fmt.Sprintf("j%d", j), parent, fmt.Sprintf("ns%d", r.Intn(8)), qs...))
	}
	s := mustState(t, b.String())
	for i := range s.Projects {
		if s.Projects[i].Spec.Parent == rootMark {
			s.Projects[i].Spec.Parent = ""
		}
	}
	s.NotRead = nil
	for i := 0; i < r.Intn(8); i++ {
		labels := map[string]string{}
		if r.Intn(5) != 0 {
			p := pools[r.Intn(len(pools))]
			labels["k"] = p
			labels["k"+p] = p
		}
		cards := quota.FromInt(int64(1 + r.Intn(8)))
		s.Nodes = append(s.Nodes, snapshot.Node{Name: fmt.Sprintf("n%d", i), Labels: labels, GPUCapacity: cards, GPUAllocatable: cards, Ready: r.Intn(5) != 0})
	}
	return s
}

// messyOverlay changes numbers, adds queues, projects and a pool, and
// moves namespaces and parents, at random.
func messyOverlay(r *rand.Rand, s *snapshot.State) *config.Overlay {
	ov := &config.Overlay{File: "desired.hcl"}
	str := func(v string) *config.Str { return &config.Str{Value: v} }
	res := func() *config.Resource {
		return &config.Resource{Deserved: num(half(r, 8)), Limit: num([]string{half(r, 10), "-1"}[r.Intn(2)])}
	}
	pools := []string{"default"}
	for _, p := range s.NodePools {
		pools = append(pools, p.Metadata.Name)
	}
	if r.Intn(6) == 0 {
		ov.NodePools = append(ov.NodePools, config.NodePool{Name: "pnew", LabelKey: str("k"), LabelValue: str([]string{"pnew", "p0"}[r.Intn(2)])})
		pools = append(pools, "pnew")
	}
	queues := func(qs []tenancy.Queue, owner string) []config.Queue {
		var out []config.Queue
		for _, q := range qs {
			if r.Intn(2) == 0 {
				out = append(out, config.Queue{Pool: q.NodePool, GPU: res()})
			}
		}
		if r.Intn(5) == 0 {
			// A new queue, on a pool the object has no queue on: desired.hcl
			// has one queue block per pool.
			p := pools[r.Intn(len(pools))]
			if !slices.ContainsFunc(qs, func(q tenancy.Queue) bool { return q.NodePool == p }) {
				out = append(out, config.Queue{Pool: p, Name: str(owner + "-new-" + p), GPU: res()})
			}
		}
		return out
	}
	for _, d := range s.Departments {
		ov.Departments = append(ov.Departments, config.Department{Name: d.Metadata.Name, Queues: queues(d.Spec.Queues, d.Metadata.Name)})
	}
	for _, p := range s.Projects {
		cp := config.Project{Name: p.Metadata.Name, Queues: queues(p.Spec.Queues, p.Metadata.Name)}
		if r.Intn(8) == 0 {
			cp.Namespace = str(fmt.Sprintf("ns%d", r.Intn(8)))
		}
		if r.Intn(8) == 0 {
			cp.Department = str([]string{"d0", "d1", "d2", ""}[r.Intn(4)]) // "": out of its department, a root project
		}
		ov.Projects = append(ov.Projects, cp)
	}
	for j := 0; j < r.Intn(3); j++ {
		p := pools[r.Intn(len(pools))]
		ov.Projects = append(ov.Projects, config.Project{Name: fmt.Sprintf("new%d", j), Department: str(fmt.Sprintf("d%d", r.Intn(3))),
			Namespace: str(fmt.Sprintf("ns%d", r.Intn(8))), Queues: []config.Queue{{Pool: p, Name: str(fmt.Sprintf("new%d-%s", j, p)), GPU: res()}}})
	}
	return ov
}

// TestVerifyOrderAgreesWithWholeStates checks the scoped verification
// against checking every intermediate state whole, on random messy
// tenancies and changes, in the planned order and in shuffled orders (which
// often break): the same verdict, and the same message when it refuses.
// 2,000 tenancies; 200 under -short.
func TestVerifyOrderAgreesWithWholeStates(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	refused, compared := 0, 0
	for i := 0; i < cases(2000); i++ {
		before := messyTenancy(t, r)
		read := string(before.Marshal())
		target, changes, _, diags := applyOverlay(before, messyOverlay(r, before))
		if string(before.Marshal()) != read {
			t.Fatalf("case %d: applying the overlay changed the snapshot", i)
		}
		if diags.HasErrors() {
			continue
		}
		steps := BuildSteps(tenancy.NewIndex(&before.Tenancy), tenancy.NewIndex(&target.Tenancy), changes)
		for k := 0; k < 4; k++ {
			order := append([]Step(nil), steps...)
			if k > 0 {
				r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			}
			want := verifyStepsOnWholeStates(before, changes, order)
			was := string(before.Marshal()) + string(target.Marshal())
			got := verifyOrder(before, target, changes, order, Check(before, nil))
			if string(before.Marshal())+string(target.Marshal()) != was {
				t.Fatalf("case %d, order %d: verification changed the snapshot or the target", i, k)
			}
			compared++
			if (got == nil) != (want == nil) || (got != nil && got.Message != want.Message) {
				t.Fatalf("case %d, order %d: scoped verification %v, whole states %v", i, k, got, want)
			}
			if want != nil {
				refused++
			}
		}
	}
	if refused < compared/10 {
		t.Fatalf("only %d of %d orders were refused: the cases do not exercise the refusals", refused, compared)
	}
}

// cases is how many random cases a property test runs: n, or a tenth of
// it under go test -short, which runs the whole suite in a few minutes.
// The full count runs without -short (scripts/test, CI): the properties
// keep their strength there, and -short is the quick loop while editing.
func cases(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}
