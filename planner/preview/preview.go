// Package preview is the fair-share preview: what every queue of every
// node pool gets when KAI Scheduler's proportion plugin divides the pool
// (package fairshare), worked out from a state. It builds fairshare's input
// from the tenancy and the cluster data, per node pool:
//
//   - the queue tree as KRM builds it: a department's queue on the pool is
//     a top-level queue; a project's queue on the pool is a child of its
//     department's queue on that pool, and a root queue beside the
//     departments when the project has no department (spec.parent "") or
//     its department has no queue on the pool (KRM sets the KAI Queue's
//     parentQueue only to a department queue of the same pool);
//   - each queue's KAI Queue name (the entry's name; an empty name is
//     KRM's derived one, <owner> on pool default and <owner>-<pool> on the
//     others), its quota and priority as KRM copies them;
//   - the queue's creation time from the live Queue of that name, where the
//     snapshot read the Queues (the leftover step's tie-break);
//   - the demand the preview assumes (Demand);
//   - the pool's capacity as KAI counts it (planner/capacity.Pools), each
//     resource unknown when the nodes were not read or give no figure.
//
// A state with errors is previewed all the same, as KAI would divide it:
// of two queues of one name the first is divided (KRM gives the Queue it
// makes second a random suffix, which the spec does not predict), a
// department's or project's second queue on one pool is left out (KRM's
// webhook refuses it), and a queue on a pool that does not exist is
// left out. It does no I/O; the time is linear in the state's queues.
package preview

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/fairshare"
	"github.com/krmplan/krmplan/internal/cores"
	"github.com/krmplan/krmplan/internal/words"
	poolcap "github.com/krmplan/krmplan/planner/capacity"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Demand is what the preview assumes each queue requests.
type Demand string

const (
	// Full: every leaf queue (a project's queue, a root project's) demands
	// without bound; a department's queue demands only through its
	// projects, so a department with no project queue on the pool demands
	// nothing (department queues run no workloads).
	Full Demand = "full"
	// Live: each leaf queue demands what its live Queue's status.requested
	// says (it includes the running pods), summed into its department's
	// queue as KAI sums requests; a department's own requested is not
	// added. A leaf without a live Queue, or whose Queue has no requested,
	// demands 0 (Queue.NoDemand says which).
	Live Demand = "live"
)

// ParseDemand reads a --demand value: "full" or "live".
func ParseDemand(s string) (Demand, error) {
	switch Demand(s) {
	case Full, Live:
		return Demand(s), nil
	}
	return "", fmt.Errorf("--demand %s: use full or live", s)
}

// Preview is the fair share of every queue of the pools previewed.
type Preview struct {
	Demand Demand
	// Pools are by name.
	Pools []Pool
	// AgesRead is whether the snapshot read the live Queues, which hold
	// the queues' creation times, and Unaged counts the queues divided
	// without a known age (no live Queue of the name, or one without a
	// creationTimestamp). The leftover step breaks a tie among those by
	// name (fairshare.Share.AgeTie marks the shares that could differ by
	// one unit for that reason).
	AgesRead bool
	Unaged   int
	// LeftOut says, for each queue entry that is not divided, why: a
	// second queue of an object on one pool, a name another queue has, a
	// pool that does not exist.
	LeftOut []string
}

// Pool is one node pool's division.
type Pool struct {
	Name string
	// NodesRead is whether the snapshot read the nodes; Nodes counts the
	// pool's nodes, Ready or not.
	NodesRead bool
	Nodes     int
	// Capacity is what KAI divides at the pool's top level: gpu in cards,
	// cpu in millicores, memory in MB; nil where unknown, and Unknown then
	// says why.
	Capacity fairshare.PerResource[*quota.Value]
	Unknown  fairshare.PerResource[string]
	// Queues are the pool's queues in tree order: the departments' queues
	// by name, each followed by its projects' queues by name, then the
	// root project queues by name.
	Queues []Queue
	// input is what was divided, for Explain; kept by Of, not by OfPlan
	// (a plan's preview explains nothing, and dropping it spares a copy of
	// every queue's quota per pool).
	input fairshare.Pool
	// whole counts, per resource, the top-level queues that deserve -1.
	whole fairshare.PerResource[int]
}

// Queue is one queue of a pool and its fair share.
type Queue struct {
	// Name is the KAI Queue's name.
	Name string
	// Kind is the owner's kind (KindDepartment or KindProject) and Owner
	// its name.
	Kind  tenancy.Kind
	Owner string
	// Parent is the parent queue's name, "" for a top-level queue (a
	// department's, or a root project's).
	Parent string
	// Aged is set when the live Queue's creationTimestamp is known.
	Aged bool
	// NoDemand says, for a leaf queue under live demand that demands 0 for
	// want of data, why ("no live Queue of this name"); "" otherwise.
	NoDemand string
	// Share is its fair share: per resource, and Dropped when KAI does not
	// divide it.
	Share fairshare.QueueShare
}

// Root reports whether q is a project's queue at the pool's top level.
func (q *Queue) Root() bool { return q.Kind == tenancy.KindProject && q.Parent == "" }

// Of previews the pools of s that only holds (every pool when only is
// nil) under demand d. It returns an error for --demand live on a snapshot
// that did not read the Queues (naming the reason), a value that is not a
// Kubernetes quantity in a Queue's requested, and fairshare.Divide's
// errors, naming the pool.
func Of(s *snapshot.State, d Demand, only map[string]bool) (*Preview, error) {
	return of(s, d, only, clusterOf(s, only, nil), true)
}

// cluster is what the preview reads of a state's cluster data: the pools'
// capacities (nil when the nodes were not read) and the live Queues by
// name (nil when not read). A plan's snapshot and target have the same
// cluster data, so their previews can share it.
type cluster struct {
	caps map[string]*poolcap.Pool
	live map[string]*snapshot.LiveQueue
}

// clusterOf reads s's cluster data for the pools in only (nil: every
// pool), with the figures of s's nodes that k has read (nil: none).
func clusterOf(s *snapshot.State, only map[string]bool, k *poolcap.Counter) *cluster {
	c := &cluster{caps: k.PoolsOf(s, only)}
	if s.Read(snapshot.SourceQueues) {
		c.live = make(map[string]*snapshot.LiveQueue, len(s.LiveQueues))
		for i := range s.LiveQueues {
			c.live[s.LiveQueues[i].Name] = &s.LiveQueues[i]
		}
	}
	return c
}

// of is Of on cluster data c, clusterOf(s, only) or what a state with the
// same cluster data gave; keep keeps each pool's input for Explain.
func of(s *snapshot.State, d Demand, only map[string]bool, c *cluster, keep bool) (*Preview, error) {
	if d == Live && !s.Read(snapshot.SourceQueues) {
		return nil, fmt.Errorf("--demand live needs each Queue's status.requested, and the snapshot did not read the Queues (%s); take the snapshot with the cluster's Queues, or preview --demand full",
			notReadReason(s, snapshot.SourceQueues))
	}
	if n := allocatedOnly(s.LiveQueues); d == Live && n > 0 {
		return nil, fmt.Errorf("--demand live needs each Queue's status.requested, and none of the snapshot's %s has one though %d have status.allocated (what is allocated was requested, so the snapshot lacks the field, not the demand); preview --demand full",
			words.Count(len(s.LiveQueues), "Queue"), n)
	}
	b := &builder{s: s, d: d, only: only, live: c.live, keep: keep, pools: map[string][]entry{}}
	b.collect()
	out := &Preview{Demand: d, AgesRead: s.Read(snapshot.SourceQueues), LeftOut: b.leftOut}
	pools, errs := b.divideAll(c.caps)
	for k, pool := range pools {
		if errs[k] != nil {
			return nil, errs[k] // the first pool's error, in order
		}
		for i := range pool.Queues {
			if !pool.Queues[i].Aged {
				out.Unaged++
			}
		}
		out.Pools = append(out.Pools, pool)
	}
	return out, nil
}

// notReadReason is why s did not read source what.
func notReadReason(s *snapshot.State, what string) string {
	for _, n := range s.NotRead {
		if n.What == what {
			return n.Reason
		}
	}
	return "not read"
}

// entry is one queue as the builder found it: small, since a pool's
// entries are appended one by one; its Queue is made after the division.
type entry struct {
	name, owner, parent string
	kind                tenancy.Kind
	tq                  *tenancy.Queue
	// aged and noDemand are Queue.Aged and Queue.NoDemand, set by queue.
	aged     bool
	noDemand string
}

// builder collects the queues of every pool of one state.
type builder struct {
	s    *snapshot.State
	d    Demand
	only map[string]bool
	live map[string]*snapshot.LiveQueue
	// keep keeps each pool's input; otherwise scratch is reused for it.
	keep      bool
	scratch   []fairshare.Queue
	pools     map[string][]entry
	poolNames []string
	leftOut   []string
}

// wanted reports whether pool is one to preview.
func (b *builder) wanted(pool string) bool { return b.only == nil || b.only[pool] }

// collect walks the departments, then the projects, once, placing each
// queue in its pool's tree by KRM's rule. A queue's name is claimed
// whichever pool it is on, so that only changes nothing about which of two
// queues of one name is divided.
func (b *builder) collect() {
	known := map[string]bool{"default": true}
	for i := range b.s.NodePools {
		name := b.s.NodePools[i].Metadata.Name
		if b.wanted(name) && !known[name] {
			b.poolNames = append(b.poolNames, name)
		}
		known[name] = true
	}
	queues := 0
	for i := range b.s.Departments {
		queues += len(b.s.Departments[i].Spec.Queues)
	}
	for i := range b.s.Projects {
		queues += len(b.s.Projects[i].Spec.Queues)
	}
	taken := make(map[string]owner, queues) // KAI Queue name → whose it is
	deptQueue := make(map[[2]string]string, len(b.s.Departments))
	var seen []string // the pools of the object's queues divided so far
	add := func(kind tenancy.Kind, name, dept string, qs []tenancy.Queue) {
		who := owner{kind, name}
		seen = seen[:0]
		for i := range qs {
			tq := &qs[i]
			pool, name := tq.NodePool, tenancy.QueueName(name, tq.Name, tq.NodePool)
			say := b.wanted(pool)
			_, dup := taken[name]
			switch {
			case !known[pool]:
				b.leftOutf(say, "%s: queue %s is on node pool %q, which does not exist", who, name, pool)
				continue
			case slices.Contains(seen, pool):
				b.leftOutf(say, "%s: queue %s is its second queue on node pool %s (KRM's webhook refuses it); the first is divided", who, name, pool)
				continue
			case dup:
				b.leftOutf(say, "%s: queue %s has the name of a queue of %s; KRM gives the Queue it makes second a random suffix, so only the first is divided", who, name, taken[name])
				continue
			}
			seen, taken[name] = append(seen, pool), who
			parent := ""
			if kind == tenancy.KindDepartment {
				deptQueue[[2]string{who.name, pool}] = name
			} else {
				parent = deptQueue[[2]string{dept, pool}]
			}
			if !say {
				continue
			}
			if _, ok := b.pools[pool]; !ok && pool == "default" && !slices.Contains(b.poolNames, pool) {
				b.poolNames = append(b.poolNames, pool)
			}
			b.pools[pool] = append(b.pools[pool], entry{name: name, kind: kind, owner: who.name, parent: parent, tq: tq})
		}
	}
	for i := range b.s.Departments {
		d := &b.s.Departments[i]
		add(tenancy.KindDepartment, d.Metadata.Name, "", d.Spec.Queues)
	}
	for i := range b.s.Projects {
		p := &b.s.Projects[i]
		add(tenancy.KindProject, p.Metadata.Name, p.Spec.Parent, p.Spec.Queues)
	}
	slices.Sort(b.poolNames)
}

// owner is the object a queue belongs to; it prints as "project llm".
type owner struct {
	kind tenancy.Kind
	name string
}

func (o owner) String() string { return strings.ToLower(o.kind.String()) + " " + o.name }

// divideAll divides every pool of b.poolNames, each pool's result and
// error at its index. The pools are cut into one run of consecutive pools
// per core (GOMAXPROCS), each divided by a copy of b with its own scratch:
// a pool's division reads the builder and writes only its own entries, so
// the results are those of dividing the pools one after the other.
func (b *builder) divideAll(caps map[string]*poolcap.Pool) ([]Pool, []error) {
	n := len(b.poolNames)
	pools, errs := make([]Pool, n), make([]error, n)
	w := max(1, min(runtime.GOMAXPROCS(0), n/minPoolsPerWorker))
	cores.Each(w, func(k int) {
		wb := *b
		wb.scratch = nil
		for i := k * n / w; i < (k+1)*n/w; i++ {
			pools[i], errs[i] = wb.pool(b.poolNames[i], caps)
		}
	})
	return pools, errs
}

// minPoolsPerWorker is the fewest pools worth a goroutine of their own.
const minPoolsPerWorker = 8

// leftOutf records a queue entry that is not divided, when say is set
// (a queue on a pool outside only is no news).
func (b *builder) leftOutf(say bool, format string, args ...any) {
	if say {
		b.leftOut = append(b.leftOut, fmt.Sprintf(format, args...))
	}
}

// allocatedOnly is how many live Queues carry a status.allocated when
// none carries a status.requested, else 0. KAI counts what is allocated
// among what is requested, so such Queues (hand-written cluster data, or a
// scheduler that does not write requested) say nothing of the demand;
// Queues without either are idle and demand 0.
func allocatedOnly(qs []snapshot.LiveQueue) int {
	n := 0
	for i := range qs {
		if qs[i].Requested != nil {
			return 0
		}
		if len(qs[i].Allocated) > 0 {
			n++
		}
	}
	return n
}
