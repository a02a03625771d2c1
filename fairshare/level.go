package fairshare

import (
	"math"
)

// The float64 division of one level, as KAI's resource_division package
// does it, operation for operation. uncertain.go watches it for what
// float64 makes uncertain.

// unlimited is KAI's UnlimitedResourceQuantity (common/constants), -1.
const unlimited = -1

// qs is one queue's state for one resource, in KAI's internal unit, as
// resource_share.ResourceShare holds it (Deserved, MaxAllowed,
// OverQuotaWeight, Usage, Request, FairShare), plus what the analysis and
// the explanation need.
type qs struct {
	dsv, lim, oqw, use, req float64
	fs                      float64
	guar                    float64 // what the deserved phase gave
	sw                      float64 // share weight in the current round
	left                    float64 // what the leftover step gave
	// The remainder entry (remainingRequestedResource): rem, the round's
	// share s that left it, its error bounds (exact arithmetic, KAI's
	// other orders), the round (0: no entry) and its record in
	// level.rounds.
	rem, remS       float64
	remTol, remTolO float64
	remRound        int32
	remRec          int32
	exIn            bool // every input is exactly its decimal
	reqEx           bool // req is exactly the decimal sum
	ageTie          bool
	orderDep        bool
}

// requestable is ResourceShare.GetRequestableShare: the request, capped by
// the limit unless the limit is -1.
func (q *qs) requestable() float64 {
	if q.lim == unlimited {
		return q.req
	}
	return math.Min(q.lim, q.req)
}

// satisfied is resource_division.isQueueSatisfied: the request is met, or
// the limit is reached.
func (q *qs) satisfied() bool {
	return q.req <= q.fs || (q.lim != unlimited && q.lim <= q.fs)
}

// remaining is resource_division.getRemainingRequested.
func (q *qs) remaining() float64 {
	r := q.requestable()
	if r < q.fs {
		return 0
	}
	return r - q.fs
}

// level is one run of resource_division.setResourceShare over a level's
// siblings. all is the order of the deserved phase, band the siblings
// sorted by priority, highest first (each band contiguous, in the order
// its rounds visit it).
type level struct {
	d     *divider
	r     int // resource index
	st    []qs
	total float64
	all   []int32
	band  []int32
	c     *check
	tr    *tracer
	// acc holds every term of what is left (the total and all grants), so
	// that acc.bound() is how much KAI's order can move it.
	acc fixedSum
	// bandNo counts the bands as upToFairShare visits them; rounds
	// records each round's weights for the analysis; force, when set,
	// replaces the weights' sum in one round.
	bandNo int32
	rounds []roundRec
	force  *altSum
	rem0   float64 // what the deserved phase left, in this order
}

// run divides the level and returns what is left unassigned.
func (l *level) run() float64 {
	l.rounds = l.d.roundBuf[:0]
	l.d.hist, l.d.wHist = l.d.hist[:0], l.d.wHist[:0]
	defer func() { l.d.roundBuf = l.rounds[:0] }()
	rem := l.deserved()
	l.tr.afterDeserved(l, rem)
	if !(rem > 0) {
		l.flipIf(math.Abs(rem) <= l.acc.bound())
		return 0
	}
	bands := l.bands()
	for j, b := range bands {
		l.bandNo = int32(j)
		rem = l.upToFairShare(rem, b)
	}
	for j, b := range bands {
		if rem <= 0 {
			l.flipIf(math.Abs(rem) <= l.acc.bound())
			break
		}
		l.bandNo = int32(j)
		rem = l.leftover(rem, b)
	}
	return rem
}

// take subtracts a grant from what is left.
func (l *level) take(rem, x float64) float64 {
	l.acc.add(-x)
	return l.c.sub(rem, x)
}

// bands splits l.band into its priority bands, highest first
// (resource_division.getQueuesByPriority).
func (l *level) bands() [][]int32 {
	out := l.d.bandBuf[:0]
	bb := l.d.bandBounds(l.band)
	for j := 1; j < len(bb); j++ {
		out = append(out, l.band[bb[j-1]:bb[j]])
	}
	l.d.bandBuf = out[:0]
	return out
}

// bandBounds returns where each priority band of sibs (sorted by
// priority) starts, then len(sibs).
func (d *divider) bandBounds(sibs []int32) []int {
	out := append(d.boundBuf[:0], 0)
	for j := 1; j < len(sibs); j++ {
		if d.nodes[sibs[j]].prio != d.nodes[sibs[j-1]].prio {
			out = append(out, j)
		}
	}
	out = append(out, len(sibs))
	d.boundBuf = out
	return out
}

// deserved is resource_division.setDeservedResource: every sibling gets
// min(deserved, requestable), -1 deserving the whole total, with nothing
// scaled down; it returns what is left, which may be negative.
func (l *level) deserved() float64 {
	rem := l.total
	l.acc.add(rem)
	for _, i := range l.all {
		q := &l.st[i]
		if !q.exIn {
			l.c.inexact = true
		}
		d := q.dsv
		if d == unlimited {
			d = l.total
		}
		a := math.Min(d, q.requestable())
		q.fs, q.guar, q.left, q.remRound = 0+a, a, 0, 0
		rem = l.take(rem, a)
	}
	if f := l.force; f != nil && f.kind == altRem {
		rem = f.v
	}
	l.deservedOrders(rem)
	return rem
}

// upToFairShare is resource_division.divideUpToFairShare for one band:
// rounds that split what is left by weight, whole units at a time, until
// nobody used less than its share or nothing is left.
func (l *level) upToFairShare(total float64, band []int32) float64 {
	l.tr.bandStart(l, band, total)
	for round := int32(1); ; round++ {
		if int(round) > 4*len(band)+64 {
			// Each round with another one to follow satisfies a queue;
			// only float64 drift could keep it going.
			l.c.undecided = true
			return total
		}
		another := false
		A := total
		w, ok := l.weights(band, round)
		if !ok {
			break
		}
		for _, i := range band {
			if total == 0 {
				l.flipIf(true)
				break
			}
			q := &l.st[i]
			if q.satisfied() {
				continue
			}
			requested := q.remaining()
			if q.oqw == 0 {
				continue
			}
			frac := q.sw / w.S
			s := float64(A * frac)
			tolF, tolO := l.judge(q, A, s, frac, requested, &w)
			give := 0.0
			if requested <= s {
				give = requested
				q.remRound = 0
			} else {
				if fl := math.Floor(s); fl > 0 {
					give = fl
				}
				if s-give > 0 {
					q.rem, q.remS, q.remTol, q.remTolO = s-give, s, tolF, tolO
					q.remRound, q.remRec = round, w.rec
				}
			}
			l.tr.roundShare(l, i, round, A, frac, s, give)
			if give == 0 {
				continue
			}
			q.fs = l.c.add(q.fs, give)
			total = l.take(total, give)
			another = another || requested < s
		}
		if !another || total == 0 {
			l.flipIf(math.Abs(total) <= l.acc.bound())
			break
		}
	}
	return total
}

// roundWeights is one round's weights (calcShareWeights) and what judging
// its shares needs first; the rest of the analysis (roundRec.analyze) is
// made only for a share close to a boundary.
type roundWeights struct {
	S float64 // sum of the share weights
	// tol bounds the relative error of a share A·(sw/S), and how far
	// KAI's order can move it (its S has at most n+3 roundings more);
	// B is how much KAI's order can move A.
	tol, B float64
	rec    int32 // the round's record in level.rounds
}

// weights is resource_division.calcShareWeights with
// getTotalWeightsForUnsatisfied: each unsatisfied queue's weight
// max(0, n + k·(n − usage)) with n its overQuotaWeight over the sum T of
// the unsatisfied queues' weights. ok is false when T or the weights' sum
// is 0 (the band gets nothing more). The terms of T and S are kept in
// divider.wHist and divider.hist for the analysis.
func (l *level) weights(band []int32, round int32) (w roundWeights, ok bool) {
	d := l.d
	T := 0.0
	rec := roundRec{band: l.bandNo, round: round, toff: int32(len(d.wHist))}
	for _, i := range band {
		if q := &l.st[i]; q.remaining() > 0 {
			T += q.oqw
			d.wHist = append(d.wHist, q.oqw)
		}
	}
	rec.tn, rec.T = int32(len(d.wHist))-rec.toff, T
	if f := l.force; f != nil && f.kind == altT && f.band == l.bandNo && f.round == round {
		T = f.v
	}
	if T == 0 {
		return w, false
	}
	k := d.k
	rec.off = int32(len(d.hist))
	for _, i := range band {
		q := &l.st[i]
		if q.satisfied() {
			continue
		}
		nw := q.oqw / T
		q.sw = math.Max(0, nw+float64(k*(nw-q.use)))
		w.S += q.sw
		d.hist = append(d.hist, histEntry{q.oqw, q.use, q.sw})
	}
	rec.n = int32(len(d.hist)) - rec.off
	if f := l.force; f != nil && f.kind == altS && f.band == l.bandNo && f.round == round {
		w.S = f.v
	}
	w.B = l.acc.bound()
	// sw has three roundings, S at most n more, sw/S and A·(sw/S) one each:
	// twice that bound, as a relative error of the share.
	w.tol = float64(2*rec.n+16) * 0x1p-53
	rec.S, rec.Tused = w.S, T
	rec.blind = w.B > 0 || l.force != nil
	w.rec = int32(len(l.rounds))
	l.rounds = append(l.rounds, rec)
	return w, w.S != 0
}

// leftover is resource_division.divideRemainingResource for one band: the
// band's remainder entries by remainder (largest first), then creation
// time (oldest first), then name, each given min(1, what is left) once,
// with no check of request or limit.
func (l *level) leftover(total float64, band []int32) float64 {
	ents := l.d.entBuf[:0]
	for _, i := range band {
		if l.st[i].remRound != 0 {
			ents = append(ents, i)
		}
	}
	l.d.entBuf = ents[:0]
	if len(ents) == 0 {
		return total
	}
	l.d.sortEntries(l.st, ents)
	B := l.acc.bound()
	for _, i := range ents {
		q := &l.st[i]
		if total == 0 {
			// In another order a sliver could be left for this entry.
			q.orderDep = q.orderDep || B > 0
			break
		}
		give := math.Min(1, total)
		if B > 0 && (give < 1 || total-1 <= B) {
			q.orderDep = true // the rest it gets moves with KAI's order
		}
		q.fs = l.c.add(q.fs, give)
		q.left = give
		total = l.take(total, give)
	}
	l.tieCheck(ents)
	return total
}
