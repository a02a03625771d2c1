package fairshare

import (
	"math/big"
	"slices"

	"github.com/krmplan/krmplan/quota"
)

// The exact division: the same rules as KAI's (level.go), in exact
// rational arithmetic on the decimal values as written. It runs only for a
// level whose float64 division could differ from it, and tells whether it
// does. Its floors, the whole-unit leftover and min/max are the rules'
// own; nothing else rounds.

// exactShare is a queue's exact fair share where it differs from KAI's
// float64 value: rat in KAI's internal unit (what its children divide),
// shown in KRM units when even the printed decimal differs (nil when
// KAI's value prints as the exact one, as 0.1 does).
type exactShare struct {
	rat   *big.Rat
	shown *quota.Value
}

// xq is one sibling's exact state.
type xq struct {
	i                  int32
	dsv, lim, oqw, use *big.Rat
	dsvUnl, limUnl     bool
	req                *big.Rat // nil: unbounded
	fs, sw, rem        *big.Rat // rem nil: no remainder entry
}

var (
	ratOne  = big.NewRat(1, 1)
	ratMin1 = big.NewRat(-1, 1)
)

func ratOf(v quota.Value, shift int32) *big.Rat {
	r, ok := new(big.Rat).SetString(v.String())
	if !ok {
		panic("fairshare: " + v.String() + " is not a rational")
	}
	if shift > 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil)))
	}
	return r
}

func ratFloat(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }

// exactQuota is kaiQuota in exact arithmetic: memory is max(-1, MB × 10^6).
func exactQuota(r int, v quota.Value) (x *big.Rat, unl bool) {
	x = ratOf(v, -shifts[r])
	if r == 2 && x.Cmp(ratMin1) < 0 {
		x = new(big.Rat).Set(ratMin1)
	}
	return x, x.Cmp(ratMin1) == 0
}

// exactRequest is queue i's own demand plus its descendants' (nil:
// unbounded).
func (d *divider) exactRequest(r int, i int32) *big.Rat {
	dm := d.pool.Queues[i].Demand.at(r)
	if dm.Unbounded {
		return nil
	}
	sum := ratOf(dm.Amount, -shifts[r])
	n := &d.nodes[i]
	for _, k := range d.kids[n.kidLo:n.kidHi] {
		kr := d.exactRequest(r, k)
		if kr == nil {
			return nil
		}
		sum.Add(sum, kr)
	}
	return sum
}

func (x *xq) requestable() *big.Rat {
	if x.limUnl {
		return x.req
	}
	if x.req == nil || x.lim.Cmp(x.req) < 0 {
		return x.lim
	}
	return x.req
}

func (x *xq) satisfied() bool {
	return (x.req != nil && x.req.Cmp(x.fs) <= 0) || (!x.limUnl && x.lim.Cmp(x.fs) <= 0)
}

// remaining returns the remaining request, nil for unbounded.
func (x *xq) remaining() *big.Rat {
	r := x.requestable()
	if r == nil {
		return nil
	}
	if r.Cmp(x.fs) < 0 {
		return new(big.Rat)
	}
	return new(big.Rat).Sub(r, x.fs)
}

func positive(r *big.Rat) bool { return r == nil || r.Sign() > 0 }

// exactLevel divides total between sibs exactly and returns each
// sibling's fair share in internal units.
func (d *divider) exactLevel(r int, total *big.Rat, sibs []int32) []*big.Rat {
	xs := make([]*xq, len(sibs))
	rem := new(big.Rat).Set(total)
	for j, i := range sibs {
		q := d.pool.Queues[i].Quota.at(r)
		x := &xq{i: i, req: d.exactRequest(r, i), use: ratFloat(*d.pool.Queues[i].Usage.at(r))}
		x.dsv, x.dsvUnl = exactQuota(r, q.Deserved)
		x.lim, x.limUnl = exactQuota(r, q.Limit)
		x.oqw = ratOf(q.OverQuotaWeight, 0)
		dsv := x.dsv
		if x.dsvUnl {
			dsv = total
		}
		a := dsv
		if rq := x.requestable(); rq != nil && rq.Cmp(a) < 0 {
			a = rq
		}
		x.fs = new(big.Rat).Set(a)
		rem.Sub(rem, a)
		xs[j] = x
	}
	if rem.Sign() > 0 {
		var bands [][]*xq
		bb := d.bandBounds(sibs)
		for j := 1; j < len(bb); j++ {
			bands = append(bands, xs[bb[j-1]:bb[j]])
		}
		for _, b := range bands {
			rem = d.exactUpTo(rem, b)
		}
		for _, b := range bands {
			if rem.Sign() <= 0 {
				break
			}
			rem = d.exactLeftover(rem, b)
		}
	}
	out := make([]*big.Rat, len(xs))
	for j, x := range xs {
		out[j] = x.fs
	}
	return out
}

// exactUpTo is upToFairShare in exact arithmetic.
func (d *divider) exactUpTo(total *big.Rat, band []*xq) *big.Rat {
	k := ratFloat(d.k)
	for round := 0; round <= 4*len(band)+64; round++ {
		A := new(big.Rat).Set(total)
		T := new(big.Rat)
		for _, x := range band {
			if positive(x.remaining()) {
				T.Add(T, x.oqw)
			}
		}
		if T.Sign() == 0 {
			break
		}
		S := new(big.Rat)
		for _, x := range band {
			if x.satisfied() {
				continue
			}
			nw := new(big.Rat).Quo(x.oqw, T)
			t := new(big.Rat).Sub(nw, x.use)
			t.Mul(t, k).Add(t, nw)
			if t.Sign() < 0 {
				t.SetInt64(0)
			}
			x.sw = t
			S.Add(S, t)
		}
		if S.Sign() == 0 {
			break
		}
		another := false
		for _, x := range band {
			if total.Sign() == 0 {
				break
			}
			if x.satisfied() || x.oqw.Sign() == 0 {
				continue
			}
			req := x.remaining()
			s := new(big.Rat).Quo(x.sw, S)
			s.Mul(s, A)
			give := new(big.Rat)
			if req != nil && req.Cmp(s) <= 0 {
				give.Set(req)
				x.rem = nil
			} else {
				if fl := ratFloor(s); fl.Sign() > 0 {
					give = fl
				}
				if left := new(big.Rat).Sub(s, give); left.Sign() > 0 {
					x.rem = left
				}
			}
			if give.Sign() == 0 {
				continue
			}
			x.fs.Add(x.fs, give)
			total.Sub(total, give)
			another = another || (req != nil && req.Cmp(s) < 0)
		}
		if !another || total.Sign() == 0 {
			break
		}
	}
	return total
}

func ratFloor(s *big.Rat) *big.Rat {
	q := new(big.Int).Div(s.Num(), s.Denom()) // Euclidean: floor for a positive denominator
	return new(big.Rat).SetInt(q)
}

// exactLeftover is leftover in exact arithmetic.
func (d *divider) exactLeftover(total *big.Rat, band []*xq) *big.Rat {
	var ents []*xq
	for _, x := range band {
		if x.rem != nil {
			ents = append(ents, x)
		}
	}
	slices.SortFunc(ents, func(a, b *xq) int {
		if c := b.rem.Cmp(a.rem); c != 0 {
			return c
		}
		return d.byAge(a.i, b.i)
	})
	for _, x := range ents {
		if total.Sign() == 0 {
			break
		}
		give := ratOne
		if total.Cmp(ratOne) < 0 {
			give = total
		}
		x.fs.Add(x.fs, give)
		total = new(big.Rat).Sub(total, give)
	}
	return total
}

// compareExact runs the exact division of a level and records, for each
// sibling, whether KAI's float64 share differs from it. px is the parent's
// exact share where that differs from KAI's.
func (d *divider) compareExact(r int, total float64, sibs []int32, px *exactShare) error {
	var xt *big.Rat
	switch {
	case px != nil:
		xt = px.rat
	case d.nodes[sibs[0]].parent < 0 && !d.capEx[r]:
		xt = ratOf(**d.pool.Capacity.at(r), -shifts[r])
	}
	var got []*big.Rat
	if xt == nil || xt.IsInt() && xt.Num().IsInt64() {
		t := total
		if xt != nil {
			t = float64(xt.Num().Int64())
		}
		if ints, ok := d.exactLevelInt(r, t, sibs); ok {
			for j, i := range sibs {
				if float64(ints[j]) != d.st[i].fs {
					got = append(got[:0], make([]*big.Rat, len(sibs))...)
					break
				}
			}
			if got == nil {
				return nil // KAI's shares are the exact ones
			}
			for j := range sibs {
				got[j] = new(big.Rat).SetInt64(ints[j])
			}
		}
	}
	if got == nil {
		if xt == nil {
			xt = ratFloat(total)
		}
		got = d.exactLevel(r, xt, sibs)
	}
	if d.exact[r] == nil {
		d.exact[r] = map[int32]*exactShare{}
	}
	for j, i := range sibs {
		f := d.st[i].fs
		if ratFloat(f).Cmp(got[j]) == 0 {
			continue
		}
		x := &exactShare{rat: got[j]}
		v, err := ratValue(got[j], shifts[r])
		if err != nil {
			return err
		}
		if shown, _ := krm(int8(r), f); !shown.Equal(v) {
			x.shown = &v
		}
		d.exact[r][i] = x
	}
	return nil
}

// ratValue writes an exact share in KRM units (shift -6 for bytes → MB),
// rounded to quota.MaxDecimals digits after the point.
func ratValue(x *big.Rat, shift int32) (quota.Value, error) {
	y := new(big.Rat).Set(x)
	if shift < 0 {
		y.Quo(y, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil)))
	}
	return quota.Parse(y.FloatString(quota.MaxDecimals))
}
