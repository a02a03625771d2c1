package planner

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/tenancy"
)

// q writes one queue entry in flow style.
func q(name, pool, gpu string) string {
	return fmt.Sprintf("    - {name: %s, nodepool: %s, resources: {gpu: %s, cpu: {deserved: -1, limit: -1}, memory: {deserved: -1, limit: -1}}}\n", name, pool, gpu)
}

func pool(name, key, value string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: %s}\nspec: {labelKey: %s, labelValue: %s}\n", name, key, value)
}

func dept(name string, queues ...string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: %s}\nspec:\n  queues:\n%s", name, strings.Join(queues, ""))
}

func proj(name, parent, namespace string, queues ...string) string {
	ns := ""
	if namespace != "" {
		ns = "  namespace: " + namespace + "\n"
	}
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: %s}\nspec:\n  parent: %s\n%s  queues:\n%s", name, parent, ns, strings.Join(queues, ""))
}

// spineCodes are the checks of the main-job issue; other findings (notes,
// warnings of the full catalogue) are left out of these tables.
var spineCodes = map[string]bool{
	"projects-over-department": true, "unlimited-under-finite": true, "deserved-over-limit": true,
	"negative-value": true, "negative-weight": true, "unknown-pool": true, "unknown-parent": true,
	"duplicate-queue-name": true, "shared-namespace": true, "two-queues-one-pool": true,
	"duplicate-label-pair": true, "pool-cards-unknown": true,
}

func TestSpineChecks(t *testing.T) {
	h100 := pool("h100", "gpu", "h100")
	for _, tc := range []struct {
		name string
		yaml string
		want []string
	}{
		{"fits exactly", h100 + dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}")) +
			proj("a", "d", "", q("a-q", "h100", "{deserved: 3, limit: 4}")) + proj("b", "d", "", q("b-q", "h100", "{deserved: 1, limit: 4}")),
			nil},
		{"projects over department", h100 + dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}")) +
			proj("a", "d", "", q("a-q", "h100", "{deserved: 3, limit: 4}")) + proj("b", "d", "", q("b-q", "h100", "{deserved: 2, limit: 4}")),
			[]string{"error projects-over-department: d-q: the projects are guaranteed 5 cards in total, but the department only has 4 cards — 1 card of those guarantees cannot be met"}},
		{"fractions over by 0.02", h100 + dept("d", q("d-q", "h100", "{deserved: 1, limit: 1}")) +
			proj("a", "d", "", q("a-q", "h100", "{deserved: 0.34, limit: 1}")) + proj("b", "d", "", q("b-q", "h100", "{deserved: 0.34, limit: 1}")) +
			proj("c", "d", "", q("c-q", "h100", "{deserved: 0.34, limit: 1}")),
			[]string{"error projects-over-department: d-q: the projects are guaranteed 1.02 cards in total, but the department only has 1 card — 0.02 cards of those guarantees cannot be met"}},
		{"0.1 + 0.2 fits 0.3", h100 + dept("d", q("d-q", "h100", "{deserved: 0.3, limit: 1}")) +
			proj("a", "d", "", q("a-q", "h100", "{deserved: 0.1, limit: 1}")) + proj("b", "d", "", q("b-q", "h100", "{deserved: 0.2, limit: 1}")),
			nil},
		{"unlimited project under finite department", h100 + dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}")) +
			proj("a", "d", "", q("a-q", "h100", "{deserved: -1, limit: -1}")) + proj("b", "d", "", q("b-q", "h100", "{deserved: 1, limit: 4}")),
			[]string{"error unlimited-under-finite: a-q: the gpu guarantee is unlimited (-1), but department queue d-q only has 4 cards to share"}},
		{"unlimited department holds anything", h100 + dept("d", q("d-q", "h100", "{deserved: -1, limit: -1}")) +
			proj("a", "d", "", q("a-q", "h100", "{deserved: -1, limit: -1}")) + proj("b", "d", "", q("b-q", "h100", "{deserved: 1000, limit: -1}")),
			nil},
		{"guarantee above own limit", h100 + dept("d", q("d-q", "h100", "{deserved: 4, limit: 3}")),
			[]string{"error deserved-over-limit: d-q: the gpu guarantee of 4 cards is above its own limit of 3 cards — 1 card of it can never be used"}},
		{"guarantee above an omitted limit", h100 + dept("d", q("d-q", "h100", "{deserved: 4}")),
			[]string{"error deserved-over-limit: d-q: the gpu guarantee of 4 cards is above its own limit of 0 (the gpu limit is omitted, and KRM reads an omitted limit as 0, a ceiling of zero, not as unconstrained; write -1 for no ceiling) — 4 cards of it can never be used"}},
		{"unlimited guarantee under a finite limit", h100 + dept("d", q("d-q", "h100", "{deserved: -1, limit: 8}")),
			[]string{"error deserved-over-limit: d-q: the gpu guarantee is unlimited (-1), above its own limit of 8 cards"}},
		{"negative values", h100 + dept("d", q("d-q", "h100", "{deserved: -2, limit: 4, overQuotaWeight: -1}")),
			[]string{"error negative-value: d-q: gpu deserved is -2; the only negative value KRM understands is -1 (unlimited)",
				"error negative-weight: d-q: gpu overQuotaWeight is -1; a weight cannot be negative"}},
		{"unknown pool", h100 + dept("d", q("d-q", "a100", "{deserved: 1, limit: 1}")),
			[]string{`error unknown-pool: d-q: node pool "a100" does not exist; KRM's webhook rejects a queue on an unknown pool`}},
		{"unknown pool near a known one", h100 + dept("d", q("d-q", "h10", "{deserved: 1, limit: 1}")),
			[]string{`error unknown-pool: d-q: node pool "h10" does not exist; KRM's webhook rejects a queue on an unknown pool; did you mean "h100"?`}},
		{"a queue's name as its node pool", h100 + dept("d", q("d-q", "h100", "{deserved: 2, limit: 2}")) + proj("a", "d", "", q("a-q", "d-q", "{deserved: 1, limit: 1}")),
			[]string{`error unknown-pool: a-q: node pool "d-q" does not exist; KRM's webhook rejects a queue on an unknown pool; "d-q" is the queue of department d on node pool "h100": the label of a queue block is its node pool`}},
		{"default pool always exists", dept("d", q("d-q", "default", "{deserved: 1, limit: 1}")), nil},
		{"unknown parent near a known one", h100 + dept("research", q("d-q", "h100", "{deserved: 1, limit: 1}")) + proj("a", "reserch", "", q("a-q", "h100", "{deserved: 1, limit: 1}")),
			[]string{`error unknown-parent: project a: parent department "reserch" does not exist; KRM's webhook rejects a project under an unknown department; did you mean "research"?`}},
		{"unknown parent", h100 + dept("d", q("d-q", "h100", "{deserved: 1, limit: 1}")) + proj("a", "research", "", q("a-q", "h100", "{deserved: 1, limit: 1}")),
			[]string{`error unknown-parent: project a: parent department "research" does not exist; KRM's webhook rejects a project under an unknown department`}},
		{"queue name used twice", h100 + dept("d", q("shared", "h100", "{deserved: 2, limit: 2}")) + proj("a", "d", "", q("shared", "h100", "{deserved: 1, limit: 1}")),
			[]string{"error duplicate-queue-name: shared: the queue name is also used by department d; queue names are cluster-wide and KRM does not share a Queue: the entry it reconciles second gets the name with a random suffix (shared-xxxx)"}},
		{"two projects on one namespace", h100 + dept("d", q("d-q", "h100", "{deserved: 2, limit: 2}")) +
			proj("a", "d", "team", q("a-q", "h100", "{deserved: 1, limit: 1}")) + proj("b", "d", "team", q("b-q", "h100", "{deserved: 1, limit: 1}")),
			[]string{"error shared-namespace: project b: namespace team is already the namespace of project a; a namespace belongs to one project"}},
		{"namespace defaults to kai-<project>", h100 + dept("d", q("d-q", "h100", "{deserved: 2, limit: 2}")) +
			proj("a", "d", "", q("a-q", "h100", "{deserved: 1, limit: 1}")) + proj("b", "d", "kai-a", q("b-q", "h100", "{deserved: 1, limit: 1}")) +
			proj("c", "d", "a", q("c-q", "h100", "{deserved: 0, limit: 1}")),
			[]string{"error shared-namespace: project b: namespace kai-a is already the namespace of project a; a namespace belongs to one project"}},
		{"two queues on one pool", h100 + dept("d", q("d-1", "h100", "{deserved: 1, limit: 1}"), q("d-2", "h100", "{deserved: 1, limit: 1}")),
			[]string{"error two-queues-one-pool: department d has two queues on node pool h100 (d-1 and d-2); KRM's webhook rejects this"}},
		{"two pools on one label pair", h100 + pool("h100-bis", "gpu", "h100"),
			[]string{"error duplicate-label-pair: node pools h100 and h100-bis both select the nodes labelled gpu=h100; KRM's webhook rejects a second pool on a label pair"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Check(mustState(t, tc.yaml), nil) {
				if spineCodes[string(f.Code)] && f.Code != "pool-cards-unknown" {
					got = append(got, messages([]Finding{f})[0])
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("findings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestPoolCardsUnknownWithoutNodes(t *testing.T) {
	s := mustState(t, pool("h100", "gpu", "h100"))
	got := messages(Check(s, nil))
	want := "note pool-cards-unknown: node pool h100: the card count is unknown (nodes not read: test), so the guarantees of the departments and of the project queues outside a department were not compared with the pool's cards"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %q, want [%q]", got, want)
	}
}

func TestFindingsPointAtLines(t *testing.T) {
	s := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 3}")))
	for _, f := range Check(s, nil) {
		if f.Code != "deserved-over-limit" {
			continue
		}
		// line 12: "    - {name: d-q, nodepool: h100, resources: {gpu: {deserved: 4, limit: 3}..."
		want := []tenancy.Location{{File: "t.yaml", Line: 12, Column: 63}, {File: "t.yaml", Line: 12, Column: 73}}
		if !reflect.DeepEqual(f.Where, want) {
			t.Fatalf("where = %+v, want %+v", f.Where, want)
		}
		return
	}
	t.Fatal("no deserved-over-limit finding")
}
