package planner

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// The tenancy builders of this file: every queue is written in flow style,
// its resources exactly as the case gives them.

func catPool(name, value string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: %s}\nspec: {labelKey: gpu, labelValue: %s}\n", name, value)
}

func catDept(name string, queues ...string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: %s}\nspec:\n  queues:\n%s", name, strings.Join(queues, ""))
}

// catProj writes a project; extra is spec lines (e.g. "  namespace: x\n").
func catProj(name, parent, extra string, queues ...string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: %s}\nspec:\n  parent: %s\n%s  queues:\n%s", name, parent, extra, strings.Join(queues, ""))
}

// cq writes a queue whose resources are res (a flow mapping).
func catQ(name, pool, res string) string {
	return fmt.Sprintf("    - {name: %s, nodepool: %s, resources: %s}\n", name, pool, res)
}

// gpuOnly writes resources with the given gpu block and cpu and memory
// unlimited with weight 1, so that only gpu findings appear.
func catGPUOnly(gpu string) string {
	return fmt.Sprintf("{gpu: %s, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}", gpu)
}

// cpuOnly is gpuOnly for cpu: gpu 0/0 (no idle-share note) and memory unlimited.
func catCPUOnly(cpu string) string {
	return fmt.Sprintf("{gpu: {deserved: 0, limit: 0, overQuotaWeight: 1}, cpu: %s, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}", cpu)
}

// g writes a gpu block with weight 1.
func catGPU(deserved, limit string) string {
	return catGPUOnly(fmt.Sprintf("{deserved: %s, limit: %s, overQuotaWeight: 1}", deserved, limit))
}

// readState marks the sources what as read (with no data yet).
func catRead(s *snapshot.State, what ...string) {
	for _, w := range what {
		kept := s.NotRead[:0]
		for _, n := range s.NotRead {
			if n.What != w {
				kept = append(kept, n)
			}
		}
		s.NotRead = kept
	}
}

func catNode(name, pool string, cards string, ready, cordoned bool) snapshot.Node {
	n := snapshot.Node{Name: name, GPUCapacity: quota.MustParse(cards), GPUAllocatable: quota.MustParse(cards), Ready: ready, Cordoned: cordoned}
	if pool != "" {
		n.Labels = map[string]string{"gpu": pool}
	}
	return n
}

// catListNode is a Ready node of pool given by its allocatable resource
// list (its capacity the same), with pressure conditions.
func catListNode(name, pool string, alloc snapshot.ResourceList, pressure map[string]string) snapshot.Node {
	return snapshot.Node{Name: name, Labels: map[string]string{"gpu": pool}, Allocatable: alloc, Capacity: alloc, Ready: true, Pressure: pressure}
}

// catNoName clears the names of the queues of each object named (a
// department, or a project): KRM derives their Queues' names.
func catNoName(names ...string) func(*snapshot.State) {
	clear := func(qs []tenancy.Queue) {
		for i := range qs {
			qs[i].Name = ""
		}
	}
	return func(s *snapshot.State) {
		for i := range s.Departments {
			if slices.Contains(names, s.Departments[i].Metadata.Name) {
				clear(s.Departments[i].Spec.Queues)
			}
		}
		for i := range s.Projects {
			if slices.Contains(names, s.Projects[i].Metadata.Name) {
				clear(s.Projects[i].Spec.Queues)
			}
		}
	}
}

// catRoot makes the projects named root projects: spec.parent "".
func catRoot(names ...string) func(*snapshot.State) {
	return func(s *snapshot.State) {
		for i := range s.Projects {
			if slices.Contains(names, s.Projects[i].Metadata.Name) {
				s.Projects[i].Spec.Parent = ""
			}
		}
	}
}

func catNodes(ns ...snapshot.Node) func(*snapshot.State) {
	return func(s *snapshot.State) { catRead(s, snapshot.SourceNodes); s.Nodes = ns }
}

func catNamespaces(ns ...snapshot.Namespace) func(*snapshot.State) {
	return func(s *snapshot.State) { catRead(s, snapshot.SourceNamespaces); s.Namespaces = ns }
}

func catQueues(qs ...snapshot.LiveQueue) func(*snapshot.State) {
	return func(s *snapshot.State) { catRead(s, snapshot.SourceQueues); s.LiveQueues = qs }
}

func catNS(name string, labels ...string) snapshot.Namespace {
	n := snapshot.Namespace{Name: name, Labels: map[string]string{}}
	for i := 0; i+1 < len(labels); i += 2 {
		n.Labels[labels[i]] = labels[i+1]
	}
	return n
}

// live is a scheduler Queue with usage; its quota is read from gpu/cpu/memory
// resources given as YAML flow text through a one-queue department.
func catLive(t *testing.T, name, res string, allocated, nonPreemptible map[string]string) snapshot.LiveQueue {
	t.Helper()
	s := mustState(t, catDept("x", catQ(name, "default", res)))
	return snapshot.LiveQueue{Name: name, Resources: s.Departments[0].Spec.Queues[0].Resources, Allocated: allocated, AllocatedNonPreemptible: nonPreemptible}
}

// catState parses yaml (sources not read) and applies the modifiers.
func catState(t *testing.T, yaml string, mods ...func(*snapshot.State)) *snapshot.State {
	t.Helper()
	s := mustState(t, yaml)
	for _, m := range mods {
		m(s)
	}
	return s
}

// only keeps the findings whose code is in codes, as "level code: message".
func catOnly(fs []Finding, codes ...string) []string {
	want := map[string]bool{}
	for _, c := range codes {
		want[c] = true
	}
	var out []string
	for _, f := range fs {
		if want[string(f.Code)] {
			out = append(out, messages([]Finding{f})[0])
		}
	}
	return out
}

// The tenancy and cluster data that many of the catalogue's cases share:
// the h100 pool, ten projects of 0.1 h100 card each, 16 h100 cards on two
// Ready nodes (and a node without cards), the same with one node not
// Ready, and departments guaranteed 24 cards of them.
var (
	catH100    = catPool("h100", "h100")
	catTenOf01 = func() string {
		s := ""
		for i := 0; i < 10; i++ {
			s += catProj(fmt.Sprintf("p%d", i), "d", "", catQ(fmt.Sprintf("p%d-q", i), "h100", catGPU("0.1", "1")))
		}
		return s
	}()
	catSixteen        = catNodes(catNode("gpu-1", "h100", "8", true, false), catNode("gpu-2", "h100", "8", true, false), catNode("cpu-1", "", "0", true, false))
	catSixteenOneDown = catNodes(catNode("gpu-1", "h100", "8", true, false), catNode("gpu-2", "h100", "8", false, false))
	catOver24         = catH100 + catDept("a", catQ("a-h100", "h100", catGPU("12", "16"))) + catDept("b", catQ("b-h100", "h100", catGPU("12", "16")))
)

// catalogueCases are the cases of TestCatalogue.
var catalogueCases = []struct {
	name  string
	yaml  string
	mods  []func(*snapshot.State)
	codes []string
	want  []string
}{
	// Exact arithmetic (the acceptance cases of the issue).
	{name: "10 projects of 0.1 under 1 fit, nothing unassigned",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPU("1", "1"))) + catTenOf01,
		codes: []string{"projects-over-department", "unassigned-share"}},
	{name: "three projects of 0.34 under 1 are 0.02 over",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPU("1", "1"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("0.34", "1"))) +
			catProj("b", "d", "", catQ("b-q", "h100", catGPU("0.34", "1"))) + catProj("c", "d", "", catQ("c-q", "h100", catGPU("0.34", "1"))),
		codes: []string{"projects-over-department", "unassigned-share"},
		want:  []string{"error projects-over-department: d-q: the projects are guaranteed 1.02 cards in total, but the department only has 1 card — 0.02 cards of those guarantees cannot be met"}},
	{name: "0.1 + 0.2 under 0.3 fit",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPU("0.3", "1"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("0.1", "1"))) + catProj("b", "d", "", catQ("b-q", "h100", catGPU("0.2", "1"))),
		codes: []string{"projects-over-department", "unassigned-share"}},
	{name: "gpu deserved 4 with the limit omitted",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPUOnly("{deserved: 4}"))),
		codes: []string{"deserved-over-limit", "limit-omitted"},
		want:  []string{"error deserved-over-limit: d-q: the gpu guarantee of 4 cards is above its own limit of 0 (the gpu limit is omitted, and KRM reads an omitted limit as 0, a ceiling of zero, not as unconstrained; write -1 for no ceiling) — 4 cards of it can never be used"}},
	{name: "an unlimited project guarantee under a department of 10 cpu",
		yaml:  catDept("d", catQ("d-q", "default", catCPUOnly("{deserved: 10, limit: 10, overQuotaWeight: 1}"))) + catProj("a", "d", "", catQ("a-q", "default", catCPUOnly("{deserved: -1, limit: -1, overQuotaWeight: 1}"))),
		codes: []string{"unlimited-under-finite", "projects-over-department", "unassigned-share"},
		want:  []string{"error unlimited-under-finite: a-q: the cpu guarantee is unlimited (-1), but department queue d-q only has 10 millicores to share"}},
	{name: "a department of -1 holds children of any size",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPU("-1", "-1"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("-1", "-1"))) +
			catProj("b", "d", "", catQ("b-q", "h100", catGPU("100000", "-1"))),
		codes: []string{"projects-over-department", "unlimited-under-finite", "unassigned-share", "project-limit-over-department"}},

	// Queue names as KRM derives them for an entry without a name
	// (krm-facts 3): <owner> on the default pool, else <owner>-<pool>.
	{name: "a derived queue name colliding with a written one",
		yaml: catH100 + catDept("research", catQ("unnamed", "h100", catGPU("4", "4")), catQ("unnamed-too", "default", catGPU("0", "0"))) +
			catProj("p", "research", "", catQ("research-h100", "h100", catGPU("2", "4"))) + catProj("q", "research", "", catQ("research", "h100", catGPU("0", "0"))),
		mods:  []func(*snapshot.State){catNoName("research")},
		codes: []string{"duplicate-queue-name", "two-queues-one-pool"},
		want: []string{
			"error duplicate-queue-name: research: the queue name is also used by department research (department research's queue on default has no name, so KRM names it research); queue names are cluster-wide and KRM does not share a Queue: the entry it reconciles second gets the name with a random suffix (research-xxxx)",
			"error duplicate-queue-name: research-h100: the queue name is also used by department research (department research's queue on h100 has no name, so KRM names it research-h100); queue names are cluster-wide and KRM does not share a Queue: the entry it reconciles second gets the name with a random suffix (research-h100-xxxx)",
		}},
	{name: "one object's two queues of one name",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPU("0", "0")), catQ("d-q", "default", catGPU("0", "0"))),
		codes: []string{"duplicate-queue-name"},
		want: []string{
			"error duplicate-queue-name: d-q: the queue name is also used by the same department; KRM adds no suffix within one object (it suffixes a name only when another object's Queue has it), so both entries would be written to one Queue, each reconcile overwriting the other's",
		}},
	{name: "a derived queue name over 58 characters",
		yaml:  catDept(strings.Repeat("d", 55), catQ("unnamed", "h100", catGPU("0", "0"))) + catH100,
		mods:  []func(*snapshot.State){catNoName(strings.Repeat("d", 55))},
		codes: []string{"queue-name-too-long"},
		want:  []string{"warning queue-name-too-long: " + strings.Repeat("d", 55) + "-h100: the queue has no name, and the one KRM derives (" + strings.Repeat("d", 55) + "-h100) is 60 characters; KRM cuts a queue name over 58 characters to 58 and appends \"-\" and 4 random characters, so the scheduler's queue will not be called what the file says"}},

	{name: "a derived queue name over 58 characters on the default pool",
		yaml:  catDept(strings.Repeat("e", 59), catQ("unnamed", "default", catGPU("0", "0"))),
		mods:  []func(*snapshot.State){catNoName(strings.Repeat("e", 59))},
		codes: []string{"queue-name-too-long"},
		want:  []string{"warning queue-name-too-long: " + strings.Repeat("e", 59) + ": the queue has no name, and the one KRM derives (" + strings.Repeat("e", 59) + ") is 59 characters; KRM cuts a queue name over 58 characters to 58 and appends \"-\" and 4 random characters, so the scheduler's queue will not be called what the file says"}},

	// Advisory notes.
	{name: "a project's cpu in cores among siblings in millicores",
		yaml: catDept("d", catQ("d-q", "default", catCPUOnly("{deserved: 40000, limit: -1, overQuotaWeight: 1}"))) +
			catProj("a", "d", "", catQ("a-q", "default", catCPUOnly("{deserved: 8000, limit: -1, overQuotaWeight: 1}"))) +
			catProj("b", "d", "", catQ("b-q", "default", catCPUOnly("{deserved: 16000, limit: -1, overQuotaWeight: 1}"))) +
			catProj("c", "d", "", catQ("c-q", "default", catCPUOnly("{deserved: 8, limit: -1, overQuotaWeight: 1}"))) +
			catProj("e", "d", "", catQ("e-q", "default", catCPUOnly("{deserved: 4000, limit: -1, overQuotaWeight: 1}"))),
		codes: []string{"unit-slip"},
		want:  []string{"note unit-slip: c-q: the cpu deserved of 8 millicores is about 1/500 of the median of the 4 queues under department queue d-q (4000 millicores); cpu is in millicores (1000 per core), so a value written in cores is 1000 times too small"}},
	{name: "a department's memory in KB at the top of a pool",
		yaml: catDept("a", catQ("a-q", "default", "{gpu: {deserved: 0, limit: 0}, cpu: {deserved: -1, limit: -1}, memory: {deserved: 512000, limit: 512000000000, overQuotaWeight: 1}}")) +
			catDept("b", catQ("b-q", "default", "{gpu: {deserved: 0, limit: 0}, cpu: {deserved: -1, limit: -1}, memory: {deserved: 256000, limit: 512000, overQuotaWeight: 1}}")) +
			catDept("c", catQ("c-q", "default", "{gpu: {deserved: 0, limit: 0}, cpu: {deserved: -1, limit: -1}, memory: {deserved: 1024000, limit: 1024000, overQuotaWeight: 1}}")),
		codes: []string{"unit-slip"},
		want:  []string{"note unit-slip: a-q: the memory limit of 512000000000 MB is about 500000 times the median of the 3 queues at the top of node pool default (1024000 MB); memory is in MB (10^6 bytes), so a value written in GB is 1000 times too small, one in KB 1000 times too large"}},
	{name: "siblings a factor of 100 apart, and two values alone, are no slip",
		yaml: catDept("d", catQ("d-q", "default", catCPUOnly("{deserved: 40000, limit: -1, overQuotaWeight: 1}"))) +
			catProj("a", "d", "", catQ("a-q", "default", catCPUOnly("{deserved: 100, limit: 8, overQuotaWeight: 1}"))) +
			catProj("b", "d", "", catQ("b-q", "default", catCPUOnly("{deserved: 1000, limit: 8000, overQuotaWeight: 1}"))) +
			catProj("c", "d", "", catQ("c-q", "default", catCPUOnly("{deserved: 10000, limit: -1, overQuotaWeight: 1}"))),
		codes: []string{"unit-slip"}},
	{name: "a high priority without a guarantee",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPU("4", "8"))) +
			catProj("a", "d", "", "    - {name: a-q, nodepool: h100, priority: 200, resources: "+catGPU("0", "8")+"}\n") +
			catProj("b", "d", "", "    - {name: b-q, nodepool: h100, priority: 100, resources: "+catGPU("0", "8")+"}\n") +
			catProj("c", "d", "", "    - {name: c-q, nodepool: h100, priority: 300, resources: "+catGPU("0", "0")+"}\n") +
			catProj("e", "d", "", "    - {name: e-q, nodepool: h100, priority: 150, resources: "+catGPU("4", "8")+"}\n"),
		codes: []string{"priority-without-guarantee"},
		want:  []string{"note priority-without-guarantee: a-q: priority 200 puts this queue before its lower-priority siblings for idle cards only: with a gpu guarantee of 0 it never reclaims cards another queue uses within its guarantee (KAI lets a queue that asks beyond its own guarantee reclaim only from queues above their fair share), and non-preemptible workloads never run in it (they must fit in the guarantee)"}},

	// Omitted fields.
	{name: "omitted cpu limit and omitted memory block",
		yaml:  catDept("d", catQ("d-q", "default", "{gpu: {deserved: 0, limit: 0}, cpu: {deserved: 0, overQuotaWeight: 1}}")),
		codes: []string{"limit-omitted"},
		want: []string{
			"warning limit-omitted: d-q: the cpu limit is omitted, and KRM reads an omitted limit as 0 — a ceiling of zero, not unconstrained: pods that request cpu in this department's queues will be refused; write -1 for no ceiling",
			"warning limit-omitted: d-q: the memory block is omitted, and KRM reads it as deserved 0, limit 0 and overQuotaWeight 0 — a ceiling of zero, not unconstrained: pods that request memory in this department's queues will be refused; write -1 for no ceiling",
		}},
	{name: "omitted project cpu limit",
		yaml: catDept("d", catQ("d-q", "default", catCPUOnly("{deserved: -1, limit: -1, overQuotaWeight: 1}"))) +
			catProj("a", "d", "", catQ("a-q", "default", catCPUOnly("{overQuotaWeight: 1}"))),
		codes: []string{"limit-omitted"},
		want:  []string{"warning limit-omitted: a-q: the cpu limit is omitted, and KRM reads an omitted limit as 0 — a ceiling of zero, not unconstrained: pods that request cpu in this queue will be refused; write -1 for no ceiling"}},
	{name: "an omitted cpu limit under a cpu guarantee is deserved-over-limit only",
		yaml:  catDept("d", catQ("d-q", "default", catCPUOnly("{deserved: 500, overQuotaWeight: 1}"))),
		codes: []string{"limit-omitted", "deserved-over-limit"},
		want:  []string{"error deserved-over-limit: d-q: the cpu guarantee of 500 millicores is above its own limit of 0 (the cpu limit is omitted, and KRM reads an omitted limit as 0, a ceiling of zero, not as unconstrained; write -1 for no ceiling) — 500 millicores of it can never be used"}},

	// Idle share.
	{name: "weight 0, written and omitted",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPUOnly("{deserved: 2, limit: 4, overQuotaWeight: 0}"))) +
			catProj("a", "d", "", catQ("a-q", "h100", catGPUOnly("{deserved: 2, limit: -1}"))) +
			catProj("b", "d", "", catQ("b-q", "h100", catGPUOnly("{deserved: 0, limit: 0}"))),
		codes: []string{"zero-weight"},
		want: []string{
			"note zero-weight: a-q: the gpu overQuotaWeight is omitted, which KRM reads as 0, so KAI's scheduler never gives this queue a share of idle cards, although its limit (unlimited) is above its guarantee (2 cards)",
			"note zero-weight: d-q: the gpu overQuotaWeight is 0, so KAI's scheduler never gives this queue a share of idle cards, although its limit (4 cards) is above its guarantee (2 cards)",
		}},
	{name: "unassigned share",
		yaml: catH100 + catPool("a100", "a100") + catDept("d", catQ("d-h100", "h100", catGPU("4", "4")), catQ("d-a100", "a100", catGPU("0.5", "1"))) +
			catProj("a", "d", "", catQ("a-q", "h100", catGPU("2.5", "4"))),
		codes: []string{"unassigned-share"},
		want: []string{
			"note unassigned-share: d-a100: the projects are guaranteed 0 cards of the department's 0.5 cards — 0.5 cards not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight",
			"note unassigned-share: d-h100: the projects are guaranteed 2.5 cards of the department's 4 cards — 1.5 cards not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight",
		}},

	// Project queues against their department.
	{name: "project queue on a pool where its department has none",
		yaml:  catH100 + catPool("a100", "a100") + catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("4", "4")), catQ("a-a100", "a100", catGPU("1", "1"))),
		codes: []string{"project-outside-department"},
		want:  []string{"warning project-outside-department: a-a100: department d has no queue on node pool a100, so this queue becomes a root queue, outside any department's share"}},
	{name: "department limit 4, project limit 8",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("4", "8"))),
		codes: []string{"project-limit-over-department"},
		want:  []string{"warning project-limit-over-department: a-q: the project's gpu limit of 8 cards is above department queue d-q's limit of 4 cards; the department wins, so this queue never gets more than 4 cards"}},
	// -1 is how a project says "up to the department": the department caps
	// it, and that is normal (issue 11 item 5).
	{name: "unlimited project limit under a finite department limit",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPU("4", "6"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("4", "-1"))),
		codes: []string{"project-limit-over-department"}},
	{name: "every unlimited project guarantee under a finite department is named",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPU("4", "6"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("-1", "-1"))) +
			catProj("b", "d", "", catQ("b-q", "h100", catGPU("2", "6"))) + catProj("c", "d", "", catQ("c-q", "h100", catGPU("-1", "-1"))),
		codes: []string{"unlimited-under-finite", "projects-over-department"},
		want: []string{
			"error unlimited-under-finite: a-q: the gpu guarantee is unlimited (-1), but department queue d-q only has 4 cards to share",
			"error unlimited-under-finite: c-q: the gpu guarantee is unlimited (-1), but department queue d-q only has 4 cards to share",
		}},
	{name: "a negative department guarantee gets the negative-value error alone",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPU("-4", "6"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("2", "6"))) +
			catProj("b", "d", "", catQ("b-q", "h100", catGPU("-1", "-1"))),
		codes: []string{"unlimited-under-finite", "projects-over-department", "negative-value", "unassigned-share", "pool-over-capacity", "deserved-over-limit"},
		want:  []string{"error negative-value: d-q: gpu deserved is -4; the only negative value KRM understands is -1 (unlimited)"}},
	{name: "project limit under an omitted department gpu limit",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPUOnly("{deserved: 0, overQuotaWeight: 1}"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("0", "2"))),
		codes: []string{"project-limit-over-department"},
		want:  []string{"warning project-limit-over-department: a-q: the project's gpu limit of 2 cards is above department queue d-q's limit of 0 (omitted, which KRM reads as 0); the department wins, so this queue never gets more than 0 cards"}},
	{name: "an omitted department cpu limit is not repeated per project",
		yaml:  catDept("d", catQ("d-q", "default", catCPUOnly("{deserved: 0, overQuotaWeight: 1}"))) + catProj("a", "d", "", catQ("a-q", "default", catCPUOnly("{deserved: 0, limit: -1, overQuotaWeight: 1}"))),
		codes: []string{"project-limit-over-department", "limit-omitted"},
		want:  []string{"warning limit-omitted: d-q: the cpu limit is omitted, and KRM reads an omitted limit as 0 — a ceiling of zero, not unconstrained: pods that request cpu in this department's queues will be refused; write -1 for no ceiling"}},
	{name: "defaultNodePools entry without a queue",
		yaml: catH100 + catPool("a100", "a100") + catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) +
			catProj("a", "d", "  defaultNodePools: [h100, a100]\n", catQ("a-q", "h100", catGPU("4", "4"))),
		codes: []string{"default-pool-without-queue"},
		want:  []string{"error default-pool-without-queue: project a: defaultNodePools lists node pool a100, but the project has no queue on it; KRM's webhook rejects a defaultNodePools entry without a queue"}},
	{name: "defaultNodePools entry near the project's pool",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) +
			catProj("a", "d", "  defaultNodePools: [h10]\n", catQ("a-q", "h100", catGPU("4", "4"))),
		codes: []string{"default-pool-without-queue"},
		want:  []string{`error default-pool-without-queue: project a: defaultNodePools lists node pool h10, but the project has no queue on it; KRM's webhook rejects a defaultNodePools entry without a queue; did you mean "h100"?`}},
	{name: "defaultNodePools entry that is no pool, near another pool than the project's",
		yaml: catH100 + catPool("a100", "a100") + catDept("d", catQ("d-q", "a100", catGPU("4", "4"))) +
			catProj("a", "d", "  defaultNodePools: [h10]\n", catQ("a-q", "a100", catGPU("4", "4"))),
		codes: []string{"default-pool-without-queue"},
		want:  []string{`error default-pool-without-queue: project a: defaultNodePools lists node pool h10, but the project has no queue on it; KRM's webhook rejects a defaultNodePools entry without a queue; did you mean "h100"?`}},
	{name: "queue name over 58 characters",
		yaml:  catH100 + catDept("d", catQ(strings.Repeat("q", 59), "h100", catGPU("4", "4")), catQ(strings.Repeat("r", 58), "default", catGPU("0", "0"))),
		codes: []string{"queue-name-too-long"},
		want:  []string{"warning queue-name-too-long: " + strings.Repeat("q", 59) + ": the queue name is 59 characters; KRM cuts a queue name over 58 characters to 58 and appends \"-\" and 4 random characters, so the scheduler's queue will not be called what the file says"}},

	// Pool capacity.
	{name: "departments guaranteed 24 cards on a pool of 16",
		yaml: catOver24, mods: []func(*snapshot.State){catSixteen},
		codes: []string{"pool-over-capacity", "pool-cards-unschedulable", "department-limit-over-pool"},
		want:  []string{"error pool-over-capacity: pool h100: departments are guaranteed 24 cards, the pool has 16 cards — 8 cards over"}},
	{name: "the same with one node not Ready: over the pool's cards, Ready or not",
		yaml: catOver24, mods: []func(*snapshot.State){catSixteenOneDown},
		codes: []string{"pool-over-capacity", "pool-cards-unschedulable"},
		want: []string{
			"error pool-over-capacity: pool h100: departments are guaranteed 24 cards, the pool has 16 cards — 8 cards over",
			"warning pool-cards-unschedulable: pool h100: not all of the pool's 16 cards are schedulable right now: node gpu-2 is not Ready (8 cards)",
		}},
	{name: "112 cards on a pool of 16 with one node not Ready",
		yaml:  catH100 + catDept("a", catQ("a-h100", "h100", catGPU("100", "-1"))) + catDept("b", catQ("b-h100", "h100", catGPU("12", "-1"))),
		mods:  []func(*snapshot.State){catSixteenOneDown},
		codes: []string{"pool-over-capacity"},
		want:  []string{"error pool-over-capacity: pool h100: departments are guaranteed 112 cards, the pool has 16 cards — 96 cards over"}},
	{name: "within the pool's cards but over those schedulable now",
		yaml:  catH100 + catDept("a", catQ("a-h100", "h100", catGPU("6", "16"))) + catDept("b", catQ("b-h100", "h100", catGPU("6", "16"))),
		mods:  []func(*snapshot.State){catSixteenOneDown},
		codes: []string{"pool-over-capacity", "pool-cards-unschedulable"},
		want: []string{
			"warning pool-cards-unschedulable: pool h100: not all of the pool's 16 cards are schedulable right now: node gpu-2 is not Ready (8 cards)",
			"warning pool-over-capacity: pool h100: departments are guaranteed 12 cards, within the pool's 16 cards, but only 8 cards are schedulable right now — 4 cards over until its nodes are settled: node gpu-2 is not Ready (8 cards)",
		}},
	{name: "within the schedulable cards",
		yaml:  catH100 + catDept("a", catQ("a-h100", "h100", catGPU("8", "8"))),
		mods:  []func(*snapshot.State){catSixteenOneDown},
		codes: []string{"pool-over-capacity"}},
	{name: "one card schedulable, a root project queue, a short node",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("1", "1"))) + catProj("p", "b", "", catQ("p-h100", "h100", catGPU("1", "1"))) + catDept("b", catQ("b-default", "default", catGPU("0", "0"))),
		mods: []func(*snapshot.State){catNodes(catNode("gpu-1", "h100", "1", true, false),
			snapshot.Node{Name: "gpu-2", Labels: map[string]string{"gpu": "h100"}, GPUCapacity: quota.FromInt(2), GPUAllocatable: quota.FromInt(0), Ready: true})},
		codes: []string{"pool-over-capacity"},
		want:  []string{"warning pool-over-capacity: pool h100: departments and project queues outside a department are guaranteed 2 cards, within the pool's 3 cards, but only 1 card is schedulable right now — 1 card over until its nodes are settled: node gpu-2 has 0 of its 2 cards allocatable"}},
	{name: "an unlimited department guarantee on a pool of known size",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("-1", "-1"))) + catDept("b", catQ("b-h100", "h100", catGPU("2", "2"))), mods: []func(*snapshot.State){catSixteen},
		codes: []string{"pool-over-capacity"},
		want:  []string{"error pool-over-capacity: pool h100: departments are guaranteed unlimited cards (-1 on a-h100), the pool has 16 cards"}},
	{name: "a root project queue counts against the pool",
		yaml: catH100 + catPool("a100", "a100") + catDept("a", catQ("a-h100", "h100", catGPU("12", "16"))) +
			catProj("p", "a", "", catQ("p-h100", "h100", catGPU("12", "12")), catQ("p-a100", "a100", catGPU("1", "1"))),
		mods:  []func(*snapshot.State){catSixteen},
		codes: []string{"pool-over-capacity"},
		want:  []string{"error pool-over-capacity: pool a100: departments and project queues outside a department are guaranteed 1 card, the pool has 0 cards — 1 card over"}},
	// A project without spec.parent is a root project (krm-facts 4): its
	// queues are root queues beside the departments, counted in the pool's
	// guarantees, in no department's sum, and not a finding themselves.
	{name: "a project without a parent is a root project at the pool's top",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("8", "16"))) +
			catProj("p", "a", "", catQ("p-h100", "h100", catGPU("6", "12"))) + catProj("r", "a", "", catQ("r-h100", "h100", catGPU("10", "12"))),
		mods:  []func(*snapshot.State){catSixteen, catRoot("r")},
		codes: []string{"pool-over-capacity", "unknown-parent", "project-outside-department", "projects-over-department", "unassigned-share"},
		want: []string{
			"error pool-over-capacity: pool h100: departments and project queues outside a department are guaranteed 18 cards, the pool has 16 cards — 2 cards over",
			"note unassigned-share: a-h100: the projects are guaranteed 6 cards of the department's 8 cards — 2 cards not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight",
		}},
	{name: "pool default is the nodes of no other pool",
		yaml:  catH100 + catDept("a", catQ("a-h100", "h100", catGPU("16", "16")), catQ("a-default", "default", catGPU("2", "2"))),
		mods:  []func(*snapshot.State){catNodes(catNode("gpu-1", "h100", "16", true, false), catNode("gpu-9", "", "1.5", true, false), catNode("gpu-x", "other", "0.5", true, false))},
		codes: []string{"pool-over-capacity", "department-limit-over-pool"}},
	// 1.5 allocatable cards are 2, as KAI reads a device count (rounded up).
	{name: "the default pool over its cards",
		yaml:  catDept("a", catQ("a-default", "default", catGPU("3", "3"))),
		mods:  []func(*snapshot.State){catNodes(catNode("gpu-9", "", "1.5", true, false), catNode("gpu-x", "other", "0", true, false))},
		codes: []string{"pool-over-capacity", "department-limit-over-pool"},
		want: []string{
			"error pool-over-capacity: pool default: departments are guaranteed 3 cards, the pool has 2 cards — 1 card over",
			"warning department-limit-over-pool: a-default: the department's gpu limit of 3 cards is above the 2 cards of pool default — 1 card of it can never be reached",
		}},
	{name: "cordoned and short nodes",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("4", "-1"))),
		mods: []func(*snapshot.State){catNodes(catNode("gpu-1", "h100", "8", true, true), catNode("gpu-2", "h100", "8", false, true),
			snapshot.Node{Name: "gpu-3", Labels: map[string]string{"gpu": "h100"}, GPUCapacity: quota.FromInt(8), GPUAllocatable: quota.FromInt(6), Ready: true},
			catNode("gpu-4", "h100", "0", false, false))},
		codes: []string{"pool-over-capacity", "pool-cards-unschedulable", "department-limit-over-pool"},
		want:  []string{"warning pool-cards-unschedulable: pool h100: not all of the pool's 24 cards are schedulable right now: node gpu-1 is cordoned (8 cards); node gpu-2 is not Ready and cordoned (8 cards); node gpu-3 has 6 of its 8 cards allocatable"}},
	// Cards as KAI counts them: a MIG pool (nvidia.com/gpu 0) has its
	// instances' slices, AMD cards count, the resource list wins over the
	// older gpuAllocatable, and pressure keeps a node's cards out.
	{name: "a MIG pool is 7 cards, not 0",
		yaml:  catH100 + catDept("a", catQ("a-h100", "h100", catGPU("7", "7"))),
		mods:  []func(*snapshot.State){catNodes(catListNode("mig-1", "h100", snapshot.ResourceList{"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "7"}, nil))},
		codes: []string{"pool-over-capacity", "pool-cards-unschedulable", "department-limit-over-pool"}},
	{name: "MIG slices and AMD cards over the pool",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("16", "16"))),
		mods: []func(*snapshot.State){catNodes(catListNode("mig-2", "h100", snapshot.ResourceList{"nvidia.com/mig-3g.40gb": "2", "nvidia.com/mig-1g.10gb": "1"}, nil),
			catListNode("amd-1", "h100", snapshot.ResourceList{"amd.com/gpu": "8", "cpu": "64"}, nil))},
		codes: []string{"pool-over-capacity"},
		want:  []string{"error pool-over-capacity: pool h100: departments are guaranteed 16 cards, the pool has 15 cards — 1 card over"}},
	{name: "the allocatable list wins over gpuAllocatable",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("4", "8"))),
		mods: []func(*snapshot.State){func(s *snapshot.State) {
			n := catListNode("gpu-1", "h100", snapshot.ResourceList{"nvidia.com/gpu": "2"}, nil)
			n.GPUCapacity, n.GPUAllocatable = quota.FromInt(8), quota.FromInt(8)
			catNodes(n)(s)
		}},
		codes: []string{"pool-over-capacity", "pool-cards-unschedulable"},
		want:  []string{"error pool-over-capacity: pool h100: departments are guaranteed 4 cards, the pool has 2 cards — 2 cards over"}},
	{name: "nodes under pressure are not schedulable",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("4", "16"))),
		mods: []func(*snapshot.State){catNodes(
			catListNode("gpu-1", "h100", snapshot.ResourceList{"nvidia.com/gpu": "8"}, map[string]string{"DiskPressure": "True", "NetworkUnavailable": "True"}),
			catListNode("gpu-2", "h100", snapshot.ResourceList{"nvidia.com/mig-7g.80gb": "1"}, map[string]string{"MemoryPressure": "Unknown"}))},
		codes: []string{"pool-over-capacity", "pool-cards-unschedulable"},
		want: []string{
			"warning pool-cards-unschedulable: pool h100: not all of the pool's 15 cards are schedulable right now: node gpu-1 is under DiskPressure and NetworkUnavailable (8 cards); node gpu-2 is MemoryPressure=Unknown (7 cards)",
			"warning pool-over-capacity: pool h100: departments are guaranteed 4 cards, within the pool's 15 cards, but only 0 cards are schedulable right now — 4 cards over until its nodes are settled: node gpu-1 is under DiskPressure and NetworkUnavailable (8 cards); node gpu-2 is MemoryPressure=Unknown (7 cards)",
		}},
	{name: "department limit above the pool's cards",
		yaml: catH100 + catDept("a", catQ("a-h100", "h100", catGPU("8", "20"))), mods: []func(*snapshot.State){catSixteen},
		codes: []string{"department-limit-over-pool", "pool-over-capacity"},
		want:  []string{"warning department-limit-over-pool: a-h100: the department's gpu limit of 20 cards is above the 16 cards of pool h100 — 4 cards of it can never be reached"}},

	// Namespaces.
	{name: "namespaces missing, unlabelled, labelled for another project",
		yaml: catDept("d", catQ("d-q", "default", catGPU("0", "0"))) + catProj("a", "d", "  namespace: team-a\n", catQ("a-q", "default", catGPU("0", "0"))) +
			catProj("b", "d", "  namespace: team-b\n", catQ("b-q", "default", catGPU("0", "0"))) + catProj("c", "d", "  namespace: team-c\n", catQ("c-q", "default", catGPU("0", "0"))) +
			catProj("e", "d", "  namespace: team-e\n", catQ("e-q", "default", catGPU("0", "0"))),
		mods:  []func(*snapshot.State){catNamespaces(catNS("team-b", "team", "b"), catNS("team-c", "kai/project", "a"), catNS("team-e", "kai/project", "e"))},
		codes: []string{"namespace-missing", "namespace-not-labelled", "namespace-labelled-other-project"},
		want: []string{
			"warning namespace-missing: project a: namespace team-a does not exist; KRM accepts the project, but its workloads need that namespace, labelled kai/project=a",
			"warning namespace-not-labelled: project b: namespace team-b is not labelled kai/project=b; KRM binds a namespace to its project by that label",
			"warning namespace-labelled-other-project: project c: namespace team-c is labelled kai/project=a, which binds it to project a, not to c",
		}},
	// Without spec.namespace, KRM names the namespace kai-<project>,
	// creates it and labels it itself (krm-facts 1): the bare project name
	// is not the project's namespace.
	{name: "the default namespace kai-<project>",
		yaml: catDept("d", catQ("d-q", "default", catGPU("0", "0"))) + catProj("a", "d", "", catQ("a-q", "default", catGPU("0", "0"))) +
			catProj("b", "d", "", catQ("b-q", "default", catGPU("0", "0"))) + catProj("c", "d", "", catQ("c-q", "default", catGPU("0", "0"))) +
			catProj("e", "d", "", catQ("e-q", "default", catGPU("0", "0"))),
		mods: []func(*snapshot.State){catNamespaces(catNS("a", "kai/project", "a"), catNS("kai-b"), catNS("kai-c", "kai/project", "a"),
			catNS("kai-e", "kai/project", "e"))},
		codes: []string{"namespace-missing", "namespace-not-labelled", "namespace-labelled-other-project"},
		want: []string{
			"warning namespace-missing: project a: namespace kai-a (KRM's name for a project without spec.namespace) does not exist; KRM creates it when it reconciles the project, so it has not yet",
			"warning namespace-not-labelled: project b: namespace kai-b is not labelled kai/project=b; KRM takes over a namespace of its default name when it reconciles the project, labelling it and dropping the namespace's other labels",
			"warning namespace-labelled-other-project: project c: namespace kai-c is labelled kai/project=a; KRM takes over a namespace of its default name for project c and rewrites its labels, so project a loses it",
		}},
	{name: "the KRMConfig's project label key, namespace prefix and createNamespaces",
		yaml: catDept("d", catQ("d-q", "default", catGPU("0", "0"))) + catProj("a", "d", "", catQ("a-q", "default", catGPU("0", "0"))) +
			catProj("b", "d", "", catQ("b-q", "default", catGPU("0", "0"))) +
			"---\napiVersion: kai.resources/v1alpha1\nkind: KRMConfig\nmetadata: {name: krm-config}\nspec: {global: {namespaceProjectLabelKey: example.com/project}}\n",
		mods: []func(*snapshot.State){catNamespaces(catNS("team-a", "kai/project", "a")), func(s *snapshot.State) {
			off := false
			s.KRMConfig.ProjectNamePrefix, s.KRMConfig.CreateNamespaces = "team", &off
		}},
		codes: []string{"namespace-missing", "namespace-not-labelled", "namespace-labelled-other-project"},
		want: []string{
			"warning namespace-not-labelled: project a: namespace team-a is not labelled example.com/project=a, and the KRMConfig turns createNamespaces off, so KRM does not label it; KRM binds a namespace to its project by that label",
			"warning namespace-missing: project b: namespace team-b (KRM's name for a project without spec.namespace) does not exist, and the KRMConfig turns createNamespaces off, so KRM will not create it; create it labelled example.com/project=b, or set spec.namespace",
		}},
	// Only the singletons KRM reads count: a KRMConfig of another name
	// sets nothing (the default key kai/project stays), and is a warning.
	{name: "a KRMConfig and a ManagedNodesConfig of other names",
		yaml: catDept("d", catQ("d-q", "default", catGPU("0", "0"))) + catProj("a", "d", "", catQ("a-q", "default", catGPU("0", "0"))) +
			"---\napiVersion: kai.resources/v1alpha1\nkind: KRMConfig\nmetadata: {name: krm}\nspec: {global: {namespaceProjectLabelKey: example.com/project}}\n" +
			"---\napiVersion: kai.resources/v1alpha1\nkind: ManagedNodesConfig\nmetadata: {name: gpu-nodes}\nspec: {}\n",
		mods:  []func(*snapshot.State){catNamespaces(catNS("kai-a", "kai/project", "a"))},
		codes: []string{"namespace-not-labelled", "singleton-ignored"},
		want: []string{
			"warning singleton-ignored: KRMConfig krm is ignored: KRM reads only the KRMConfig named krm-config",
			"warning singleton-ignored: ManagedNodesConfig gpu-nodes is ignored: KRM reads only the ManagedNodesConfig named kai-managed-nodes-config",
		}},

	// Partial reads: never silent.
	{name: "sources not read",
		yaml:  catH100 + catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("4", "4"))),
		codes: []string{"queues-not-read", "namespaces-not-read", "pool-cards-unknown"},
		want: []string{
			"note namespaces-not-read: namespace checks not run: namespaces not read (test) — whether each project's namespace exists and is labelled kai/project=<project> was not checked",
			"note queues-not-read: usage checks not run: queues not read (test) — usage against the limits, non-preemptible usage against the guarantees and the scheduler's Queue numbers were not compared",
			"note pool-cards-unknown: node pool h100: the card count is unknown (nodes not read: test), so the guarantees of the departments and of the project queues outside a department were not compared with the pool's cards",
		}},
	{name: "sources read, nothing to say",
		yaml: catH100 + catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) + catProj("a", "d", "", catQ("a-q", "h100", catGPU("4", "4"))),
		mods: []func(*snapshot.State){catSixteen, catNamespaces(catNS("kai-a", "kai/project", "a")),
			catQueues(snapshot.LiveQueue{Name: "d-q"}, snapshot.LiveQueue{Name: "a-q"})},
		codes: []string{"queues-not-read", "namespaces-not-read", "pool-cards-unknown", "live-queue-missing", "usage-over-limit"}},
}

func TestCatalogue(t *testing.T) {
	for _, tc := range catalogueCases {
		t.Run(tc.name, func(t *testing.T) {
			s := catState(t, tc.yaml, tc.mods...)
			all := Check(s, nil)
			got := catOnly(all, tc.codes...)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("findings:\n got %q\nwant %q", got, tc.want)
			}
			sameErrors(t, all, checkErrors(s))
		})
	}
}

func TestCatalogueQuotaFromQuantity(t *testing.T) {
	for _, tc := range []struct {
		r          quota.Resource
		text, want string
	}{
		{quota.GPU, "2", "2"}, {quota.GPU, "1500m", "1.5"}, {quota.GPU, "0.5", "0.5"},
		{quota.CPU, "1500m", "1500"}, {quota.CPU, "2", "2000"}, {quota.CPU, "0.1", "100"},
		{quota.Memory, "3Gi", "3221.225472"}, {quota.Memory, "500M", "500"}, {quota.Memory, "1e9", "1000"}, {quota.Memory, "1024", "0.001024"},
	} {
		got, err := snapshot.QuotaFromQuantity(tc.r, tc.text)
		if err != nil || got.String() != tc.want {
			t.Errorf("%s %q = %v, %v; want %s", tc.r, tc.text, got, err, tc.want)
		}
	}
	if _, err := snapshot.QuotaFromQuantity(quota.GPU, "two"); err == nil {
		t.Error("a non-quantity was accepted")
	}
}

func TestCatalogueLiveQueueChecks(t *testing.T) {
	yaml := catDept("d", catQ("d-q", "default", "{gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}, cpu: {deserved: 1000, limit: 1000, overQuotaWeight: 1}, memory: {deserved: 2000, limit: 3000, overQuotaWeight: 1}}")) +
		catProj("a", "d", "", catQ("a-q", "default", "{gpu: {deserved: 1, limit: 1, overQuotaWeight: 1}, cpu: {deserved: 1000, limit: 1000, overQuotaWeight: 1}, memory: {deserved: 2000, limit: 3000, overQuotaWeight: 1}}")) +
		catProj("b", "d", "", catQ("b-q", "default", catGPU("0", "1")))
	dq := catLive(t, "d-q", "{gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}, cpu: {deserved: 1000, limit: 1000, overQuotaWeight: 1}, memory: {deserved: 2000, limit: 3000, overQuotaWeight: 1}}",
		map[string]string{"nvidia.com/gpu": "2", "cpu": "1500m", "memory": "3Gi"}, nil)
	aq := catLive(t, "a-q", "{gpu: {deserved: 3, limit: 3, overQuotaWeight: 1}, cpu: {deserved: 1000, limit: 1000, overQuotaWeight: 1}, memory: {deserved: 2000, limit: 3000, overQuotaWeight: 2}}",
		map[string]string{"nvidia.com/gpu": "2", "cpu": "1", "memory": "1G"},
		map[string]string{"nvidia.com/gpu": "1500m", "cpu": "1", "memory": "2G"})
	s := catState(t, yaml, catQueues(dq, aq))
	codes := []string{"usage-over-limit", "non-preemptible-over-guarantee", "live-queue-differs", "live-queue-missing", "usage-unreadable", "queues-not-read"}
	got := catOnly(Check(s, nil), codes...)
	want := []string{
		"warning non-preemptible-over-guarantee: a-q: non-preemptible workloads use 1.5 cards, above the queue's gpu guarantee of 1 card — 0.5 cards over; nothing is evicted, so the change waits for those workloads to finish",
		"warning usage-over-limit: a-q: the queue uses 2 cards, above its gpu limit of 1 card — 1 card over; KAI's scheduler gives it no more cards until its usage is below the limit",
		"warning usage-over-limit: d-q: the queue uses 1500 millicores, above its cpu limit of 1000 millicores — 500 millicores over; KAI's scheduler gives it no more cpu until its usage is below the limit",
		"warning usage-over-limit: d-q: the queue uses 3221.225472 MB, above its memory limit of 3000 MB — 221.225472 MB over; KAI's scheduler gives it no more memory until its usage is below the limit",
		"note live-queue-differs: a-q: the scheduler's Queue has gpu quota 3 cards, limit 3 cards, the source has gpu deserved 1 card, limit 1 card — not reconciled or synced yet, or the Queue was edited directly",
		"note live-queue-differs: a-q: the scheduler's Queue has memory overQuotaWeight 2, the source has memory overQuotaWeight 1 — not reconciled or synced yet, or the Queue was edited directly",
		"note live-queue-missing: b-q: the scheduler has no Queue of this name; KRM has not created it yet",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}

	// A Queue under KRM's manual-override label: its numbers differ on
	// purpose; the KRMConfig may name another key.
	aq.Labels = map[string]string{"kai.resources/resource-manual-override": "TRUE"}
	s = catState(t, yaml, catQueues(dq, aq))
	got = catOnly(Check(s, nil), "live-queue-differs", "manual-override")
	want = []string{"note manual-override: a-q: the scheduler's Queue carries kai.resources/resource-manual-override=TRUE, so KRM no longer writes it from the spec: its numbers are the ones set by hand, and a change to this queue in the source does not reach the scheduler until the label is removed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("manual override:\n got %q\nwant %q", got, want)
	}
	s.KRMConfig = &tenancy.KRMConfig{ManualOverrideLabelKey: "example.com/hands-off"}
	if got := catOnly(Check(s, nil), "manual-override"); len(got) != 0 {
		t.Errorf("another override key: %q", got)
	}

	bad := catLive(t, "d-q", "{}", map[string]string{"nvidia.com/gpu": "lots"}, nil)
	got = catOnly(Check(catState(t, catDept("d", catQ("d-q", "default", "{}")), catQueues(bad)), nil), codes...)
	want = []string{
		`note usage-unreadable: d-q: the scheduler's Queue status.allocated holds nvidia.com/gpu "lots", which is not a Kubernetes quantity; the gpu usage was not compared`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
}

// A plan compares the live Queues with the numbers it starts from, not with
// its own changes, and usage with the numbers it plans; findings about a
// value the plan sets point at desired.hcl; a finding the snapshot has too
// is marked already present even when its numbers changed.
func TestCatalogueLiveQueuesInAPlan(t *testing.T) {
	yaml := catDept("d", catQ("d-q", "default", catGPU("4", "4"))) + catProj("a", "d", "", catQ("a-q", "default", catGPU("3", "3")))
	before := catState(t, yaml, catQueues(
		catLive(t, "d-q", catGPU("4", "4"), nil, nil),
		catLive(t, "a-q", catGPU("3", "3"), map[string]string{"nvidia.com/gpu": "3"}, map[string]string{"nvidia.com/gpu": "3"})))
	p := catPlan(t, before, "project \"a\" {\n  queue \"default\" {\n    gpu = { deserved = 2, limit = 2 }\n  }\n}\n")
	type row struct {
		msg     string
		present bool
		where   string
	}
	var got []row
	for _, f := range p.Findings {
		var w []string
		for _, l := range f.Where {
			w = append(w, fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column))
		}
		got = append(got, row{messages([]Finding{f})[0], f.AlreadyPresent, strings.Join(w, " ")})
	}
	want := []row{
		{"warning non-preemptible-over-guarantee: a-q: non-preemptible workloads use 3 cards, above the queue's gpu guarantee of 2 cards — 1 card over; nothing is evicted, so the change waits for those workloads to finish", false, "desired.hcl:3:24"},
		{"warning usage-over-limit: a-q: the queue uses 3 cards, above its gpu limit of 2 cards — 1 card over; KAI's scheduler gives it no more cards until its usage is below the limit", false, "desired.hcl:3:35"},
		{"note namespaces-not-read: namespace checks not run: namespaces not read (test) — whether each project's namespace exists and is labelled kai/project=<project> was not checked", true, ""},
		{"note pool-cards-unknown: node pool default: the card count is unknown (nodes not read: test), so the guarantees of the departments and of the project queues outside a department were not compared with the pool's cards", true, ""},
		{"note unassigned-share: d-q: the projects are guaranteed 2 cards of the department's 4 cards — 2 cards not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight", true, "t.yaml:7:66"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", got, want)
	}
}

func catPlan(t *testing.T, before *snapshot.State, hcl string) *Plan {
	t.Helper()
	ov, diags := config.Load("desired.hcl", []byte(hcl), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := Build(before, ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// New node pools are checked against the nodes and the ManagedNodesConfig
// only in a plan that creates them.
func TestCatalogueNewPools(t *testing.T) {
	managed := "---\napiVersion: kai.resources/v1alpha1\nkind: ManagedNodesConfig\nmetadata: {name: kai-managed-nodes-config}\n" +
		"spec:\n  inclusion_criteria:\n    nodeSelectorTerms:\n      - matchExpressions:\n          - {key: gpu, operator: In, values: [h100]}\n" +
		"      - matchExpressions:\n          - {key: gpu, operator: Exists}\n          - {key: spare, operator: DoesNotExist}\n"
	newPool := "node_pool \"a100\" {\n  label_key   = \"gpu\"\n  label_value = \"a100\"\n}\n"
	codes := []string{"new-pool-no-nodes", "new-pool-not-managed", "pool-cards-unknown"}
	for _, tc := range []struct {
		name string
		yaml string
		mods []func(*snapshot.State)
		want []string
	}{
		{"no node carries it", catPool("h100", "h100"), []func(*snapshot.State){catNodes(catNode("gpu-1", "h100", "8", true, false))},
			[]string{"warning new-pool-no-nodes: node pool a100 is new, and no node carries the label gpu=a100; its queues get no cards until nodes are labelled"}},
		{"nodes outside the whitelist", catPool("h100", "h100") + managed, []func(*snapshot.State){catNodes(catNode("gpu-1", "h100", "8", true, false),
			catNode("gpu-5", "a100", "8", true, false), catLabel(catNode("gpu-6", "a100", "8", true, false), "spare", "yes"), catLabel(catNode("gpu-7", "a100", "8", true, false), "spare", "yes"))},
			[]string{"warning new-pool-not-managed: node pool a100 is new, and 2 of its 3 nodes are outside the ManagedNodesConfig kai-managed-nodes-config: gpu-6, gpu-7; KRM manages only the nodes its nodeSelectorTerms select"}},
		{"nodes inside the whitelist", catPool("h100", "h100") + managed, []func(*snapshot.State){catNodes(catNode("gpu-5", "a100", "8", true, false))}, nil},
		{"nodes not read", catPool("h100", "h100"), nil,
			[]string{
				"note pool-cards-unknown: node pool a100: the card count is unknown (nodes not read: test), so the guarantees of the departments and of the project queues outside a department were not compared with the pool's cards, and whether any node carries gpu=a100 was not checked",
				"note pool-cards-unknown: node pool h100: the card count is unknown (nodes not read: test), so the guarantees of the departments and of the project queues outside a department were not compared with the pool's cards",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := catState(t, tc.yaml, tc.mods...)
			p := catPlan(t, before, newPool)
			if got := catOnly(p.Findings, codes...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan findings:\n got %q\nwant %q", got, tc.want)
			}
			for _, f := range p.Findings {
				if strings.HasPrefix(string(f.Code), "new-pool-") && (len(f.Where) != 1 || !f.Where[0].Desired || f.Where[0].Line != 3) {
					t.Errorf("%s: where = %+v, want label_value in desired.hcl", f.Code, f.Where)
				}
			}
			// The same state checked as it is has no new pool.
			target := cloneTenancy(before)
			target.NodePools = append(target.NodePools, tenancy.NodePool{Metadata: tenancy.Meta{Name: "a100"}, Spec: tenancy.NodePoolSpec{LabelKey: "gpu", LabelValue: "a100"}})
			if got := catOnly(Check(target, nil), "new-pool-no-nodes", "new-pool-not-managed"); got != nil {
				t.Errorf("Check found new pools without a before-state: %q", got)
			}
			if got, want := CheckChange(before, target, nil), p.Findings; len(catOnly(got, codes...)) != len(catOnly(want, codes...)) {
				t.Errorf("CheckChange and Build disagree: %q vs %q", catOnly(got, codes...), catOnly(want, codes...))
			}
		})
	}
}

func catLabel(n snapshot.Node, k, v string) snapshot.Node {
	n.Labels[k] = v
	return n
}

func TestCatalogueNodeSelector(t *testing.T) {
	labels := map[string]string{"gpu": "h100", "rank": "3"}
	for _, tc := range []struct {
		req  tenancy.NodeSelectorRequirement
		want bool
	}{
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "In", Values: []string{"a100", "h100"}}, true},
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "In", Values: []string{"a100"}}, false},
		{tenancy.NodeSelectorRequirement{Key: "zone", Operator: "In", Values: []string{""}}, false},
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "NotIn", Values: []string{"a100"}}, true},
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "NotIn", Values: []string{"h100"}}, false},
		{tenancy.NodeSelectorRequirement{Key: "zone", Operator: "NotIn", Values: []string{"a"}}, true},
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "Exists"}, true},
		{tenancy.NodeSelectorRequirement{Key: "zone", Operator: "Exists"}, false},
		{tenancy.NodeSelectorRequirement{Key: "zone", Operator: "DoesNotExist"}, true},
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "DoesNotExist"}, false},
		{tenancy.NodeSelectorRequirement{Key: "rank", Operator: "Gt", Values: []string{"2"}}, true},
		{tenancy.NodeSelectorRequirement{Key: "rank", Operator: "Lt", Values: []string{"2"}}, false},
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "Gt", Values: []string{"2"}}, false},
		{tenancy.NodeSelectorRequirement{Key: "gpu", Operator: "Matches"}, false},
	} {
		if got := tenancy.SelectsNode([]tenancy.NodeSelectorTerm{{MatchExpressions: []tenancy.NodeSelectorRequirement{tc.req}}}, labels); got != tc.want {
			t.Errorf("%+v: got %v, want %v", tc.req, got, tc.want)
		}
	}
	if tenancy.SelectsNode([]tenancy.NodeSelectorTerm{{}}, labels) {
		t.Error("a term without expressions matched")
	}
}

// A state where everything was read and is right has no finding at all.
func TestCatalogueCleanStateIsQuiet(t *testing.T) {
	yaml := catPool("h100", "h100") + catDept("d", catQ("d-q", "h100", catGPU("16", "16"))) +
		catProj("a", "d", "  defaultNodePools: [h100]\n", catQ("a-q", "h100", catGPU("10", "16"))) + catProj("b", "d", "  namespace: team-b\n", catQ("b-q", "h100", catGPU("6", "8")))
	s := catState(t, yaml,
		catNodes(catNode("gpu-1", "h100", "8", true, false), catNode("gpu-2", "h100", "8", true, false), catNode("cpu-1", "", "0", false, true)),
		catNamespaces(catNS("kai-a", "kai/project", "a"), catNS("team-b", "kai/project", "b")),
		catQueues(catLive(t, "d-q", catGPU("16", "16"), map[string]string{"nvidia.com/gpu": "16", "cpu": "96", "memory": "512Gi"}, nil),
			catLive(t, "a-q", catGPU("10", "16"), map[string]string{"nvidia.com/gpu": "12"}, map[string]string{"nvidia.com/gpu": "10"}),
			catLive(t, "b-q", catGPU("6", "8"), nil, nil)))
	if got := messages(Check(s, nil)); len(got) != 0 {
		t.Errorf("findings on a clean state: %q", got)
	}
}

// Findings come sorted errors, warnings, notes, the same on every run, and
// keep their key when only their numbers change.
func TestCatalogueFindingsStable(t *testing.T) {
	yaml := catPool("h100", "h100") + catPool("a100", "a100") +
		catDept("a", catQ("a-h100", "h100", catGPU("12", "20")), catQ("a-a100", "a100", catGPUOnly("{deserved: 1}"))) + catDept("b", catQ("b-h100", "h100", catGPU("12", "16"))) +
		catProj("p", "a", "  defaultNodePools: [l40]\n", catQ("p-h100", "h100", catGPU("13", "24")), catQ("p-l40", "l40", catGPU("1", "1"))) +
		catProj("r", "b", "", catQ("r-a100", "a100", catCPUOnly("{deserved: 1}")))
	mods := []func(*snapshot.State){catSixteenDown(), catNamespaces(catNS("p", "kai/project", "r"))}
	first := Check(catState(t, yaml, mods...), nil)
	if len(first) < 10 {
		t.Fatalf("expected a messy state, got %q", messages(first))
	}
	for i := 1; i < len(first); i++ {
		if first[i-1].Level.Rank() > first[i].Level.Rank() {
			t.Fatalf("not sorted by level: %q", messages(first))
		}
	}
	for run := 0; run < 5; run++ {
		if again := Check(catState(t, yaml, mods...), nil); !reflect.DeepEqual(again, first) {
			t.Fatalf("run %d differs:\n%q\n%q", run, messages(again), messages(first))
		}
	}
	// The same state with other numbers: every finding keeps its key.
	other := strings.ReplaceAll(yaml, "{deserved: 13, limit: 24,", "{deserved: 15, limit: 30,")
	if other == yaml {
		t.Fatal("no number changed")
	}
	keys := map[findingKey]bool{}
	for _, f := range Check(catState(t, other, mods...), nil) {
		keys[f.key()] = true
	}
	for _, f := range first {
		if !keys[f.key()] {
			t.Errorf("%s lost its key when numbers changed: %+v", f.Code, f.key())
		}
	}
}

func catSixteenDown() func(*snapshot.State) {
	return catNodes(catNode("gpu-1", "h100", "8", true, false), catNode("gpu-2", "h100", "8", false, false), catNode("gpu-3", "a100", "1", true, false))
}

// An omitted value is located by its neighbours in the file.
func TestCatalogueOmittedLimitPointsAtTheBlock(t *testing.T) {
	line := catQ("d-q", "default", "{gpu: {deserved: 0, limit: 0}, cpu: {deserved: 0, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}")
	s := mustState(t, catDept("d", line))
	for _, f := range Check(s, nil) {
		if f.Code != "limit-omitted" {
			continue
		}
		col := strings.Index(line, "cpu: {deserved: 0") + len("cpu: {deserved: ") + 1
		if want := []tenancy.Location{{File: "t.yaml", Line: 7, Column: col}}; !reflect.DeepEqual(f.Where, want) {
			t.Errorf("where = %+v, want %+v", f.Where, want)
		}
		return
	}
	t.Fatal("no limit-omitted finding")
}

// Moving cards between departments on a pool of known size renders in an
// order whose every step fits the pool.
func TestCatalogueCapacityKeepsASafeOrder(t *testing.T) {
	yaml := catPool("h100", "h100") + catDept("a", catQ("a-h100", "h100", catGPU("8", "16"))) + catDept("b", catQ("b-h100", "h100", catGPU("8", "16")))
	before := catState(t, yaml, catNodes(catNode("gpu-1", "h100", "8", true, false), catNode("gpu-2", "h100", "8", true, false)))
	p := catPlan(t, before, "department \"b\" {\n  queue \"h100\" {\n    gpu { deserved = 12 }\n  }\n}\ndepartment \"a\" {\n  queue \"h100\" {\n    gpu { deserved = 4 }\n  }\n}\n")
	if !p.Renderable() || !p.OrderVerified {
		t.Fatalf("renderable %v, verified %v: %q", p.Renderable(), p.OrderVerified, messages(p.Findings))
	}
	if len(p.Steps) != 2 || p.Steps[0].Object.Name != "a" {
		t.Fatalf("steps: %+v", p.Steps)
	}
	over := catPlan(t, before, "department \"b\" {\n  queue \"h100\" {\n    gpu { deserved = 12 }\n  }\n}\n")
	if got := catOnly(over.Findings, "pool-over-capacity"); !reflect.DeepEqual(got, []string{"error pool-over-capacity: pool h100: departments are guaranteed 20 cards, the pool has 16 cards — 4 cards over"}) || over.Renderable() {
		t.Errorf("findings %q, renderable %v", got, over.Renderable())
	}
}

// Names the API server would refuse are errors, pointing at the name in
// the tenancy file or in desired.hcl.
func TestCatalogueInvalidNames(t *testing.T) {
	yaml := catPool("h100", "h100") + "---\napiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: bad.pool}\nspec: {labelKey: \"gpu class\", labelValue: \"a/b\"}\n" +
		catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) +
		catProj("ok.dotted", "d", "", catQ("ok-q", "h100", catGPU("1", "1"))) +
		catProj("p", "d", "  namespace: Team_P\n", catQ("p-q", "h100", catGPU("1", "1")))
	s := mustState(t, yaml)
	want := []string{
		`error invalid-name: project ok.dotted: namespace "kai-ok.dotted" (KRM's default when spec.namespace is empty: kai-<project>) is not a valid namespace name: must not contain dots`,
		`error invalid-name: project p: namespace "Team_P" is not a valid namespace name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		`error invalid-name: node pool bad.pool: spec.labelKey "gpu class" is not a valid label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		`error invalid-name: node pool bad.pool: spec.labelValue "a/b" is not a valid label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
	}
	fs := Check(s, nil)
	if got := catOnly(fs, "invalid-name"); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
	var where []string
	for _, f := range fs {
		if f.Code == "invalid-name" {
			where = append(where, fmt.Sprintf("%s:%d:%d", f.Where[0].File, f.Where[0].Line, f.Where[0].Column))
		}
	}
	if want := []string{"t.yaml:19:0", "t.yaml:32:14", "t.yaml:10:18", "t.yaml:10:43"}; !reflect.DeepEqual(where, want) {
		t.Errorf("where = %q, want %q", where, want)
	}

	// A new project and queue from desired.hcl point at its block and name.
	before := mustState(t, catPool("h100", "h100")+catDept("d", catQ("d-q", "h100", catGPU("4", "4"))))
	p := catPlan(t, before, "project \"Bad_Name\" {\n  department = \"d\"\n  queue \"h100\" {\n    name = \"Bad Queue!\"\n    gpu { deserved = 1 }\n  }\n}\n")
	var got []string
	for _, f := range p.Findings {
		if f.Code == "invalid-name" {
			got = append(got, fmt.Sprintf("%s @%s:%d:%d", messages([]Finding{f})[0], f.Where[0].File, f.Where[0].Line, f.Where[0].Column))
		}
	}
	want = []string{
		`error invalid-name: project Bad_Name: the name is not a valid Kubernetes object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') @desired.hcl:1:1`,
		`error invalid-name: Bad Queue!: the queue name is not a valid Kubernetes object name (KRM creates a cluster-scoped KAI Queue of this name): a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') @desired.hcl:4:12`,
	}
	if !reflect.DeepEqual(got, want) || p.Renderable() {
		t.Errorf("renderable %v, findings:\n got %q\nwant %q", p.Renderable(), got, want)
	}
}

// A queue on a node pool that does not exist has its error, and no notes
// about its numbers.
func TestCatalogueUnknownPoolHasNoNotes(t *testing.T) {
	s := mustState(t, catPool("h100", "h100")+catDept("d", catQ("d-q", "a100", catGPUOnly("{deserved: 4, limit: 8}")), catQ("d-h100", "h100", catGPUOnly("{deserved: 4, limit: 8}"))))
	var got []string
	for _, f := range Check(s, nil) {
		if f.Queue != "" {
			got = append(got, messages([]Finding{f})[0])
		}
	}
	want := []string{
		`error unknown-pool: d-q: node pool "a100" does not exist; KRM's webhook rejects a queue on an unknown pool`,
		"note unassigned-share: d-h100: the projects are guaranteed 0 cards of the department's 4 cards — 4 cards not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight",
		"note zero-weight: d-h100: the gpu overQuotaWeight is omitted, which KRM reads as 0, so KAI's scheduler never gives this queue a share of idle cards, although its limit (8 cards) is above its guarantee (4 cards)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
}

// A finding the snapshot has too is marked already present; when the plan
// changes it, Before keeps the snapshot's message.
func TestAlreadyPresentKeepsTheMessageBefore(t *testing.T) {
	h100 := catPool("h100", "h100")
	before := mustState(t, h100+catDept("d", catQ("d-q", "h100", catGPU("4", "4")))+
		catProj("a", "d", "", catQ("a-q", "h100", catGPU("3", "4")))+catProj("b", "d", "", catQ("b-q", "h100", catGPU("2", "4"))))
	type row struct {
		msg, before string
		present     bool
	}
	rows := func(p *Plan) []row {
		var out []row
		for _, f := range p.Findings {
			if f.Code == "projects-over-department" {
				out = append(out, row{f.Message, f.Before, f.AlreadyPresent})
			}
		}
		return out
	}
	worse := catPlan(t, before, "project \"b\" {\n  queue \"h100\" {\n    gpu { deserved = 3 }\n  }\n}\n")
	want := []row{{
		"d-q: the projects are guaranteed 6 cards in total, but the department only has 4 cards — 2 cards of those guarantees cannot be met",
		"d-q: the projects are guaranteed 5 cards in total, but the department only has 4 cards — 1 card of those guarantees cannot be met",
		true,
	}}
	if got := rows(worse); !reflect.DeepEqual(got, want) {
		t.Errorf("a plan that makes it worse:\n got %+v\nwant %+v", got, want)
	}
	same := catPlan(t, before, "project \"a\" {\n  queue \"h100\" {\n    gpu { limit = 3 }\n  }\n}\n")
	want = []row{{"d-q: the projects are guaranteed 5 cards in total, but the department only has 4 cards — 1 card of those guarantees cannot be met", "", true}}
	if got := rows(same); !reflect.DeepEqual(got, want) {
		t.Errorf("a plan that leaves it:\n got %+v\nwant %+v", got, want)
	}
}
