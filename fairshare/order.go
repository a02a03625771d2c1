package fairshare

import (
	"math/rand/v2"
	"slices"
)

// orderRuns is how many other visiting orders compareOrders tries.
const orderRuns = 8

// compareOrders reruns a level's float64 division as KAI could run it in
// other scheduling cycles and marks OrderDependent every sibling whose
// share changes. KAI visits siblings in Go map order, which Go randomises
// on every range, and a float64 sum depends on the order of its terms.
// alts are the other values the share weights' sum takes in a round where
// that turns a comparison: each is rerun on its own. With shuffle, it also
// tries other visiting orders (reversed, rotated, shuffled with fixed
// seeds, so the marks are the same every time) for a level whose sums are
// not exact.
func (d *divider) compareOrders(r int, total float64, sibs []int32, alts []altSum, shuffle bool) {
	st := d.st
	saved := append(d.saveBuf[:0], make([]qs, len(sibs))...)
	for j, i := range sibs {
		saved[j] = st[i]
	}
	order := append(d.permBuf[:0], make([]int32, 2*len(sibs))...)
	band, deserved := order[:len(sibs)], order[len(sibs):]
	differs := make([]bool, len(sibs))
	rerun := func(all, band []int32, force *altSum) {
		var c check
		l := level{d: d, r: r, st: st, total: total, all: all, band: band, c: &c, force: force}
		l.run()
		for j, i := range sibs {
			differs[j] = differs[j] || st[i].fs != saved[j].fs
		}
	}
	for k := range alts {
		rerun(sibs, sibs, &alts[k])
	}
	for run := 0; shuffle && run < orderRuns; run++ {
		copy(band, sibs)
		copy(deserved, sibs)
		permute(run, band, d.nodes)
		permute(run+1, deserved, nil)
		rerun(deserved, band, nil)
	}
	for j, i := range sibs {
		st[i] = saved[j]
		st[i].orderDep = st[i].orderDep || differs[j]
	}
	d.saveBuf, d.permBuf = saved[:0], order[:0]
}

// permute reorders s for run number run; with nodes, only within each
// priority band (KAI keeps the bands in order and randomises inside them).
func permute(run int, s []int32, nodes []node) {
	rng := rand.New(rand.NewPCG(uint64(run), 0x6b6169))
	for lo := 0; lo < len(s); {
		hi := len(s)
		if nodes != nil {
			hi = lo + 1
			for hi < len(s) && nodes[s[hi]].prio == nodes[s[lo]].prio {
				hi++
			}
		}
		b := s[lo:hi]
		switch run {
		case 0:
			slices.Reverse(b)
		case 1:
			if len(b) > 1 {
				first := b[0]
				copy(b, b[1:])
				b[len(b)-1] = first
			}
		default:
			rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		}
		lo = hi
	}
}
