// Package gentenancy generates KRM tenancies that look like a real GPU
// cluster's: node pools of 8-card nodes, departments with a share of each
// pool, projects that split the departments' shares, and what a cluster
// adds (nodes, live KAI Queues with their usage, namespaces). It is the one
// generator behind the bundled demo (examples/demo, 48 projects) and the
// benchmarks (up to 50,000 projects).
//
// A tenancy is made of cells. One cell is the demo: two node pools (h100:
// 12 nodes, a100: 8 nodes, 8 cards each, 160 cards in all), 8 departments
// and 48 projects. A larger tenancy repeats the cell with names suffixed by
// the cell number (h100-c7, research-c7, …) and its own random numbers, so
// departments, pools and nodes grow in proportion to the projects. The
// output is a pure function of the Spec: the same seed gives the same bytes.
package gentenancy

import (
	"fmt"
	"strconv"
)

// DemoSeed is the seed of the bundled demo.
const DemoSeed = 7

// ProjectsPerCell is the number of projects of a full cell (the demo).
const ProjectsPerCell = 48

// Spec says what to generate.
type Spec struct {
	// Projects is the number of projects (at least 1). Every full cell has
	// ProjectsPerCell of them; a last, partial cell holds the rest.
	Projects int
	// Seed makes the numbers; the same seed gives the same tenancy.
	Seed uint64
}

// Demo returns the bundled demo's tenancy: one cell, 160 cards on 20 nodes
// in two pools, 8 departments, 48 projects.
func Demo() *Tenancy { return Generate(Spec{Projects: ProjectsPerCell, Seed: DemoSeed}) }

// Tenancy is a generated tenancy: objects in file order, and the cluster.
// GPU amounts are counted in half cards (Half), so that 2.5 cards is exact.
type Tenancy struct {
	Spec        Spec
	Cells       int
	Pools       []Pool
	Departments []Department
	Projects    []Project
	Nodes       []Node
	// Namespaces lists namespaces that belong to no project (kube-system, …).
	Namespaces []string
}

// Half is an amount of GPU in half cards: Half(5) is 2.5 cards.
type Half int

// Unlimited is -1 (KRM's "no bound") as a Half; it is never halved.
const Unlimited Half = -1

// Cards returns h as a whole number of half cards (c cards).
func Cards(c int) Half { return Half(2 * c) }

// String prints h in cards as KRM writes it: "4", "2.5", "-1".
func (h Half) String() string {
	if h == Unlimited {
		return "-1"
	}
	if h%2 == 0 {
		return strconv.Itoa(int(h / 2))
	}
	return fmt.Sprintf("%d.5", h/2)
}

// Pool is a NodePool and the nodes that carry its label.
type Pool struct {
	Name  string
	Class string // "h100" or "a100"
	Cell  int
	// LabelValue is the value of LabelKey on its nodes.
	LabelValue string
	Nodes      int // nodes of 8 cards
	Comment    string
}

// Cards is the pool's card count when every node is ready.
func (p Pool) Cards() int { return p.Nodes * CardsPerNode }

// LabelKey is the node label that selects a pool's nodes.
const LabelKey = "example.com/gpu-class"

// CardsPerNode is the GPU count of every generated node.
const CardsPerNode = 8

// Queue is one entry of spec.queues, with its live usage.
type Queue struct {
	Name string
	Pool string
	// Priority is 0 for a department queue (not written), else KAI's
	// priority: 100 non-preemptible, 50 preemptible.
	Priority int
	// GPU deserved and limit in half cards; Weight the overQuotaWeight.
	Deserved, Limit Half
	Weight          int
	// CPU (millicores) and Memory (MB) deserved; -1 is unlimited. The
	// limits are always -1 and the weights 1.
	CPU, Memory int64
	// Used is the GPU usage the scheduler reports (status.allocated), in
	// half cards; NonPreemptible the part of it that is non-preemptible.
	Used, NonPreemptible Half
}

// Department is a Department object.
type Department struct {
	Name    string
	Cell    int
	Comment string
	Queues  []Queue
}

// Project is a Project object and its namespace.
type Project struct {
	Name    string
	Parent  string
	Cell    int
	Comment string
	Queues  []Queue
	// Labelled is false for the namespace that was created by hand and
	// never labelled kai/project=<name>.
	Labelled bool
	// Interactive projects run non-preemptible work (priority 100).
	Interactive bool
}

// Node is a cluster node of a pool.
type Node struct {
	Name  string
	Pool  string
	Class string
	Ready bool
}

// NonPreemptiblePriority is the priority from which KAI treats a workload
// as non-preemptible; PreemptiblePriority is what batch projects use.
const (
	NonPreemptiblePriority = 100
	PreemptiblePriority    = 50
)

// Per-card cpu and memory guarantees of a project queue, and the usage the
// scheduler reports per used half card.
const (
	cpuPerHalf        = 4000  // millicores: 8 cores per card
	memoryPerHalf     = 32000 // MB: 64 GB per card
	usedCPUPerHalf    = 3500  // millicores
	usedMemGiPerHalf  = 28    // GiB (30.06 GB, under the 32 GB guaranteed)
	poolReserveH100   = 8     // cards of the h100 pool no department is guaranteed
	poolReserveA100   = 12    // cards of the a100 pool no department is guaranteed
	h100NodesPerCell  = 12
	a100NodesPerCell  = 8
	cardsMovedPerCell = 4
)

// Generate builds the tenancy of s. It panics on s.Projects < 1.
func Generate(s Spec) *Tenancy {
	if s.Projects < 1 {
		panic("gentenancy: at least one project")
	}
	t := &Tenancy{Spec: s, Cells: (s.Projects + ProjectsPerCell - 1) / ProjectsPerCell}
	t.Namespaces = []string{"default", "kai-resource-management", "kai-scheduler", "kube-system", "gpu-operator"}
	for c := 0; c < t.Cells; c++ {
		n := min(ProjectsPerCell, s.Projects-c*ProjectsPerCell)
		t.cell(c, n)
	}
	return t
}

// suffix names cell c's copy of a name: the name itself in cell 0.
func suffix(name string, c int) string {
	if c == 0 {
		return name
	}
	return fmt.Sprintf("%s-c%d", name, c)
}

// cell adds cell c with its first n projects (n ≤ ProjectsPerCell).
func (t *Tenancy) cell(c, n int) {
	r := newRNG(t.Spec.Seed, uint64(c))
	h := Pool{Name: suffix("h100", c), Class: "h100", Cell: c, Nodes: h100NodesPerCell,
		Comment: fmt.Sprintf("%d nodes x 8 H100 80GB SXM: pre-training and large fine-tunes.", h100NodesPerCell)}
	a := Pool{Name: suffix("a100", c), Class: "a100", Cell: c, Nodes: a100NodesPerCell,
		Comment: fmt.Sprintf("%d nodes x 8 A100 80GB: serving, evaluation and smaller jobs.", a100NodesPerCell)}
	h.LabelValue, a.LabelValue = h.Name, a.Name
	pools := [2]*Pool{&h, &a}
	t.Pools = append(t.Pools, h, a)

	// One a100 node per cell is not ready.
	notReady := r.intn(a.Nodes)
	ready := map[string]Half{}
	for _, p := range pools {
		for i := 0; i < p.Nodes; i++ {
			ok := p != &a || i != notReady
			t.Nodes = append(t.Nodes, Node{Name: fmt.Sprintf("%s-node-%02d", p.Name, i+1), Pool: p.Name, Class: p.Class, Ready: ok})
			if ok {
				ready[p.Name] += Cards(CardsPerNode)
			}
		}
	}

	// The cell's departments, and how many of their projects it holds: a
	// full cell all of them; a partial one the first few, in turn.
	take := make([]int, len(departments))
	for left, d := n, 0; left > 0; d, left = (d+1)%len(departments), left-1 {
		take[d]++
	}
	var ds []Department
	var tmpls []*deptTemplate
	for i := range departments {
		if take[i] > 0 {
			ds = append(ds, Department{Name: suffix(departments[i].name, c), Cell: c, Comment: departments[i].comment})
			tmpls = append(tmpls, &departments[i])
		}
	}
	// The departments' shares of each pool: the pool minus a reserve, split
	// by weight, each at least one card.
	for pi, p := range pools {
		var on, weights []int
		for i, tm := range tmpls {
			if w := tm.weights[pi]; w > 0 {
				on = append(on, i)
				weights = append(weights, w+r.intn(3))
			}
		}
		if len(on) == 0 {
			continue
		}
		reserve := [2]int{poolReserveH100, poolReserveA100}[pi]
		shares := split(max(p.Cards()-reserve, len(on)), weights, 1)
		for k, i := range on {
			deserved := Cards(shares[k])
			limit := min(deserved+Cards(8*r.intn(4)), Cards(p.Cards()))
			ds[i].Queues = append(ds[i].Queues, Queue{Name: ds[i].Name + "-" + p.Class, Pool: p.Name,
				Deserved: deserved, Limit: limit, Weight: 1 + r.intn(3), CPU: -1, Memory: -1})
		}
	}
	first := len(t.Projects)
	for i := range ds {
		t.Departments = append(t.Departments, ds[i])
		t.Projects = append(t.Projects, projects(r, tmpls[i], &ds[i], take[tmpls[i].index], pools)...)
	}
	t.usage(r, t.Departments[len(t.Departments)-len(ds):], t.Projects[first:], ready)
}

// projects makes the first n projects of department d and splits each of
// d's queues between those that use its pool.
func projects(r *rng, tm *deptTemplate, d *Department, n int, pools [2]*Pool) []Project {
	ps := make([]Project, n)
	for i := range ps {
		pt := &tm.projects[i]
		ps[i] = Project{Name: suffix(pt.name, d.Cell), Parent: d.Name, Cell: d.Cell, Comment: pt.comment,
			Labelled: !pt.unlabelled, Interactive: pt.interactive}
	}
	for _, dq := range d.Queues {
		pi := 0
		if dq.Pool == pools[1].Name {
			pi = 1
		}
		var on, weights []int
		for i := range ps {
			if pt := &tm.projects[i]; pt.onPool(pi) {
				on = append(on, i)
				w := pt.weight
				if w > 0 {
					w += r.intn(3)
				}
				weights = append(weights, w)
			}
		}
		if len(on) == 0 || sum(weights) == 0 {
			continue
		}
		// Departments give all of their share to projects, but for the few
		// cards some keep as a buffer.
		assigned := max(dq.Deserved-Cards(tm.keep[pi]), 0)
		// Whole cards, at least one for every project that has a weight;
		// a project that shares cards (notebooks) gives half a card back,
		// which stays unassigned in the department.
		cards := split(int(assigned/2), weights, 1)
		for k, i := range on {
			pt := &tm.projects[i]
			deserved := Cards(cards[k])
			if pt.fractional && deserved > 0 {
				deserved--
			}
			q := Queue{Name: ps[i].Name + "-" + pools[pi].Class, Pool: dq.Pool, Deserved: deserved, Weight: 1,
				CPU: int64(deserved) * cpuPerHalf, Memory: int64(deserved) * memoryPerHalf}
			if pt.interactive {
				// Non-preemptible work runs only inside the guarantee.
				q.Priority, q.Limit = NonPreemptiblePriority, deserved
			} else {
				q.Priority = PreemptiblePriority
				q.Limit = min(deserved+Cards(4*r.intn(5)), dq.Limit)
				q.Weight = 1 + r.intn(2)
			}
			ps[i].Queues = append(ps[i].Queues, q)
		}
	}
	return ps
}

// usage fills the live usage of a cell's queues: interactive projects use
// part of their guarantee (all of it non-preemptible), batch projects use
// part of theirs and borrow idle cards while the pool's ready cards and
// their department's limit allow. Departments report their projects' sums.
func (t *Tenancy) usage(r *rng, ds []Department, ps []Project, free map[string]Half) {
	dept := map[string]*Queue{} // department/pool → its queue
	for i := range ds {
		for qi := range ds[i].Queues {
			dept[ds[i].Name+"/"+ds[i].Queues[qi].Pool] = &ds[i].Queues[qi]
		}
	}
	type borrower struct{ q, parent *Queue }
	var batch []borrower
	for i := range ps {
		for qi := range ps[i].Queues {
			q := &ps[i].Queues[qi]
			dq := dept[ps[i].Parent+"/"+q.Pool]
			// 50%, 75% or 100% of the guarantee, in whole half cards.
			q.Used = q.Deserved * Half(2+r.intn(3)) / 4
			if ps[i].Interactive {
				q.NonPreemptible = q.Used
			} else {
				batch = append(batch, borrower{q, dq})
			}
			free[q.Pool] -= q.Used
			dq.Used += q.Used
			dq.NonPreemptible += q.NonPreemptible
		}
	}
	for _, b := range batch {
		if extra := min(Half(r.intn(9)), b.q.Limit-b.q.Used, free[b.q.Pool], b.parent.Limit-b.parent.Used); extra > 0 {
			b.q.Used += extra
			free[b.q.Pool] -= extra
			b.parent.Used += extra
		}
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// split divides total into len(weights) parts proportional to the weights
// (the largest remainders get the rest); a part of positive weight is at
// least least when total allows it.
func split(total int, weights []int, least int) []int {
	out := make([]int, len(weights))
	positive := 0
	for _, w := range weights {
		if w > 0 {
			positive++
		}
	}
	if total < least*positive {
		least = 0
	}
	left, all := total-least*positive, sum(weights)
	given := 0
	rem := make([]int, len(weights))
	for i, w := range weights {
		if w > 0 {
			out[i] = least
		}
		out[i] += left * w / all
		rem[i] = left * w % all
		given += left * w / all
	}
	for ; given < left; given++ {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
	}
	return out
}

// rng is splitmix64: tiny, and its sequence never changes between Go
// releases, so the committed demo stays what the generator makes.
type rng struct{ s uint64 }

func newRNG(seed, stream uint64) *rng {
	r := &rng{s: seed*0x9e3779b97f4a7c15 + stream}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }
