package fairshare

import (
	"math"
	"math/bits"
	"slices"
)

// The exact division in integers, for the common level whose values are
// all whole numbers (cards, millicores, bytes, weights) and whose usage is
// 0: then every grant is a whole number, and a round's exact share is
// A·w/Q with Q the sum of the unsatisfied weights of T's sign (k cancels
// out), so 128-bit products decide every comparison. It gives what
// exactLevel gives, without big numbers.

// i128 is a signed 128-bit integer: sign and magnitude.
type i128 struct {
	neg bool
	m   u128
}

func mul64(a, b int64) i128 {
	hi, lo := bits.Mul64(absU(a), absU(b))
	return i128{neg: (a < 0) != (b < 0) && (hi|lo) != 0, m: u128{hi, lo}}
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

func (x i128) cmp(y i128) int {
	switch {
	case x.neg && !y.neg:
		return -1
	case !x.neg && y.neg:
		return 1
	case x.neg:
		return y.m.cmp(x.m)
	}
	return x.m.cmp(y.m)
}

// xi is one sibling's state in integers; req < 0 is unbounded.
type xi struct {
	i                      int32
	dsv, lim, oqw, req, fs int64
	limUnl, reqInf         bool
	rnum, rden             int64 // remainder rnum/rden; rden 0: no entry
}

// maxExactInt bounds the values the integer division takes: float64 holds
// them exactly and their products fit in 128 bits.
const maxExactInt = 1 << 53

// intOf returns f as an int64 when it is a whole number within bounds.
func intOf(f float64) (int64, bool) {
	if f != math.Trunc(f) || math.Abs(f) >= maxExactInt {
		return 0, false
	}
	return int64(f), true
}

// exactLevelInt divides total between sibs exactly; ok is false when the
// level has a value that is not a whole number, an inexact input, or a
// usage.
func (d *divider) exactLevelInt(r int, total float64, sibs []int32) (fs []int64, ok bool) {
	t, ok := intOf(total)
	if !ok {
		return nil, false
	}
	xs := make([]xi, len(sibs))
	rem := t
	for j, i := range sibs {
		q := &d.st[i]
		x := &xs[j]
		if x.i = i; !q.exIn || q.use != 0 {
			return nil, false
		}
		var ok1, ok2, ok3 bool
		x.dsv, ok1 = intOf(q.dsv)
		x.lim, ok2 = intOf(q.lim)
		x.oqw, ok3 = intOf(q.oqw)
		if x.reqInf = math.IsInf(q.req, 1); !x.reqInf {
			var ok4 bool
			if x.req, ok4 = intOf(q.req); !ok4 {
				return nil, false
			}
		}
		if !ok1 || !ok2 || !ok3 {
			return nil, false
		}
		x.limUnl = x.lim == unlimited
		dsv := x.dsv
		if dsv == unlimited {
			dsv = t
		}
		a := dsv
		if rq, inf := x.requestable(); !inf && rq < a {
			a = rq
		}
		x.fs = a
		rem -= a
	}
	if rem > 0 {
		var bands [][]xi
		bb := d.bandBounds(sibs)
		for j := 1; j < len(bb); j++ {
			bands = append(bands, xs[bb[j-1]:bb[j]])
		}
		for _, b := range bands {
			rem = upToInt(rem, b)
		}
		for _, b := range bands {
			if rem <= 0 {
				break
			}
			rem = d.leftoverInt(rem, b)
		}
	}
	fs = make([]int64, len(xs))
	for j := range xs {
		fs[j] = xs[j].fs
	}
	return fs, true
}

func (x *xi) requestable() (int64, bool) {
	if x.limUnl {
		return x.req, x.reqInf
	}
	if x.reqInf || x.lim < x.req {
		return x.lim, false
	}
	return x.req, false
}

func (x *xi) satisfied() bool {
	return (!x.reqInf && x.req <= x.fs) || (!x.limUnl && x.lim <= x.fs)
}

// remaining is the remaining request; inf for unbounded.
func (x *xi) remaining() (int64, bool) {
	r, inf := x.requestable()
	if inf {
		return 0, true
	}
	if r < x.fs {
		return 0, false
	}
	return r - x.fs, false
}

// upToInt is upToFairShare in integers.
func upToInt(total int64, band []xi) int64 {
	for round := 0; round <= 4*len(band)+64; round++ {
		A := total
		var T, Q int64
		for j := range band {
			if rq, inf := band[j].remaining(); inf || rq > 0 {
				T += band[j].oqw
			}
		}
		if T == 0 {
			break
		}
		for j := range band {
			if x := &band[j]; !x.satisfied() && (x.oqw > 0) == (T > 0) && x.oqw != 0 {
				Q += x.oqw
			}
		}
		if Q == 0 {
			break
		}
		sq := int64(1)
		if Q < 0 {
			sq = -1
		}
		another := false
		for j := range band {
			x := &band[j]
			if total == 0 {
				break
			}
			if x.satisfied() || x.oqw == 0 || (x.oqw > 0) != (T > 0) {
				continue // a weight against T's sign has a share weight of 0
			}
			req, inf := x.remaining()
			num, den := mul64(A, x.oqw*sq), Q*sq // s = num/den, den > 0
			var give int64
			if !inf && mul64(req, den).cmp(num) <= 0 {
				give, x.rden = req, 0
			} else {
				fl := floorDiv(num, den)
				if fl > 0 {
					give = fl
				}
				if left := mul64(give, den); num.cmp(left) > 0 {
					x.rnum, x.rden = remainderNum(num, give, den), den
				}
			}
			if give == 0 {
				continue
			}
			x.fs += give
			total -= give
			another = another || (!inf && mul64(req, den).cmp(num) < 0)
		}
		if !another || total == 0 {
			break
		}
	}
	return total
}

// floorDiv is floor(num/den) for den > 0 and a quotient within int64.
func floorDiv(num i128, den int64) int64 {
	if num.m.hi >= uint64(den) {
		return math.MaxInt64 // beyond any share; the caller's values are bounded
	}
	q, rem := bits.Div64(num.m.hi, num.m.lo, uint64(den))
	if !num.neg {
		return int64(q)
	}
	if rem != 0 {
		q++
	}
	return -int64(q)
}

// remainderNum is num − give·den for 0 ≤ give·den < num < (give+1)·den:
// below den, so its low 64 bits are all of it.
func remainderNum(num i128, give, den int64) int64 {
	lo, _ := bits.Sub64(num.m.lo, mul64(give, den).m.lo, 0)
	return int64(lo)
}

// leftoverInt is leftover in integers: what is left is a whole number, so
// every entry served gets one unit.
func (d *divider) leftoverInt(total int64, band []xi) int64 {
	var ents []*xi
	for j := range band {
		if band[j].rden != 0 {
			ents = append(ents, &band[j])
		}
	}
	slices.SortFunc(ents, func(a, b *xi) int {
		// b.rnum/b.rden against a.rnum/a.rden
		if c := mul64(b.rnum, a.rden).cmp(mul64(a.rnum, b.rden)); c != 0 {
			return c
		}
		return d.byAge(a.i, b.i)
	})
	for _, x := range ents {
		if total == 0 {
			break
		}
		x.fs++
		total--
	}
	return total
}
