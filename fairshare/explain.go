package fairshare

import (
	"fmt"
	"math"

	"github.com/krmplan/krmplan/quota"
)

// Explanation is how one queue got its fair share: for each resource, the
// division at every level from the top down to the queue (its
// department's queue first, when it has one, since a project divides its
// department's share).
type Explanation struct {
	Queue string
	// Dropped is the queue's QueueShare.Dropped: why KAI does not divide
	// it ("" when it does; Resources is then empty).
	Dropped   string
	Resources PerResource[Trace]
}

// Trace is one resource's division along a queue's path.
type Trace struct {
	// Known is false when the pool's capacity of the resource is unknown.
	Known bool
	// Steps holds one Step per level, the top level first and the queue
	// itself last.
	Steps []Step
}

// Step is one queue's part in one level's division, in KRM units (cards,
// millicores, MB), with KAI's float64 values written as exact decimals.
type Step struct {
	Queue  string
	Parent string // "" at the top level
	// Divided is what the level divides: the pool's capacity at the top,
	// else the parent's fair share.
	Divided  quota.Value
	Siblings int // queues dividing it, the queue included
	// Priority is the queue's band, BandSize how many siblings share it;
	// HigherBands counts the siblings in bands above it, which take the
	// surplus first.
	Priority, BandSize, HigherBands int
	// Deserved, Limit and OverQuotaWeight are the queue's as KAI reads
	// them (memory below -1 MB reads as -1); DeservedIsAll is set for a
	// deserved of -1, which takes Divided.
	Deserved, Limit, OverQuotaWeight quota.Value
	DeservedIsAll                    bool
	// Demand is the queue's request: its own demand plus its
	// descendants'.
	Demand Demand
	// Guaranteed is the deserved phase's grant, min(deserved, limit,
	// demand), never scaled down; GuaranteeCap names the bound that set
	// it: "deserved", "limit" or "demand".
	Guaranteed   quota.Value
	GuaranteeCap string
	// Surplus is what the deserved phase left for the over-quota phase (0
	// or less: none); BandSurplus what was left when the queue's band's
	// rounds began, after the higher bands.
	Surplus, BandSurplus quota.Value
	// Rounds are the over-quota rounds of its band that offered it a
	// share.
	Rounds []Round
	// Leftover is what the leftover step gave it (a unit, or the
	// fractional rest; 0 for none).
	Leftover quota.Value
	// Stop is why it got no more.
	Stop Stop
	// Share is its fair share, with its marks.
	Share Share
}

// Round is one over-quota round's offer to a queue
// (resource_division.divideUpToFairShare).
type Round struct {
	N int
	// Available is what its band divides in the round; Fraction is the
	// queue's share weight over the round's sum of share weights, so that
	// Offered = Available × Fraction, KAI's float64 share.
	Available quota.Value
	Fraction  float64
	Offered   quota.Value
	// Given is what it received: its remaining request when that fits in
	// the offer, else the offer's whole units; Remainder is the fraction
	// kept for the leftover step.
	Given, Remainder quota.Value
}

// Stop says why a queue's share ends where it does.
type Stop int

const (
	// StopDemand: it got all it requests.
	StopDemand Stop = iota + 1
	// StopLimit: it reached its limit.
	StopLimit
	// StopWeightZero: its overQuotaWeight is 0, so it never borrows.
	StopWeightZero
	// StopNoSurplus: the guarantees of the level used up all it divides.
	StopNoSurplus
	// StopHigherBands: the bands of higher priority took the surplus.
	StopHigherBands
	// StopWeights: its band's weights gave it no share (they sum to 0,
	// or its usage cancels its weight).
	StopWeights
	// StopSurplusUsed: its band's rounds shared out the surplus in whole
	// units and the leftover step gave out the rest.
	StopSurplusUsed
)

func (s Stop) String() string {
	switch s {
	case StopDemand:
		return "its demand is met"
	case StopLimit:
		return "it reached its limit"
	case StopWeightZero:
		return "overQuotaWeight 0: it never borrows"
	case StopNoSurplus:
		return "the guarantees used up everything divided at its level"
	case StopHigherBands:
		return "higher-priority queues took the surplus"
	case StopWeights:
		return "its band's weights gave it no share"
	case StopSurplusUsed:
		return "the surplus was shared out by weight"
	}
	return "?"
}

// Explain divides p as Divide does and traces how the queue named name got
// its share of each resource. It returns Divide's errors, and an error for
// a name that is not in the pool.
func Explain(p Pool, name string) (Explanation, error) {
	tr := &tracer{name: name}
	if _, err := divide(&p, tr); err != nil {
		return Explanation{}, err
	}
	if !tr.found {
		return Explanation{}, fmt.Errorf("no queue %q in the pool", name)
	}
	out := Explanation{Queue: name, Dropped: tr.dropped}
	for r := range 3 {
		*out.Resources.at(r) = tr.traces[r]
	}
	return out, nil
}

// tracer records the steps of the queues on an explained queue's path.
type tracer struct {
	name    string
	found   bool
	dropped string
	path    []int32
	steps   [3][]Step
	traces  [3]Trace
}

// begin finds the queue and its path once the tree is built.
func (t *tracer) begin(d *divider) {
	if t == nil {
		return
	}
	i, ok := d.index[t.name]
	if t.found = ok; !ok {
		return
	}
	if t.dropped = d.nodes[i].dropped; t.dropped != "" {
		return
	}
	for ; i >= 0; i = d.nodes[i].parent {
		t.path = append([]int32{i}, t.path...)
	}
	for r := range 3 {
		t.steps[r] = make([]Step, len(t.path))
	}
}

// finish completes resource r's trace once it is divided and collected.
func (t *tracer) finish(d *divider, r int, res *Result) {
	if t == nil || t.dropped != "" || !t.found {
		return
	}
	tr := &t.traces[r]
	if tr.Known = d.known[r]; !tr.Known {
		return
	}
	tr.Steps = t.steps[r]
	for j, i := range t.path {
		s := &tr.Steps[j]
		q := &d.st[i]
		s.Leftover = t.value(r, q.left)
		s.Share = *res.Queues[i].Share.at(r)
		s.Stop = t.stop(q, s)
	}
}

// step returns the Step of queue i in resource r, nil when i is not on the
// path or t is nil (no explanation is being made).
func (t *tracer) step(r int, i int32) *Step {
	if t == nil {
		return nil
	}
	for j, p := range t.path {
		if p == i {
			return &t.steps[r][j]
		}
	}
	return nil
}

func (t *tracer) value(r int, f float64) quota.Value {
	v, _ := krm(int8(r), f)
	return v
}

// quotaValue is value for a deserved or limit, where -1 is unlimited in
// every unit.
func (t *tracer) quotaValue(r int, f float64) quota.Value {
	if f == unlimited {
		return quota.Unlimited
	}
	return t.value(r, f)
}

func (t *tracer) afterDeserved(l *level, rem float64) {
	if t == nil {
		return
	}
	for _, i := range l.all {
		s := t.step(l.r, i)
		if s == nil {
			continue
		}
		d, q, n := l.d, &l.st[i], &l.d.nodes[i]
		rq := d.pool.Queues[i].Quota.at(l.r)
		s.Queue, s.Siblings, s.Priority = n.name, len(l.all), n.prio
		if n.parent >= 0 {
			s.Parent = d.nodes[n.parent].name
		}
		s.Divided, s.Surplus = t.value(l.r, l.total), t.value(l.r, math.Max(rem, 0))
		s.Deserved, s.Limit, s.OverQuotaWeight = t.quotaValue(l.r, q.dsv), t.quotaValue(l.r, q.lim), rq.OverQuotaWeight
		s.DeservedIsAll = q.dsv == unlimited
		if s.DeservedIsAll {
			s.Deserved = s.Divided
		}
		s.Demand = Demand{Unbounded: math.IsInf(q.req, 1), Amount: t.value(l.r, q.req)}
		if s.Demand.Unbounded {
			s.Demand.Amount = quota.Zero
		}
		s.Guaranteed = t.value(l.r, q.guar)
		eff := q.dsv
		if s.DeservedIsAll {
			eff = l.total
		}
		switch {
		case q.guar == eff:
			s.GuaranteeCap = "deserved"
		case q.lim != unlimited && q.guar == q.lim && q.lim <= q.req:
			s.GuaranteeCap = "limit"
		default:
			s.GuaranteeCap = "demand"
		}
		for _, j := range l.all {
			if d.nodes[j].prio > n.prio {
				s.HigherBands++
			} else if d.nodes[j].prio == n.prio {
				s.BandSize++
			}
		}
	}
}

func (t *tracer) bandStart(l *level, band []int32, total float64) {
	for _, i := range band {
		if s := t.step(l.r, i); s != nil {
			s.BandSurplus = t.value(l.r, total)
		}
	}
}

func (t *tracer) roundShare(l *level, i int32, round int32, A, frac, s, give float64) {
	st := t.step(l.r, i)
	if st == nil {
		return
	}
	q := &l.st[i]
	rem := 0.0
	if q.remRound == round {
		rem = q.rem
	}
	st.Rounds = append(st.Rounds, Round{N: int(round), Available: t.value(l.r, A), Fraction: frac,
		Offered: t.value(l.r, s), Given: t.value(l.r, give), Remainder: t.value(l.r, rem)})
}

// stop says why q's share ends where it does (s holds its level's trace).
func (t *tracer) stop(q *qs, s *Step) Stop {
	offered := false
	for _, r := range s.Rounds {
		offered = offered || r.Fraction > 0
	}
	switch {
	case q.req <= q.fs:
		return StopDemand
	case q.lim != unlimited && q.lim <= q.fs:
		return StopLimit
	case q.oqw == 0:
		return StopWeightZero
	case s.Surplus.Cmp(quota.Zero) <= 0:
		return StopNoSurplus
	case s.BandSurplus.Cmp(quota.Zero) <= 0:
		return StopHigherBands
	case !offered:
		return StopWeights
	}
	return StopSurplusUsed
}
