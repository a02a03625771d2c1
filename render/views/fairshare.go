package views

import (
	"github.com/krmplan/krmplan/fairshare"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/quota"
)

// FairShareJSON is the document of `krmplan fairshare --format json`
// (docs/json-format.md): every queue of every node pool with its fair
// share, gpu in cards, cpu in millicores, memory in MB, as exact decimals.
type FairShareJSON struct {
	FormatVersion string `json:"format_version"`
	// Demand is "full" or "live".
	Demand string `json:"demand"`
	// Errors counts the error findings of the state: the preview divides
	// it as KAI would all the same.
	Errors int `json:"errors"`
	// QueuesWithoutAge counts the queues divided without a known creation
	// time (the snapshot read no live Queues, or the Queue has no
	// creationTimestamp): the leftover step breaks their ties by name.
	QueuesWithoutAge int `json:"queues_without_age"`
	// LeftOut says why each queue entry that is not divided is left out.
	LeftOut []string            `json:"left_out"`
	Pools   []JSONFairSharePool `json:"pools"`
}

// JSONFairSharePool is one node pool's division.
type JSONFairSharePool struct {
	NodePool string `json:"node_pool"`
	// Nodes counts the pool's nodes, Ready or not; null when the snapshot
	// did not read the nodes.
	Nodes *int `json:"nodes"`
	// Capacity is what KAI divides at the pool's top level; null for a
	// resource whose capacity is unknown, and CapacityUnknown says why.
	Capacity        JSONAmounts       `json:"capacity"`
	CapacityUnknown map[string]string `json:"capacity_unknown,omitempty"`
	// Oversubscribed is, per resource, how much the top-level guarantees
	// exceed the capacity (every queue still gets its deserved); omitted
	// when they fit.
	Oversubscribed map[string]quota.Value `json:"oversubscribed,omitempty"`
	Queues         []JSONFairShareQueue   `json:"queues"`
}

// JSONFairShareQueue is one queue's fair share.
type JSONFairShareQueue struct {
	Queue string `json:"queue"`
	// Kind is "Department" or "Project"; Owner the object's name.
	Kind  string `json:"kind"`
	Owner string `json:"owner"`
	// ParentQueue is the department's queue, "" at the pool's top level.
	ParentQueue string `json:"parent_queue"`
	// FairShare = Guaranteed + OverQuota; null where the capacity is
	// unknown.
	FairShare  JSONAmounts `json:"fair_share"`
	Guaranteed JSONAmounts `json:"guaranteed"`
	OverQuota  JSONAmounts `json:"over_quota"`
	// AgeTie lists the resources whose share could differ by one unit:
	// the leftover step broke a tie by name, the queues' ages unknown.
	AgeTie []string `json:"age_tie,omitempty"`
	// Float64 holds, per resource, where KAI's float64 arithmetic and
	// exact arithmetic part ways.
	Float64 map[string]JSONFloat `json:"float64,omitempty"`
	// Dropped says why KAI does not divide the queue (its shares are 0).
	Dropped string `json:"dropped,omitempty"`
	// NoDemand says why a queue demands 0 under live demand.
	NoDemand string `json:"no_demand,omitempty"`
}

// JSONAmounts is one number per resource; null is unknown.
type JSONAmounts struct {
	GPU    *quota.Value `json:"gpu"`
	CPU    *quota.Value `json:"cpu"`
	Memory *quota.Value `json:"memory"`
}

func (a *JSONAmounts) at(r quota.Resource) **quota.Value {
	switch r {
	case quota.GPU:
		return &a.GPU
	case quota.CPU:
		return &a.CPU
	}
	return &a.Memory
}

// JSONFloat is fairshare.Float: exact is what exact arithmetic gives where
// it differs from KAI's float64 result; order_dependent marks a result
// that KAI's own map order can change; rounded one with more than 18
// digits after the point.
type JSONFloat struct {
	Exact          *quota.Value `json:"exact,omitempty"`
	OrderDependent bool         `json:"order_dependent"`
	Rounded        bool         `json:"rounded"`
}

// NewFairShareJSON builds the document of a preview; errors is the count
// of the state's error findings.
func NewFairShareJSON(pv *preview.Preview, errors int) *FairShareJSON {
	out := &FairShareJSON{FormatVersion: JSONFormatVersion, Demand: string(pv.Demand), Errors: errors,
		QueuesWithoutAge: pv.Unaged, LeftOut: pv.LeftOut, Pools: fairSharePools(pv.Pools)}
	if out.LeftOut == nil {
		out.LeftOut = []string{}
	}
	return out
}

// fairSharePools is pools as the JSON documents write them.
func fairSharePools(pools []preview.Pool) []JSONFairSharePool {
	out := make([]JSONFairSharePool, 0, len(pools))
	for i := range pools {
		out = append(out, fairSharePool(&pools[i]))
	}
	return out
}

func fairSharePool(p *preview.Pool) JSONFairSharePool {
	out := JSONFairSharePool{NodePool: p.Name, Queues: make([]JSONFairShareQueue, 0, len(p.Queues))}
	if p.NodesRead {
		n := p.Nodes
		out.Nodes = &n
	}
	for _, r := range quota.Resources {
		*out.Capacity.at(r) = *p.Capacity.At(r)
		if why := *p.Unknown.At(r); why != "" {
			if out.CapacityUnknown == nil {
				out.CapacityUnknown = map[string]string{}
			}
			out.CapacityUnknown[string(r)] = why
		}
		if over := p.Oversubscribed(r); !over.IsZero() {
			if out.Oversubscribed == nil {
				out.Oversubscribed = map[string]quota.Value{}
			}
			out.Oversubscribed[string(r)] = over
		}
	}
	for i := range p.Queues {
		out.Queues = append(out.Queues, fairShareQueue(&p.Queues[i]))
	}
	return out
}

func fairShareQueue(q *preview.Queue) JSONFairShareQueue {
	out := JSONFairShareQueue{Queue: q.Name, Kind: q.Kind.String(), Owner: q.Owner, ParentQueue: q.Parent,
		Dropped: q.Share.Dropped, NoDemand: q.NoDemand}
	for _, r := range quota.Resources {
		s := q.Share.Share.At(r)
		if !s.Known {
			continue
		}
		fs, g, o := s.FairShare(), s.Guaranteed(), s.OverQuota()
		*out.FairShare.at(r), *out.Guaranteed.at(r), *out.OverQuota.at(r) = &fs, &g, &o
		if s.AgeTie {
			out.AgeTie = append(out.AgeTie, string(r))
		}
		if s.Float.Uncertain() {
			if out.Float64 == nil {
				out.Float64 = map[string]JSONFloat{}
			}
			out.Float64[string(r)] = jsonFloat(s.Float)
		}
	}
	return out
}

func jsonFloat(f fairshare.Float) JSONFloat {
	return JSONFloat{Exact: f.Exact, OrderDependent: f.OrderDependent, Rounded: f.Rounded}
}
