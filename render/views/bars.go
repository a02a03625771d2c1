package views

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	poolcap "github.com/krmplan/krmplan/planner/capacity"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// barCells is the number of cells of a pool bar on a page cols wide: 36
// less, so that a pool's bar line with its indent and the summary after
// it ("68 of 64 cards, 4 over") fits (44 cells in 80 columns), at least 20
// and at most 100. A longer summary drops the blank cells after the bar,
// or goes on the next line (writeBarLine).
func barCells(cols int) int { return max(20, min(cols-36, 100)) }

// Cell characters of a bar, readable without colour: '=' a guaranteed
// share, '|' the border between two shares, '.' cards of the pool (or of
// the department) that nobody is guaranteed, '!' a guarantee beyond the
// pool's cards (or the department's share). The closing ']' stands at the
// pool's edge, so an overflow spills out past it.
const (
	cellFill = '='
	cellSep  = '|'
	cellFree = '.'
	cellOver = '!'
)

// barsLegend is the first line of the bars section.
const barsLegend = "Guaranteed GPU cards per node pool (] is where the cards end, ! is beyond):"

// rootNote explains the * of a root project queue under a pool's bars.
const rootNote = "* a root queue beside the departments: a project without a department, or whose department has no queue on this pool"

// share is one segment of a bar: a department's (or a project's)
// guarantee of gpu cards on one pool. Root marks a root project's queue
// (a project without spec.parent), or a project queue whose department has
// no queue on the pool: KAI makes each a root queue, beside the
// departments.
type share struct {
	name string
	v    quota.Value
	root bool
}

// capacity is a pool's cards as far as they are known.
type capacity struct {
	known bool
	cards quota.Value
	// why tells why the cards are unknown ("nodes not read").
	why string
	// nodes counts the nodes of the pool.
	nodes int
	// unschedulable is the cards not schedulable now: on nodes that are not
	// Ready, cordoned or under pressure, or not allocatable.
	unschedulable quota.Value
}

// deptSplit is one department's share of a pool and its projects'
// guarantees, before and after.
type deptSplit struct {
	name                  string
	hadBefore, hasAfter   bool
	before, after         quota.Value
	projBefore, projAfter []share
}

// poolSplit is what a pool's bars draw.
type poolSplit struct {
	pool          string
	cap           capacity
	before, after []share
	depts         []deptSplit
}

// poolCapacity is the capacity of pool in s (poolcap.Pools: its
// cards as KAI counts them, and the part not schedulable right now); pool
// "default" has the nodes that no other pool selects, as the checks count
// them. Unknown when the nodes were not read or the pool does not exist
// in s.
func poolCapacity(s *snapshot.State, pool string) capacity {
	return capacitiesOf(s, nil, map[string]bool{pool: true}).of(pool)
}

// capacities is the capacity of every pool of a state, from one pass over
// its nodes (capacitiesOf reads their figures, or takes those k has read).
type capacities struct {
	exists map[string]bool
	pools  map[string]*poolcap.Pool // nil when the nodes were not read
}

// capacitiesOf counts the pools of s that only holds (every pool when
// only is nil), with k's figures of the nodes (nil: read them); of must be
// asked only about those.
func capacitiesOf(s *snapshot.State, k *poolcap.Counter, only map[string]bool) capacities {
	cs := capacities{exists: map[string]bool{}, pools: k.PoolsOf(s, only)}
	for i := range s.NodePools {
		cs.exists[s.NodePools[i].Metadata.Name] = true
	}
	return cs
}

// of returns the capacity of pool.
func (cs capacities) of(pool string) capacity {
	switch {
	case cs.pools == nil:
		return capacity{why: "nodes not read"}
	case !cs.exists[pool] && pool != "default":
		return capacity{why: "no such node pool"}
	}
	pc := cs.pools[pool]
	return capacity{known: true, cards: pc.Cards, nodes: len(pc.Nodes), unschedulable: pc.Cards.Sub(pc.Schedulable())}
}

// gpuDeserved is a queue's gpu guarantee as KRM reads it (omitted is 0).
func gpuDeserved(q *tenancy.Queue) quota.Value {
	if q.Resources.GPU == nil || q.Resources.GPU.Deserved == nil {
		return quota.Zero
	}
	return *q.Resources.GPU.Deserved
}

// queueOn returns the first queue of qs on pool.
func queueOn(qs []tenancy.Queue, pool string) *tenancy.Queue {
	for i := range qs {
		if qs[i].NodePool == pool {
			return &qs[i]
		}
	}
	return nil
}

// split is one state's division of one pool: the departments' shares, the
// root project queues, and each department's projects.
type split struct {
	depts    map[string]quota.Value
	order    []share // departments by name, then root project queues by name
	projects map[string][]share
}

// splitter divides every pool of one state at once: departments first,
// then projects, each given with its first queue on each pool (its share
// of that pool).
type splitter struct {
	out       map[string]*split
	deptNames map[string][]string // by pool, in the state's order
	roots     map[string][]share  // by pool
	depts     map[string]bool
}

func newSplitter() *splitter {
	return &splitter{out: map[string]*split{}, deptNames: map[string][]string{}, roots: map[string][]share{}, depts: map[string]bool{}}
}

func (sr *splitter) pool(name string) *split {
	sp := sr.out[name]
	if sp == nil {
		sp = &split{depts: map[string]quota.Value{}, projects: map[string][]share{}}
		sr.out[name] = sp
	}
	return sp
}

func (sr *splitter) dept(name string, qs []poolShare) {
	sr.depts[name] = true
	for _, q := range qs {
		sr.pool(q.pool).depts[name] = q.v
		sr.deptNames[q.pool] = append(sr.deptNames[q.pool], name)
	}
}

// project must come after every department.
func (sr *splitter) project(name, parent string, qs []poolShare) {
	for _, q := range qs {
		sp := sr.pool(q.pool)
		sh := share{name: name, v: q.v}
		if _, ok := sp.depts[parent]; ok {
			sp.projects[parent] = append(sp.projects[parent], sh)
			continue
		}
		if parent == "" || sr.depts[parent] {
			sh.root = true
			sr.roots[q.pool] = append(sr.roots[q.pool], sh)
		}
	}
}

func (sr *splitter) done() map[string]*split {
	for pool, sp := range sr.out {
		names := sr.deptNames[pool]
		sort.Strings(names)
		for _, n := range names {
			sp.order = append(sp.order, share{name: n, v: sp.depts[n]})
		}
		sp.order = append(sp.order, byName(sr.roots[pool])...)
	}
	return sr.out
}

// byName sorts shares by name, in place, and returns them. The projects of
// a department are sorted only when drawn (see poolSplitsOf).
func byName(ss []share) []share {
	sort.Slice(ss, func(i, j int) bool { return ss[i].name < ss[j].name })
	return ss
}

// poolShare is an object's first queue on a pool, as its gpu guarantee.
type poolShare struct {
	pool string
	v    quota.Value
}

// firstQueues lists the first queue of qs on each pool that only holds
// (every pool when only is nil), reusing buf.
func firstQueues(qs []tenancy.Queue, only map[string]bool, buf []poolShare) []poolShare {
	buf = buf[:0]
	for j := range qs {
		if q := &qs[j]; (only == nil || only[q.NodePool]) && queueOn(qs, q.NodePool) == q {
			buf = append(buf, poolShare{q.NodePool, gpuDeserved(q)})
		}
	}
	return buf
}

// sameQueues reports whether a and b are the same queues in memory, as an
// object the plan does not change shares them with the plan's snapshot
// (tenancy.Apply).
func sameQueues(a, b []tenancy.Queue) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// splitsOf divides every pool of before and of after that only holds
// (every pool when only is nil), in one pass over their objects side by
// side: an object after shares with before (most of them) is read once.
func splitsOf(before, after *snapshot.State, only map[string]bool) (map[string]*split, map[string]*split) {
	sb, sa := newSplitter(), newSplitter()
	var qb, qa []poolShare
	for i := range max(len(before.Departments), len(after.Departments)) {
		var b, a *tenancy.Department
		if i < len(before.Departments) {
			b = &before.Departments[i]
			qb = firstQueues(b.Spec.Queues, only, qb)
			sb.dept(b.Metadata.Name, qb)
		}
		if i < len(after.Departments) {
			a = &after.Departments[i]
			qs := qb
			if b == nil || !sameQueues(a.Spec.Queues, b.Spec.Queues) {
				qa = firstQueues(a.Spec.Queues, only, qa)
				qs = qa
			}
			sa.dept(a.Metadata.Name, qs)
		}
	}
	for i := range max(len(before.Projects), len(after.Projects)) {
		var b, a *tenancy.Project
		if i < len(before.Projects) {
			b = &before.Projects[i]
			qb = firstQueues(b.Spec.Queues, only, qb)
			sb.project(b.Metadata.Name, b.Spec.Parent, qb)
		}
		if i < len(after.Projects) {
			a = &after.Projects[i]
			qs := qb
			if b == nil || !sameQueues(a.Spec.Queues, b.Spec.Queues) {
				qa = firstQueues(a.Spec.Queues, only, qa)
				qs = qa
			}
			sa.project(a.Metadata.Name, a.Spec.Parent, qs)
		}
	}
	return sb.done(), sa.done()
}

// changedPools lists the pools whose division may differ between the
// tenancies bx and tx index (before and after): those of the queues, on
// either side, of every object that is not the same on both (same name,
// same parent, the same queues in memory, as tenancy.Apply leaves the
// objects it does not change), and of every project whose department
// exists on one side only (its queues may become root queues). Every other
// pool is divided by the same objects the same way on both sides, so its
// bars are not drawn: the view divides only these.
func changedPools(bx, tx *tenancy.Index) map[string]bool {
	pools, oneSide := map[string]bool{}, map[string]bool{}
	mark := func(qs []tenancy.Queue) {
		for i := range qs {
			pools[qs[i].NodePool] = true
		}
	}
	for _, side := range [2][2]*tenancy.Index{{bx, tx}, {tx, bx}} {
		this, other := side[0].Tenancy().Departments, side[1]
		for i := range this {
			// The object at the same position, when it has the name
			// (tenancy.Apply keeps every object in place but for new ones),
			// else the one the other side's index finds.
			d, o := &this[i], (*tenancy.Department)(nil)
			if ds := other.Tenancy().Departments; i < len(ds) && ds[i].Metadata.Name == d.Metadata.Name {
				o = &ds[i]
			} else {
				o = other.Department(d.Metadata.Name)
			}
			if o != nil && sameQueues(d.Spec.Queues, o.Spec.Queues) {
				continue
			}
			mark(d.Spec.Queues)
			if o == nil {
				oneSide[d.Metadata.Name] = true
			}
		}
	}
	for _, side := range [2][2]*tenancy.Index{{bx, tx}, {tx, bx}} {
		this, other := side[0].Tenancy().Projects, side[1]
		for i := range this {
			p, o := &this[i], (*tenancy.Project)(nil)
			if ps := other.Tenancy().Projects; i < len(ps) && ps[i].Metadata.Name == p.Metadata.Name {
				o = &ps[i]
			} else {
				o = other.Project(p.Metadata.Name)
			}
			if o != nil && o.Spec.Parent == p.Spec.Parent && sameQueues(p.Spec.Queues, o.Spec.Queues) && !oneSide[p.Spec.Parent] {
				continue
			}
			mark(p.Spec.Queues)
		}
	}
	return pools
}

func sameShares(a, b []share) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || a[i].root != b[i].root || !a[i].v.Equal(b[i].v) {
			return false
		}
	}
	return true
}

// poolSplits lists, by pool name, every pool whose division changes
// between the plan's snapshot and its target, with the departments whose
// share or whose projects' shares change.
func poolSplits(p *planner.Plan) []poolSplit {
	bx, tx := p.Indexes()
	return poolSplitsOf(p.Snapshot, p.TargetState(), changedPools(bx, tx), p.Nodes())
}

// poolSplitsOf is poolSplits over the pools only holds (every pool when
// only is nil): a pool no queue is on, on either side, has no division.
// k has read the figures of the states' nodes (nil: none).
func poolSplitsOf(before, after *snapshot.State, only map[string]bool, k *poolcap.Counter) []poolSplit {
	bs, as := splitsOf(before, after, only)
	pools := map[string]bool{}
	for _, ss := range []map[string]*split{bs, as} {
		for n := range ss {
			pools[n] = true
		}
	}
	names := make([]string, 0, len(pools))
	for n := range pools {
		names = append(names, n)
	}
	sort.Strings(names)
	caps := capacitiesOf(after, k, only) // every pool of names is in only
	none := &split{}
	var out []poolSplit
	for _, pool := range names {
		b, a := bs[pool], as[pool]
		if b == nil {
			b = none
		}
		if a == nil {
			a = none
		}
		ps := poolSplit{pool: pool, cap: caps.of(pool), before: b.order, after: a.order}
		depts := map[string]bool{}
		for n := range b.depts {
			depts[n] = true
		}
		for n := range a.depts {
			depts[n] = true
		}
		dn := make([]string, 0, len(depts))
		for n := range depts {
			dn = append(dn, n)
		}
		sort.Strings(dn)
		for _, n := range dn {
			bv, hb := b.depts[n]
			av, ha := a.depts[n]
			same := hb == ha && bv.Equal(av)
			// The projects come in the states' order: the same lists sort
			// the same, so most departments are settled before sorting.
			bp, ap := b.projects[n], a.projects[n]
			if same && sameShares(bp, ap) {
				continue
			}
			if bp, ap = byName(bp), byName(ap); same && sameShares(bp, ap) {
				continue
			}
			ps.depts = append(ps.depts, deptSplit{name: n, hadBefore: hb, hasAfter: ha, before: bv, after: av,
				projBefore: bp, projAfter: ap})
		}
		if len(ps.depts) == 0 && sameShares(ps.before, ps.after) {
			continue
		}
		out = append(out, ps)
	}
	return out
}

// edge is where a bar's closing bracket stands: the pool's cards or the
// department's share. Unknown (or unlimited) draws against the line's own
// total, so nothing can spill past it.
type edge struct {
	known bool
	v     quota.Value
}

// barLine is one drawn bar: the cells and the summary after them.
type barLine struct {
	cells  []rune
	kinds  []cellKind
	edge   int // cells before the closing bracket
	sum    string
	legend []string // shares whose label did not fit
}

type cellKind uint8

const (
	kindBlank cellKind = iota
	kindFree
	kindSegA
	kindSegB
	kindOver
)

// finiteTotal sums the finite shares and names the unlimited ones.
func finiteTotal(ss []share) (quota.Value, []string) {
	t := quota.Zero
	var unl []string
	for _, s := range ss {
		switch {
		case s.v.IsUnlimited():
			unl = append(unl, escape.Controls(s.name))
		case s.v.IsNegative():
		default:
			t = t.Add(s.v)
		}
	}
	return t, unl
}

// keyLetters name the shares whose label does not fit in their segment.
const keyLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// maxSmallNamed bounds the shares a legend names as too small to draw.
const maxSmallNamed = 8

// segment is one share laid out on the cells [start, end) of a line
// whose closing bracket stands before cell edge.
type segment struct {
	s                share
	start, end, edge int
}

// layout places the positive shares on a bar of cells: each ends at the
// cell of its running total, so the segments add up exactly to the total's
// cell.
func layout(ss []share, scale float64, cells int) []segment {
	pos := func(v quota.Value) int {
		if scale <= 0 {
			return 0
		}
		n := int(math.Round(v.Float64() / scale * float64(cells)))
		return max(0, min(n, cells))
	}
	var out []segment
	cum, prev := quota.Zero, 0
	for _, s := range ss {
		if s.v.IsNegative() || s.v.IsZero() {
			continue
		}
		cum = cum.Add(s.v)
		end := pos(cum)
		out = append(out, segment{s: s, start: prev, end: end})
		prev = end
	}
	return out
}

// label is the share's name (escaped) and amount, as a bar shows it.
func (s share) label() string {
	if s.root {
		return escape.Controls(s.name) + "* " + s.v.String()
	}
	return escape.Controls(s.name) + " " + s.v.String()
}

// fits reports whether a segment shows its whole label: one cell goes to
// the border with the previous segment, and a label never straddles the
// closing bracket.
func (g segment) fits() bool {
	at := g.start
	if g.start > 0 {
		at++
	}
	end := at + len([]rune(g.s.label()))
	return end <= g.end && (end <= g.edge || at >= g.edge)
}

// layoutLine lays out one line against its edge: the edge's cell when the
// edge is known, else the end of the last share.
func layoutLine(ss []share, e edge, scale float64, cells int) ([]segment, int) {
	segs := layout(ss, scale, cells)
	edgeCell := 0
	switch {
	case e.known && scale > 0:
		edgeCell = max(0, min(int(math.Round(e.v.Float64()/scale*float64(cells))), cells))
	case len(segs) > 0:
		edgeCell = segs[len(segs)-1].end
	}
	for i := range segs {
		segs[i].edge = edgeCell
	}
	return segs, edgeCell
}

// assignKeys gives a letter to every share (by name) whose label does not
// fit on one of the lines, in the order they first appear, so that a
// share has the same key before and after.
func assignKeys(lines ...[]segment) map[string]rune {
	keys := map[string]rune{}
	next := 0
	for _, l := range lines {
		for _, g := range l {
			if g.fits() || g.end == g.start {
				continue
			}
			if _, ok := keys[g.s.name]; ok {
				continue
			}
			k := '#'
			if next < len(keyLetters) {
				k = rune(keyLetters[next])
			}
			keys[g.s.name] = k
			next++
		}
	}
	return keys
}

// drawBar draws shares over cells cells against scale (in cards). A
// share whose label does not fit shows its key letter from keys; one too
// small for a cell is named in the legend.
func drawBar(ss []share, e edge, scale float64, keys map[string]rune, cells int) barLine {
	total, unl := finiteTotal(ss)
	l := barLine{cells: make([]rune, cells), kinds: make([]cellKind, cells)}
	for i := range l.cells {
		l.cells[i] = ' '
	}
	segs, edgeCell := layoutLine(ss, e, scale, cells)
	l.edge = edgeCell
	prev := 0
	if len(segs) > 0 {
		prev = segs[len(segs)-1].end
	}
	var small []string
	drawn := 0
	for _, g := range segs {
		if g.end == g.start {
			small = append(small, g.s.label())
			continue
		}
		kind := kindSegA
		if drawn%2 == 1 {
			kind = kindSegB
		}
		var text []rune
		if g.fits() {
			text = []rune(g.s.label())
		} else {
			text = []rune{keys[g.s.name]}
			l.legend = append(l.legend, string(keys[g.s.name])+" "+g.s.label())
		}
		at := g.start
		if g.start > 0 && g.end-g.start > 1 {
			l.cells[at], l.kinds[at] = cellSep, kind
			at++
		}
		for i := at; i < g.end; i++ {
			ch := cellFill
			over := e.known && i >= l.edge
			switch {
			case i-at < len(text):
				ch = text[i-at]
			case over:
				ch = cellOver
			}
			l.cells[i], l.kinds[i] = ch, kind
			if over {
				l.kinds[i] = kindOver
			}
		}
		drawn++
	}
	if len(small) > 0 {
		if len(small) > maxSmallNamed {
			small = append(small[:maxSmallNamed], fmt.Sprintf("and %d more", len(small)-maxSmallNamed))
		}
		small[0] = "too small to draw: " + small[0]
		l.legend = append(l.legend, small...)
	}
	for i := prev; i < l.edge; i++ {
		l.cells[i], l.kinds[i] = cellFree, kindFree
	}
	l.sum = summaryText(total, unl, e)
	return l
}

// summaryText is the text after a bar: "4 of 4 cards", "5 of 4 cards, 1
// over", "3 of 4 cards, 1 free", "4 cards" (edge unknown).
func summaryText(total quota.Value, unl []string, e edge) string {
	amount := func(v quota.Value) string { return quota.Amount(quota.GPU, v) }
	var s string
	switch {
	case len(unl) > 0:
		s = fmt.Sprintf("unlimited (%s)", strings.Join(unl, ", "))
		if !total.IsZero() {
			s = amount(total) + " + " + s
		}
		if e.known {
			s += " of " + amount(e.v)
		}
	case !e.known:
		s = amount(total)
	case e.v.Equal(total):
		s = fmt.Sprintf("%s of %s", total, amount(e.v))
	case total.Cmp(e.v) > 0:
		s = fmt.Sprintf("%s of %s, %s over", total, amount(e.v), total.Sub(e.v))
	default:
		s = fmt.Sprintf("%s of %s, %s free", total, amount(e.v), e.v.Sub(total))
	}
	return s
}

// scaleOf is the largest finite amount among the values given, in cards.
func scaleOf(vs ...quota.Value) float64 {
	m := 0.0
	for _, v := range vs {
		if v.IsNegative() {
			continue
		}
		m = math.Max(m, v.Float64())
	}
	return m
}

// writeBars writes the bars section of a plan within st's columns:
// nothing when no pool's division changes. Lines end in a summary, never
// in spaces.
func writeBars(b *bytes.Buffer, p *planner.Plan, st Style) {
	splits := poolSplits(p)
	if len(splits) == 0 {
		return
	}
	cols := st.Columns()
	words.Wrap(b, cols, "", "", barsLegend)
	for _, ps := range splits {
		b.WriteString("\n")
		writePoolBars(b, ps, st, cols)
	}
	b.WriteString("\n")
}

func writePoolBars(b *bytes.Buffer, ps poolSplit, st Style, cols int) {
	c := ps.cap
	switch {
	case !c.known:
		fitLine(b, cols, "  ", "Node pool "+escape.Controls(ps.pool)+":", fmt.Sprintf("size unknown (%s), drawn against the departments' total", escape.Controls(c.why)))
	default:
		nodes := words.Count(c.nodes, "node")
		extra := ""
		if !c.unschedulable.IsZero() {
			extra = fmt.Sprintf(", %s of them not schedulable now", c.unschedulable)
		}
		fitLine(b, cols, "  ", "Node pool "+escape.Controls(ps.pool)+":", fmt.Sprintf("%s on %s%s", quota.Amount(quota.GPU, c.cards), nodes, extra))
	}
	e := edge{known: c.known, v: c.cards}
	bt, _ := finiteTotal(ps.before)
	at, _ := finiteTotal(ps.after)
	scale := scaleOf(bt, at)
	if c.known {
		scale = math.Max(scale, c.cards.Float64())
	}
	writeBarPair(b, cols, "    ", ps.before, ps.after, e, e, scale, st)
	for _, d := range ps.depts {
		writeDeptBars(b, d, st, cols)
	}
	roots := false
	for _, s := range append(append([]share(nil), ps.before...), ps.after...) {
		roots = roots || s.root
	}
	if roots {
		words.Wrap(b, cols, "    ", "      ", rootNote)
	}
}

func writeDeptBars(b *bytes.Buffer, d deptSplit, st Style, cols int) {
	amount := func(v quota.Value) string { return quota.Amount(quota.GPU, v) }
	var shareText string
	switch {
	case !d.hadBefore:
		shareText = "new share " + amount(d.after)
	case !d.hasAfter:
		shareText = "share " + amount(d.before) + ", no queue after"
	case d.before.Equal(d.after):
		shareText = "share " + amount(d.after)
	default:
		shareText = fmt.Sprintf("share %s -> %s", d.before, amount(d.after))
	}
	fitLine(b, cols, "    ", "Projects of department "+escape.Controls(d.name), "("+shareText+"):")
	if len(d.projBefore) == 0 && len(d.projAfter) == 0 {
		b.WriteString("      no project has a queue on this pool\n")
		return
	}
	eb := edge{known: d.hadBefore && !d.before.IsUnlimited(), v: d.before}
	ea := edge{known: d.hasAfter && !d.after.IsUnlimited(), v: d.after}
	bt, _ := finiteTotal(d.projBefore)
	at, _ := finiteTotal(d.projAfter)
	vs := []quota.Value{bt, at}
	if eb.known {
		vs = append(vs, eb.v)
	}
	if ea.known {
		vs = append(vs, ea.v)
	}
	writeBarPair(b, cols, "      ", d.projBefore, d.projAfter, eb, ea, scaleOf(vs...), st)
}

// writeBarPair writes the before and after bars of one set of shares.
func writeBarPair(b *bytes.Buffer, cols int, indent string, before, after []share, eb, ea edge, scale float64, st Style) {
	if scale <= 0 {
		fmt.Fprintf(b, "%sbefore  no guaranteed cards\n%safter   no guaranteed cards\n", indent, indent)
		return
	}
	// A department's bars are indented two more than the pool's: two
	// cells fewer, so that their summaries fit as the pool's do.
	cells := barCells(cols - (len(indent) - len("    ")))
	bs, _ := layoutLine(before, eb, scale, cells)
	as, _ := layoutLine(after, ea, scale, cells)
	keys := assignKeys(bs, as)
	for _, side := range []struct {
		name string
		ss   []share
		e    edge
	}{{"before", before, eb}, {"after ", after, ea}} {
		l := drawBar(side.ss, side.e, scale, keys, cells)
		writeBarLine(b, cols, indent+side.name+" ", l, st)
		if len(l.legend) > 0 {
			writeLegend(b, cols, indent+"       ", l.legend)
		}
	}
}

// fitLine writes indent+head+" "+tail, or head on a line and the tail
// wrapped under it (indented two more) when one line would pass cols. (Every line
// of the bars stays within cols, but for one that a name alone makes
// longer.)
func fitLine(b *bytes.Buffer, cols int, indent, head, tail string) {
	if utf8.RuneCountInString(indent+head+" "+tail) <= cols {
		b.WriteString(indent + head + " " + tail + "\n")
		return
	}
	b.WriteString(indent + head + "\n")
	words.Wrap(b, cols, indent+"  ", indent+"  ", tail)
}

// writeBarLine writes prefix, the bar and its summary. The summaries of a
// pair of bars line up; when that would pass cols the blank cells after
// the bar are dropped, and if it still does the summary goes on the next
// line.
func writeBarLine(b *bytes.Buffer, cols int, prefix string, l barLine, st Style) {
	plain := utf8.RuneCountInString(prefix) + len(l.cells) + 3 + utf8.RuneCountInString(l.sum)
	if plain > cols {
		n := len(l.cells)
		for n > l.edge && l.kinds[n-1] == kindBlank {
			n--
		}
		plain -= len(l.cells) - n
		l.cells, l.kinds = l.cells[:n], l.kinds[:n]
	}
	if plain <= cols {
		b.WriteString(prefix + l.paint(st) + " " + l.sum + "\n")
		return
	}
	b.WriteString(prefix + l.paint(st) + "\n" + strings.Repeat(" ", utf8.RuneCountInString(prefix)+1) + l.sum + "\n")
}

// writeLegend writes the keys of a bar's unlabelled shares, wrapped to stay
// within cols.
func writeLegend(b *bytes.Buffer, cols int, indent string, items []string) {
	line := indent + "("
	for i, it := range items {
		sep := ", "
		if i == len(items)-1 {
			sep = ")"
		}
		if len(line) > len(indent)+1 && utf8.RuneCountInString(line+it+sep) > cols {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent + " "
		}
		line += it + sep
	}
	b.WriteString(line + "\n")
}

// paint returns the bar as text: "[" cells up to the edge "]" the rest,
// each run of cells in its colour when st colours.
func (l barLine) paint(st Style) string {
	var out strings.Builder
	out.WriteString("[")
	run := func(from, to int) {
		for i := from; i < to; {
			j := i
			for j < to && l.kinds[j] == l.kinds[i] {
				j++
			}
			text := string(l.cells[i:j])
			switch l.kinds[i] {
			case kindSegA:
				text = st.paint(st.barA, text)
			case kindSegB:
				text = st.paint(st.barB, text)
			case kindOver:
				text = st.paint(st.errorC, text)
			case kindFree:
				text = st.paint(st.dim, text)
			}
			out.WriteString(text)
			i = j
		}
	}
	run(0, l.edge)
	out.WriteString("]")
	run(l.edge, len(l.cells))
	return out.String()
}
