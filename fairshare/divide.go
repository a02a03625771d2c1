package fairshare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/krmplan/krmplan/quota"
)

// divider holds one pool's division. Dividers are pooled: their buffers
// serve one division after another.
type divider struct {
	pool  *Pool
	k     float64
	nodes []node
	index map[string]int32
	kids  []int32
	top   []int32
	order []int32  // divided queues, parents before children
	in    [3][]qin // every resource's inputs
	st    []qs     // the resource being divided
	known [3]bool
	cap   [3]float64
	capEx [3]bool                  // cap is the capacity exactly
	exact [3]map[int32]*exactShare // exact results that differ from KAI's
	tr    *tracer
	// buffers
	countBuf []int32
	bandBuf  [][]int32
	boundBuf []int
	entBuf   []int32
	hist     []histEntry
	wHist    []float64
	roundBuf []roundRec
	permBuf  []int32
	saveBuf  []qs
}

// Divide computes every queue's fair share in p as KAI Scheduler's
// proportion plugin does (proportion.setFairShare): the top-level queues
// divide the pool's capacity, then each queue's children divide its fair
// share, each resource on its own (resource_division.SetResourcesShare).
// See the package documentation for the rules and the arithmetic.
//
// It returns an error for a queue without a name, two queues with one
// name, a kValue or usage that is not a finite number, and a share beyond
// what a quota number holds (10^18 in KRM units, which only negative
// deserved values far beyond any cluster can produce).
func Divide(p Pool) (Result, error) {
	return divide(&p, nil)
}

var dividers = sync.Pool{New: func() any { return new(divider) }}

// divide runs a division with a pooled divider, tracing it into tr when
// tr is not nil.
func divide(p *Pool, tr *tracer) (Result, error) {
	d := dividers.Get().(*divider)
	defer func() {
		d.pool, d.tr = nil, nil
		dividers.Put(d)
	}()
	if err := d.init(p, tr); err != nil {
		return Result{}, err
	}
	res := Result{Queues: make([]QueueShare, len(d.nodes))}
	if err := d.run(&res); err != nil {
		return Result{}, err
	}
	return res, nil
}

// init prepares d for dividing p.
func (d *divider) init(p *Pool, tr *tracer) error {
	d.pool, d.tr, d.k = p, tr, 1
	if p.KValue != nil {
		if isBad(*p.KValue) {
			return fmt.Errorf("kValue %v is not a finite number", *p.KValue)
		}
		// proportion.New: "kValue must be > 0.0 ... Setting as 0".
		d.k = max(*p.KValue, 0)
	}
	for r := range 3 {
		d.known[r], d.exact[r] = false, nil
		if c := *p.Capacity.at(r); c != nil {
			d.known[r] = true
			d.cap[r], d.capEx[r] = c.Binary64(-shifts[r])
		}
	}
	if err := d.buildTree(); err != nil {
		return err
	}
	d.tr.begin(d)
	return nil
}

// qin is one queue's inputs for one resource, in KAI's internal units.
type qin struct {
	dsv, lim, oqw, use, req float64
	exIn, reqEx             bool
}

// convert reads every divided queue's inputs, all three resources in one
// pass over the queues, into KAI's internal units as
// proportion.createQueueResourceAttrs does, and sums each queue's request
// into its ancestors (updateQueuesResourceUsageForPendingJob).
func (d *divider) convert() error {
	for r := range 3 {
		d.in[r] = grow(d.in[r], len(d.nodes))
	}
	for j := range d.pool.Queues {
		q := &d.pool.Queues[j]
		if u := q.Usage; isBad(u.GPU) || isBad(u.CPU) || isBad(u.Memory) {
			for r := range 3 {
				if u := *q.Usage.at(r); isBad(u) {
					return fmt.Errorf("queue %q: %s usage %v is not a finite number", q.Name, quota.Resources[r], u)
				}
			}
		}
	}
	// In the queues' order, which the memory prefetches, and by field,
	// not PerResource.at: this loop reads every input.
	for j := range d.pool.Queues {
		if d.nodes[j].dropped != "" {
			continue
		}
		q, i := &d.pool.Queues[j], int32(j)
		d.convertOne(0, &q.Quota.GPU, &q.Demand.GPU, q.Usage.GPU, i)
		d.convertOne(1, &q.Quota.CPU, &q.Demand.CPU, q.Usage.CPU, i)
		d.convertOne(2, &q.Quota.Memory, &q.Demand.Memory, q.Usage.Memory, i)
	}
	// Children after parents in d.order: add each request to its parent
	// from the bottom up.
	for r := range 3 {
		in := d.in[r]
		for j := len(d.order) - 1; j >= 0; j-- {
			i := d.order[j]
			if p := d.nodes[i].parent; p >= 0 {
				var c check
				in[p].req = c.add(in[p].req, in[i].req)
				in[p].reqEx = in[p].reqEx && in[i].reqEx && !c.inexact
			}
		}
	}
	return nil
}

// convertOne converts queue i's inputs of resource r.
func (d *divider) convertOne(r int, rq *Quota, dm *Demand, use float64, i int32) {
	if !d.known[r] {
		return
	}
	s := &d.in[r][i]
	var e1, e2, e3 bool
	s.dsv, e1 = kaiQuota(r, rq.Deserved)
	s.lim, e2 = kaiQuota(r, rq.Limit)
	s.oqw, e3 = rq.OverQuotaWeight.Binary64(0)
	s.use, s.exIn = use, e1 && e2 && e3
	if dm.Unbounded {
		s.req, s.reqEx = math.Inf(1), true
	} else {
		s.req, s.reqEx = dm.Amount.Binary64(-shifts[r])
	}
}

// load sets up the division of resource r from the converted inputs.
func (d *divider) load(r int) {
	d.st = grow(d.st, len(d.nodes))
	for _, i := range d.order {
		s, in := &d.st[i], &d.in[r][i]
		s.dsv, s.lim, s.oqw, s.use, s.req = in.dsv, in.lim, in.oqw, in.use, in.req
		s.exIn, s.reqEx = in.exIn && in.reqEx, in.reqEx
	}
}

// kaiQuota reads a deserved or limit value as KAI does: gpu and cpu as
// they are, memory as max(-1, MB × 10^6) bytes, in float64
// (proportion.createQueueResourceAttrs). exact reports whether that is
// the exact value.
func kaiQuota(r int, v quota.Value) (f float64, exact bool) {
	f, exact = v.Binary64(0)
	if r == 2 {
		m := f * 1e6
		if exact && (f != math.Trunc(f) || math.Abs(f) >= 1<<53/1e6) {
			exact = math.FMA(f, 1e6, -m) == 0
		}
		f = math.Max(unlimited, m)
	}
	return f, exact
}

// run divides every known resource level by level, writing the shares
// into res.
func (d *divider) run(res *Result) error {
	for i := range d.nodes {
		res.Queues[i].Name, res.Queues[i].Dropped = d.nodes[i].name, d.nodes[i].dropped
	}
	if err := d.convert(); err != nil {
		return err
	}
	for r := range 3 {
		if d.known[r] {
			d.load(r)
			if err := d.divideLevel(r, d.cap[r], d.top, -1); err != nil {
				return err
			}
			for _, i := range d.order {
				n := &d.nodes[i]
				if n.kidHi > n.kidLo {
					if err := d.divideLevel(r, d.st[i].fs, d.kids[n.kidLo:n.kidHi], i); err != nil {
						return err
					}
				}
			}
		}
		if err := d.collect(r, res); err != nil {
			return err
		}
		d.tr.finish(d, r, res)
	}
	return nil
}

// divideLevel divides total between the siblings sibs (children of
// parent, -1 at the top), then checks KAI's float64 result against exact
// arithmetic and against other visiting orders where the level calls for
// it, and passes the parent's marks down.
func (d *divider) divideLevel(r int, total float64, sibs []int32, parent int32) error {
	if len(sibs) == 0 {
		return nil
	}
	var px *exactShare
	if parent >= 0 {
		px = d.exact[r][parent]
	}
	// A total that is not exactly its decimal (a parent's share that
	// differs from the exact one, a capacity float64 cannot hold) makes
	// the whole level inexact.
	c := check{inexact: px != nil || (parent < 0 && !d.capEx[r])}
	l := level{d: d, r: r, st: d.st, total: total, all: sibs, band: sibs, c: &c, tr: d.tr}
	l.run()
	if c.inexact || c.diverged || c.undecided || px != nil {
		if err := d.compareExact(r, total, sibs, px); err != nil {
			return err
		}
	}
	if c.flip {
		d.markFlip(r, sibs)
	}
	if c.flip || c.inexact || len(c.alts) > 0 {
		d.compareOrders(r, total, sibs, c.alts, c.flip || c.inexact)
	}
	if parent >= 0 {
		p := &d.st[parent]
		for _, i := range sibs {
			q := &d.st[i]
			q.ageTie = q.ageTie || p.ageTie
			q.orderDep = q.orderDep || p.orderDep
		}
	}
	return nil
}

// markFlip marks OrderDependent every sibling that takes part in the
// over-quota phase (it got some, or it wants more and has a weight): a
// comparison KAI's order can turn moves a unit, or a sliver, between them.
func (d *divider) markFlip(r int, sibs []int32) {
	for _, i := range sibs {
		q := &d.st[i]
		if q.fs != q.guar || (!q.satisfied() && q.oqw != 0) {
			q.orderDep = true
		}
	}
}

// sortEntries orders a band's remainder entries as KAI's leftover step
// pops them (remainingRequestedOrderFn): largest remainder first, then the
// oldest queue, then the name. A queue of unknown age sorts after those
// with one.
func (d *divider) sortEntries(st []qs, ents []int32) {
	slices.SortFunc(ents, func(a, b int32) int {
		if c := cmp.Compare(st[b].rem, st[a].rem); c != 0 {
			return c
		}
		return d.byAge(a, b)
	})
}

// byAge is the leftover order of two entries with equal remainders: the
// older queue first, a queue of unknown age after those with one, then the
// name (remainingRequestedOrderFn).
func (d *divider) byAge(a, b int32) int {
	na, nb := &d.nodes[a], &d.nodes[b]
	if na.known != nb.known {
		if na.known {
			return -1
		}
		return 1
	}
	if c := na.created.Compare(nb.created); c != 0 {
		return c
	}
	return strings.Compare(na.name, nb.name)
}

// ageTies marks AgeTie on the entries (sorted, each given its amount in
// left) of every run of equal remainders that KAI orders by creation
// time where some are unknown, and whose amount could change with the
// unknown ages: an entry of known age keeps its place among the known
// ones, one of unknown age could be anywhere in the run.
func (d *divider) ageTies(st []qs, ents []int32) {
	for lo := 0; lo < len(ents); {
		hi, unknown := lo+1, 0
		for hi < len(ents) && st[ents[hi]].rem == st[ents[lo]].rem {
			hi++
		}
		for _, i := range ents[lo:hi] {
			if !d.nodes[i].known {
				unknown++
			}
		}
		if unknown > 0 && st[ents[lo]].left != st[ents[hi-1]].left {
			for p := lo; p < hi; p++ {
				from, to := lo, hi-1
				if d.nodes[ents[p]].known {
					from, to = p, min(p+unknown, hi-1)
				}
				if st[ents[from]].left != st[ents[to]].left {
					st[ents[p]].ageTie = true
				}
			}
		}
		lo = hi
	}
}

// maxShare is 10^18, beyond what a quota number holds.
const maxShare = 1e18

// collect writes resource r's shares into res: KAI's values and the
// marks. A share of 10^18 or more in KRM units is an error.
func (d *divider) collect(r int, res *Result) error {
	scale := math.Pow10(int(shifts[r]))
	for i := range d.nodes {
		var s *Share
		switch sh := &res.Queues[i].Share; r { // not the generic at: once per share
		case 0:
			s = &sh.GPU
		case 1:
			s = &sh.CPU
		default:
			s = &sh.Memory
		}
		s.res = int8(r)
		if !d.known[r] {
			continue
		}
		s.Known = true
		if d.nodes[i].dropped != "" {
			continue
		}
		q := &d.st[i]
		s.fair, s.guaranteed, s.AgeTie = q.fs, q.guar, q.ageTie
		s.Float.OrderDependent = q.orderDep
		if x := d.exact[r][int32(i)]; x != nil {
			s.Float.Exact = x.shown
		}
		if f := math.Abs(q.fs) * scale; f >= maxShare || f != f {
			return fmt.Errorf("queue %q: its %s fair share is %s, beyond 10^18: KAI divides more than any cluster holds here (negative deserved values?)",
				d.nodes[i].name, quota.Resources[r], strconv.FormatFloat(f, 'g', -1, 64))
		}
		if q.fs != math.Trunc(q.fs) {
			_, s.Float.Rounded = krm(int8(r), q.fs)
		}
	}
	return nil
}
