// Package capacity is pool capacity from a snapshot's nodes, as KAI's
// scheduler counts it: the one place that assigns nodes to pools and counts
// their cards, for the checks, the pool bars and the fair-share preview.
// The card rule itself (nvidia.com/gpu + amd.com/gpu + N per MIG instance)
// and which nodes count are fairshare's (Resources, Node.Counts).
package capacity

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/krmplan/krmplan/fairshare"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Pool is one node pool's capacity, from the nodes that carry its
// label pair (pool "default": the nodes no other pool selects).
type Pool struct {
	// Nodes are the pool's nodes, by name.
	Nodes []*snapshot.Node
	// Cards is the gpu cards of all its nodes, Ready or not: each node's
	// capacity, or its allocatable where that is more (a device plugin
	// that reports no capacity), counted as KAI counts cards.
	Cards quota.Value
	// Divided is what KAI's proportion plugin divides at the pool's top
	// level (fairshare.Capacity): the allocatable of the nodes that count
	// (Ready, not cordoned, no pressure condition), gpu in cards, cpu in
	// millicores, memory in MB. CPU or Memory is nil (unknown) when a
	// counted node has no figure for it, e.g. a node given with its cards
	// only (gpuAllocatable).
	Divided fairshare.PerResource[*quota.Value]
	// Unsettled describes each node whose cards are not all in Divided
	// ("node gpu-2 is not Ready (8 cards)").
	Unsettled []string
}

// Schedulable is the pool's cards KAI's scheduler can place on right now:
// Divided's gpu.
func (pc *Pool) Schedulable() quota.Value { return *pc.Divided.GPU }

// Pools returns the capacity of every node pool of s by name, and
// of pool "default" (which always exists); nil when the nodes were not
// read. A pool named twice selects with its last entry; every entry's
// label pair takes its nodes out of pool default. It is linear in the
// nodes times their labels.
func Pools(s *snapshot.State) map[string]*Pool { return PoolsOf(s, nil) }

// PoolsOf is Pools with only the pools in only counted
// (nil counts every pool): the others have their Nodes and no figures
// (Divided nil, Cards 0), which must not be read.
// Counting reads every node's quantities, the costly part; finding each
// pool's nodes is one pass over the nodes' labels.
func PoolsOf(s *snapshot.State, only map[string]bool) map[string]*Pool {
	return (*Counter)(nil).PoolsOf(s, only)
}

// Counter counts the pools of the states that one plan checks (the
// snapshot, the target, the part of the state each step is checked on):
// their nodes are the snapshot's, or some of them, so each node's figures
// are read once, when the Counter is made, rather than in every state. A
// nil Counter reads every node it counts. It is read-only once made, so
// the checks of two states may use one at the same time.
type Counter struct {
	// byName is each node's figures by node name: a state's nodes are told
	// apart by name (a Counter keeps none when two nodes share one).
	byName map[string]*figures
	// nodes are the nodes of the state the Counter was made from; last is
	// the capacities of the last state counted with exactly those nodes
	// (the snapshot, the target) and the node pools they were counted for:
	// a state with the same pools has the same capacities.
	nodes []snapshot.Node
	mu    sync.Mutex
	last  *whole
}

// whole is the capacities of a state with a Counter's nodes, and the node
// pools (name and label pair, in order) they were counted for.
type whole struct {
	pools []poolKey
	caps  map[string]*Pool
}

type poolKey struct{ name, key, value string }

// NewCounter reads the figures of every node of s, for the states made
// from s (their nodes are s's, copied or not). Without the nodes read it
// reads none.
func NewCounter(s *snapshot.State) *Counter {
	k := &Counter{nodes: s.Nodes}
	if !s.Read(snapshot.SourceNodes) {
		return k
	}
	figs := readAll(s.Nodes)
	byName := make(map[string]*figures, len(s.Nodes))
	for i := range s.Nodes {
		if _, dup := byName[s.Nodes[i].Name]; dup {
			return k
		}
		byName[s.Nodes[i].Name] = &figs[i]
	}
	k.byName = byName
	return k
}

// readAll reads the figures of every node, the nodes cut into one run of
// consecutive nodes per core (GOMAXPROCS): each node's figures are its
// own, so the result is the same as read in order.
func readAll(nodes []snapshot.Node) []figures {
	figs := make([]figures, len(nodes))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(nodes)/minNodesPerWorker))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(nodes)/workers, (w+1)*len(nodes)/workers
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				figs[i] = read(&nodes[i])
			}
		})
	}
	wg.Wait()
	return figs
}

// minNodesPerWorker is the fewest nodes worth a goroutine of their own.
const minNodesPerWorker = 256

// PoolsOf is the package's PoolsOf with each node's figures read once (s's
// nodes must be those of the state the Counter was made from, or some of
// them).
//
// A state with the Counter's nodes themselves (the same slice) and the
// same node pools as the last one is given the same map: the checks of a
// plan's snapshot and target, the pool bars and the fair share count them
// once. The map is read-only.
func (k *Counter) PoolsOf(s *snapshot.State, only map[string]bool) map[string]*Pool {
	if !s.Read(snapshot.SourceNodes) {
		return nil
	}
	if k == nil || len(s.Nodes) == 0 || len(s.Nodes) != len(k.nodes) || &s.Nodes[0] != &k.nodes[0] {
		return k.poolsOf(s, only)
	}
	keys := make([]poolKey, len(s.NodePools))
	for i := range s.NodePools {
		np := &s.NodePools[i]
		keys[i] = poolKey{np.Metadata.Name, np.Spec.LabelKey, np.Spec.LabelValue}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.last == nil || !slices.Equal(k.last.pools, keys) {
		k.last = &whole{keys, k.poolsOf(s, nil)} // every pool: it serves any only
	}
	return k.last.caps
}

// poolsOf is PoolsOf without the last state's capacities.
func (k *Counter) poolsOf(s *snapshot.State, only map[string]bool) map[string]*Pool {
	type pair struct{ key, value string }
	last := map[string]*tenancy.NodePool{}
	taken := map[pair]bool{}
	for i := range s.NodePools {
		np := &s.NodePools[i]
		last[np.Metadata.Name] = np
		if np.Spec.LabelKey != "" && np.Metadata.Name != "default" {
			taken[pair{np.Spec.LabelKey, np.Spec.LabelValue}] = true
		}
	}
	out := map[string]*Pool{"default": {}}
	selecting := map[pair][]*Pool{}
	for name, np := range last {
		if name == "default" {
			continue
		}
		pc := &Pool{}
		out[name] = pc
		if np.Spec.LabelKey != "" {
			k := pair{np.Spec.LabelKey, np.Spec.LabelValue}
			selecting[k] = append(selecting[k], pc)
		}
	}
	nodes := make([]*snapshot.Node, len(s.Nodes))
	for i := range s.Nodes {
		nodes[i] = &s.Nodes[i]
	}
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	for _, n := range nodes {
		inDefault := true
		for k, v := range n.Labels {
			if taken[pair{k, v}] {
				inDefault = false
			}
			for _, pc := range selecting[pair{k, v}] {
				pc.Nodes = append(pc.Nodes, n)
			}
		}
		if inDefault {
			out["default"].Nodes = append(out["default"].Nodes, n)
		}
	}
	for name, pc := range out {
		if only == nil || only[name] {
			pc.count(k)
		}
	}
	return out
}

// count fills Cards, Divided and Unsettled from Nodes, with the figures
// k has read.
func (pc *Pool) count(k *Counter) {
	counted := make([]fairshare.PerResource[*quota.Value], 0, len(pc.Nodes))
	for _, n := range pc.Nodes {
		f := k.figures(n)
		if f.err != nil {
			// Decoding refuses such a quantity; a state made otherwise
			// still gets its node named rather than silently counted.
			pc.Unsettled = append(pc.Unsettled, fmt.Sprintf("node %s is not counted: %v", n.Name, f.err))
			continue
		}
		pc.Cards = pc.Cards.Add(f.cards.cards)
		if f.unsettled != "" {
			pc.Unsettled = append(pc.Unsettled, f.unsettled)
		}
		if f.counts {
			counted = append(counted, f.alloc)
		}
	}
	pc.Divided = fairshare.Sum(counted)
}

// figures is what a pool's count reads of one node: its cards, the
// Resources of its allocatable and whether KAI counts them
// (fairshare.Node.Counts), why some cards are not schedulable, or the
// error of a quantity that does not parse.
type figures struct {
	cards     nodeCards
	alloc     fairshare.PerResource[*quota.Value]
	counts    bool
	unsettled string
	err       error
}

// read reads n's figures.
func read(n *snapshot.Node) figures {
	kn := kaiNode(n)
	c, alloc, err := readNode(n, &kn)
	if err != nil {
		return figures{err: err}
	}
	return figures{cards: c, alloc: alloc, counts: kn.Counts(), unsettled: c.unsettled(n)}
}

// figures is n's figures: those k read, else read now.
func (k *Counter) figures(n *snapshot.Node) figures {
	if k != nil {
		if f, ok := k.byName[n.Name]; ok {
			return *f
		}
	}
	return read(n)
}

// kaiNode is n as fairshare counts it: its allocatable list, or its
// nvidia.com/gpu cards alone when it has none (cpu and memory unknown).
func kaiNode(n *snapshot.Node) fairshare.Node {
	cond := map[string]string{"Ready": "False"}
	if n.Ready {
		cond["Ready"] = "True"
	}
	for t, s := range n.Pressure {
		cond[t] = s
	}
	return fairshare.Node{Name: n.Name, Unschedulable: n.Cordoned, Conditions: cond, Allocatable: listOr(n.Allocatable, n.GPUAllocatable)}
}

// listOr is l as text, or a list of cards nvidia.com/gpu when l is nil.
func listOr(l snapshot.ResourceList, cards quota.Value) map[string]string {
	if l != nil {
		out := make(map[string]string, len(l))
		for k, v := range l {
			out[k] = string(v)
		}
		return out
	}
	return map[string]string{"nvidia.com/gpu": cards.String()}
}

// nodeCards is one node's cards: in its capacity and in its allocatable.
type nodeCards struct {
	capacity, allocatable, cards quota.Value
}

// readNode counts n's cards (kn is kaiNode(n)), and returns the Resources
// of its allocatable.
func readNode(n *snapshot.Node, kn *fairshare.Node) (nodeCards, fairshare.PerResource[*quota.Value], error) {
	alloc, err := fairshare.Resources(kn.Allocatable)
	if err != nil {
		return nodeCards{}, alloc, fmt.Errorf("allocatable %v", err)
	}
	capa, err := fairshare.Resources(listOr(n.Capacity, n.GPUCapacity))
	if err != nil {
		return nodeCards{}, alloc, fmt.Errorf("capacity %v", err)
	}
	c := nodeCards{capacity: *capa.GPU, allocatable: *alloc.GPU, cards: *capa.GPU}
	if c.allocatable.Cmp(c.capacity) > 0 {
		c.cards = c.allocatable
	}
	return c, alloc, nil
}

// unsettled describes why some of a node's cards are not schedulable right
// now (the node is not Ready, cordoned or under pressure, which is when
// KAI does not count it; or some cards are not allocatable), or returns ""
// when all are (or the node has none).
func (c nodeCards) unsettled(n *snapshot.Node) string {
	if c.cards.IsZero() {
		return ""
	}
	cards := quota.Amount(quota.GPU, c.allocatable)
	short := c.allocatable.Cmp(c.capacity) < 0
	if short {
		cards = fmt.Sprintf("%s of its %s allocatable", c.allocatable, quota.Amount(quota.GPU, c.capacity))
	}
	var state []string
	if !n.Ready {
		state = append(state, "not Ready")
	}
	if n.Cordoned {
		state = append(state, "cordoned")
	}
	for _, t := range snapshot.PressureConditions {
		if s, ok := n.Pressure[t]; ok {
			state = append(state, pressureText(t, s))
		}
	}
	switch {
	case len(state) > 0:
		return fmt.Sprintf("node %s is %s (%s)", n.Name, strings.Join(state, " and "), cards)
	case short:
		return fmt.Sprintf("node %s has %s", n.Name, cards)
	}
	return ""
}

// pressureText says a pressure condition as a person does: "under
// DiskPressure", "NetworkUnavailable", or "MemoryPressure=Unknown".
func pressureText(t, status string) string {
	switch {
	case status != "True":
		return t + "=" + status
	case t == "NetworkUnavailable":
		return t
	}
	return "under " + t
}
