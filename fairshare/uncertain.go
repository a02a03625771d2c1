package fairshare

import (
	"math"
	"slices"
)

// What float64 makes uncertain in a level's division, and how it is found.
//
// Exact arithmetic: every input and every sum is checked for exactness
// (Binary64, TwoSum). A round's share A·(sw/S) is rounded even when its
// inputs are exact, so each comparison KAI makes on it that falls within
// the share's error bound is decided exactly (cmpQuot: with usage 0 the
// exact share is A × weight / Q). A level with an inexact input or sum, a
// comparison decided the other way, or one that could not be decided is
// divided again in exact arithmetic (exact.go), and the shares that
// differ are reported.
//
// KAI's order: KAI sums siblings in Go map order, random on every range.
// A sum whose terms are all multiples of one power of two, small enough,
// is the same in every order (fixedSum); others are not. Where a
// comparison falls within how far KAI's order can move its operands, the
// level is rerun with each value the weights' sum S takes in any order
// (orderSums) and the shares that change are marked; where that cannot be
// enumerated, every sibling taking part in the over-quota phase is
// marked (markFlip).

// check collects what one level's float64 division leaves uncertain.
type check struct {
	// inexact: an input or an operation was not exact, so the exact
	// division must be run to compare.
	inexact bool
	// diverged: an exactly decided comparison came out differently from
	// KAI's float64 one; undecided: a comparison too close to call could
	// not be decided exactly here. Both call for the exact division.
	diverged, undecided bool
	// flip: a comparison was close enough that KAI, visiting the siblings
	// in another order, could take it the other way, by an amount not
	// known here; every sibling that takes part in the over-quota phase
	// may then differ.
	flip bool
	// alts are other sums of the share weights, in rounds where one can
	// change the result: rerunning with each tells whom they change.
	alts []altSum
}

// altSum is another value KAI's order gives one of its sums: what the
// deserved phase leaves (altRem), or in one round of one band the sum of
// the unsatisfied weights T (altT) or of the share weights S (altS).
type altSum struct {
	kind        altKind
	band, round int32
	v           float64
}

type altKind int8

const (
	altS altKind = iota
	altT
	altRem
)

// maxAlts is the most alternatives a level reruns; beyond, it marks every
// participant.
const maxAlts = 16

// roundRec is what the analysis keeps of one round: the unsatisfied
// queues' weights, usages and share weights (divider.hist[off:off+n]),
// the weights T sums (divider.wHist[toff:toff+tn]), both sums (Tused is
// T as divided by, forced in a rerun), and what analyze and cands work
// out from them once asked: whether the share weights and S are exact
// and S the same in every order (exact), whether S or T depends on the
// order (order, tOrder), the exact share's denominator Q with qOK, the
// values S takes in other orders, and blind: KAI's order moves what is
// left, or S or T has too many terms, so the alternatives cannot be
// listed.
type roundRec struct {
	band, round            int32
	off, n                 int32
	toff, tn               int32
	S, T, Tused, Q         float64
	cands                  []float64
	analyzed, exact, order bool
	tOrder, qOK, tDone     bool
	blind                  bool
}

// histEntry is one unsatisfied queue's weight, usage and share weight in a
// round.
type histEntry struct{ oqw, use, sw float64 }

// analyze works out the round's exactness and order dependence (see
// roundRec) from its terms, once.
func (l *level) analyze(rec *roundRec) {
	if rec.analyzed {
		return
	}
	rec.analyzed = true
	var tc, wc, qc check
	var tsum, ssum fixedSum
	T := 0.0
	for _, w := range l.d.wHist[rec.toff : rec.toff+rec.tn] {
		T = tc.add(T, w)
		tsum.add(w)
	}
	k, distinct := l.d.k, false
	usage0 := true
	hs := l.d.hist[rec.off : rec.off+rec.n]
	for j, h := range hs {
		nw := h.oqw / rec.Tused
		kt := float64(k * (nw - h.use))
		if math.FMA(nw, rec.Tused, -h.oqw) != 0 || math.FMA(k, nw-h.use, -kt) != 0 {
			wc.inexact = true
		}
		wc.sub(nw, h.use)
		wc.add(nw, kt)
		ssum.add(h.sw)
		distinct = distinct || (j > 0 && h.sw != hs[0].sw)
		usage0 = usage0 && h.use == 0
		if nw > 0 {
			rec.Q = qc.add(rec.Q, h.oqw)
		}
	}
	if tc.inexact {
		l.c.inexact = true // T is not the exact sum: compare with the exact division
	}
	rec.exact = !wc.inexact && ssum.bound() == 0
	rec.tOrder = tsum.bound() > 0 && tsum.terms >= 3
	rec.order = rec.tOrder || (ssum.bound() > 0 && len(hs) >= 3 && distinct)
	rec.qOK = usage0 && !qc.inexact && !l.c.inexact && tsum.bound() == 0
}

// add returns a+b and notes in c when the float64 sum is not the exact one
// (TwoSum). Infinite operands (unbounded demand) count as exact.
func (c *check) add(a, b float64) float64 {
	s := a + b
	if s-s == 0 { // finite
		bb := s - a
		if (a-(s-bb))+(b-bb) != 0 {
			c.inexact = true
		}
	}
	return s
}

func (c *check) sub(a, b float64) float64 { return c.add(a, -b) }

// fixedSum tells whether a float64 sum comes out the same, and exact, in
// every order of its terms: it does when all of them are multiples of one
// power of two g and every partial sum stays below 2^53·g in magnitude
// (each is then an integer multiple of g that float64 holds). A partial
// sum lies between the sum of the negative terms and that of the positive
// ones. Integers and halves pass; 0.1 + 0.2 does not.
type fixedSum struct {
	minExp   int
	pos, neg float64
	terms    int
}

func (f *fixedSum) add(x float64) {
	if x == 0 || math.IsInf(x, 0) {
		return
	}
	_, e, _ := significand(x)
	if f.terms == 0 || e < f.minExp {
		f.minExp = e
	}
	if x > 0 {
		f.pos += x
	} else {
		f.neg -= x
	}
	f.terms++
}

// bound is how far the sum can be from ours in another order: 0 when it is
// the same in every order, else the classic (n+1)·u·Σ|x|, doubled.
func (f *fixedSum) bound() float64 {
	// pos and neg are float64 sums themselves, hence the margin.
	if f.terms == 0 || max(f.pos, f.neg)*(1+0x1p-40) < math.Ldexp(1, 53+f.minExp) {
		return 0
	}
	return float64(2*(f.terms+1)) * 0x1p-53 * (f.pos + f.neg)
}

// flipIf notes a comparison on what is left that KAI's order could turn.
func (l *level) flipIf(close bool) {
	if close && l.acc.bound() > 0 {
		l.blindFlip()
	}
}

// deservedOrders records the other values KAI's order can give what the
// deserved phase leaves, rem, and starts the account of what is left
// afresh from it; when orderSums cannot list them the account keeps every
// term, and comparisons on what is left within its bound are blind flips.
func (l *level) deservedOrders(rem float64) {
	l.rem0 = rem
	if l.acc.bound() == 0 || l.force != nil {
		return
	}
	terms := l.d.wHist[:0]
	for _, i := range l.all {
		terms = append(terms, -l.st[i].guar)
	}
	l.d.wHist = terms[:0]
	alts, ok := orderSums(l.total, terms)
	if !ok {
		return
	}
	for _, v := range alts {
		l.alt(altSum{kind: altRem, v: v})
	}
	l.acc = fixedSum{}
	l.acc.add(rem)
}

// judge checks the comparisons KAI's float64 arithmetic makes on a round's
// share s = A·frac (requested <= s, requested < s, floor(s)): against
// exact arithmetic where they are close enough to go the other way, and
// against KAI's other visiting orders. It returns how far s can be from
// the exact share (tolF) and from KAI's in another order (tolO); far from
// every boundary, without analysing the round, both are the bound w.tol.
func (l *level) judge(q *qs, A, s, frac, requested float64, w *roundWeights) (tolF, tolO float64) {
	fl := math.Floor(s)
	xs := [3]float64{requested, fl, fl + 1}
	tolF = w.tol * math.Abs(s)
	tolO = tolF + 1.01*w.B*math.Abs(frac)
	near := false
	for _, x := range xs {
		near = near || math.Abs(x-s) <= tolO
	}
	if !near {
		return tolF, tolO
	}
	rec := &l.rounds[w.rec]
	l.analyze(rec)
	if rec.exact {
		tolF = 0
		if math.FMA(frac, w.S, -q.sw) != 0 || math.FMA(A, frac, -s) != 0 {
			tolF = 4 * 0x1p-53 * math.Abs(s)
		}
	}
	if !rec.order {
		tolO = 0
	}
	tolO += 1.01 * w.B * math.Abs(frac)
	if q.sw == 0 && rec.qOK {
		return 0, tolO // s is 0 exactly
	}
	for _, x := range xs {
		d := math.Abs(x - s)
		if d <= tolO && tolO > 0 {
			l.turns(x, s, A, q.sw, w)
		}
		if d > tolF || tolF == 0 {
			continue
		}
		switch {
		case l.c.inexact:
			// The exact division is run anyway.
		case !rec.qOK || (x == requested && requested != q.requestable()-q.fs):
			l.c.undecided = true
		case sign(x-s) != cmpQuot(x, A, q.oqw, rec.Q):
			// s exactly is A × oqw / Q.
			l.c.diverged = true
		}
	}
	return tolF, tolO
}

// turns records the sums with which KAI, visiting the siblings in
// another order, compares x with its share otherwise than s does, and
// every other value of T (a flip of unknown extent when they cannot be
// listed).
func (l *level) turns(x, s, A, sw float64, w *roundWeights) {
	l.alts(&l.rounds[w.rec], func(S float64) bool { return sign(x-float64(A*float64(sw/S))) != sign(x-s) })
}

// alts records as alternatives the values S takes in other orders in the
// round for which turns holds (a flip of unknown extent when they cannot
// be listed).
func (l *level) alts(rec *roundRec, turns func(S float64) bool) {
	cands, ok := l.cands(rec)
	if !ok {
		l.blindFlip()
		return
	}
	for _, S := range cands {
		if turns(S) {
			l.alt(altSum{altS, rec.band, rec.round, S})
		}
	}
}

// blindFlip notes a flip whose alternatives cannot be listed (not in a
// rerun, whose own flips are second-order).
func (l *level) blindFlip() {
	l.c.flip = l.c.flip || l.force == nil
}

// cands returns the sums a round's share weights take in every order,
// having recorded every other value of the round's T as an alternative;
// ok is false when the round is blind or has too many terms.
func (l *level) cands(rec *roundRec) ([]float64, bool) {
	if rec.blind {
		return nil, false
	}
	l.analyze(rec)
	if rec.tOrder && !rec.tDone {
		rec.tDone = true
		ts, ok := orderSums(0, l.d.wHist[rec.toff:rec.toff+rec.tn])
		if !ok {
			rec.blind = true
			return nil, false
		}
		for _, T := range ts {
			l.alt(altSum{altT, rec.band, rec.round, T})
		}
	}
	if rec.cands == nil {
		var ok bool
		sws := make([]float64, rec.n)
		for j, h := range l.d.hist[rec.off : rec.off+rec.n] {
			sws[j] = h.sw
		}
		if rec.cands, ok = orderSums(0, sws); !ok {
			rec.blind = true
			return nil, false
		}
	}
	return rec.cands, true
}

// alt records an alternative to rerun with, unless it is KAI's value here.
func (l *level) alt(a altSum) {
	if l.force != nil || slices.Contains(l.c.alts, a) {
		return
	}
	switch a.kind {
	case altRem:
		if a.v == l.rem0 {
			return
		}
	default:
		rec := &l.rounds[l.recOf(a)]
		if (a.kind == altS && a.v == rec.S) || (a.kind == altT && a.v == rec.T) {
			return
		}
	}
	if len(l.c.alts) == maxAlts {
		l.c.flip = true
		return
	}
	l.c.alts = append(l.c.alts, a)
}

// recOf finds the record of an alternative's round.
func (l *level) recOf(a altSum) int {
	for i := range l.rounds {
		if l.rounds[i].band == a.band && l.rounds[i].round == a.round {
			return i
		}
	}
	return 0
}

// maxOrderStates bounds orderSums' work: the number of distinct partial
// multisets of the terms, the product of (count + 1) over the distinct
// values.
const maxOrderStates = 4096

// orderSums returns every value the float64 sum start + x1 + x2 + ...
// takes over all orders of the terms. Equal terms are interchangeable, so
// it works over how many of each distinct value have been added (a
// mixed-radix state), keeping every partial sum each state can have; ok is
// false when there are more than maxOrderStates states.
func orderSums(start float64, xs []float64) (sums []float64, ok bool) {
	var vals []float64
	var counts []int
	for _, x := range xs {
		if j := slices.Index(vals, x); j >= 0 {
			counts[j]++
		} else {
			vals, counts = append(vals, x), append(counts, 1)
		}
	}
	if len(vals) <= 1 {
		s := start
		for _, x := range xs {
			s += x
		}
		return []float64{s}, true
	}
	states := 1
	for _, c := range counts {
		if states *= c + 1; states > maxOrderStates {
			return nil, false
		}
	}
	sets := make([][]float64, states)
	sets[0] = []float64{start}
	// Digits in increasing state order: adding a term raises one digit,
	// so every state's sets are complete before it is extended.
	for st := 0; st < states; st++ {
		radix, rest := 1, st
		for j, c := range counts {
			digit := rest % (c + 1)
			rest /= c + 1
			if digit < c {
				next := st + radix
				for _, x := range sets[st] {
					if y := x + vals[j]; !slices.Contains(sets[next], y) {
						sets[next] = append(sets[next], y)
					}
				}
			}
			radix *= c + 1
		}
	}
	return sets[states-1], true
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// tieCheck looks at the leftover order of a band's entries (sorted, each
// given its amount in left) for what could change who got a unit: runs
// of remainders within rounding of each other whose amounts differ.
// Float64 may have ordered them otherwise than exact arithmetic (the exact
// division decides), or KAI in another visiting order (each sum of the
// weights in another order, for the rounds that left them, is rerun).
// Then equal remainders ordered by name where ages are unknown (ageTies).
func (l *level) tieCheck(ents []int32) {
	st, c := l.st, l.c
	for lo := 0; lo < len(ents); {
		hi, same := lo+1, true
		for ; hi < len(ents); hi++ {
			a, b := &st[ents[hi-1]], &st[ents[hi]]
			if math.Abs(a.rem-b.rem) > a.remTol+b.remTol+a.remTolO+b.remTolO {
				break
			}
			same = same && a.remRound == b.remRound && a.oqw == b.oqw && a.remS == b.remS
		}
		run := ents[lo:hi]
		lo = hi
		if same || st[run[0]].left == st[run[len(run)-1]].left {
			continue
		}
		for _, i := range run {
			q := &st[i]
			if q.remTol > 0 && !c.inexact {
				c.undecided = true
			}
			if q.remTolO == 0 {
				continue
			}
			l.alts(&l.rounds[q.remRec], func(float64) bool { return true })
		}
	}
	l.d.ageTies(st, ents)
}
