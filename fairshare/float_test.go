package fairshare

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/quota"
)

// TestFloatMarks: pools where KAI's float64 result differs from exact
// arithmetic, or depends on KAI's map order. Every value was confirmed by
// KAI's own code (200 runs each; the order-dependent ones gave both
// values named).
func TestFloatMarks(t *testing.T) {
	for _, c := range []struct {
		why      string
		capacity string
		queues   []string
		want     string
	}{
		{"1.1 − 0.3 − 0.5 is 0.30000000000000004: the leftover hands that to a", "1.1",
			[]string{"a d=0.3 l=-1 w=1 full", "b d=0.5 l=-1 w=1 full"},
			"a=0.6000000000000001 (exact 0.6) b=0.5"},
		{"the same through a whole round", "10",
			[]string{"a d=0.3 l=-1 w=1 req=0.1", "b d=0.3 l=-1 w=1 full", "c d=0.7 l=-1 full"},
			"a=0.1 b=9.200000000000001 (exact 9.2) c=0.7"},
		{"0.2 + 0.2 left 0.7000000000000001 for a queue of weight 1", "1.1",
			[]string{"a d=0.2 l=-1 w=1 full", "b d=0.2 l=-1 req=1"},
			"a=0.9000000000000001 (exact 0.9) b=0.2"},
		{"KAI gives b 1 or 1.0000000000000002 as its map order varies", "1.1",
			[]string{"a d=0.1 l=-1 req=2", "b d=0.2 l=-1 w=1 full"},
			"a=0.1 b=1 (order)"},
		{"KAI gives b 0.7000000000000001 or 0.6999999999999998", "3",
			[]string{"a d=0.3 l=-1 w=1 full", "b d=0.1 l=-1 w=1 full", "c d=1 l=-1 w=1 full"},
			"a=1.3 b=0.7000000000000001 (exact 0.7, order) c=1"},
		{"nine shares of 0.9999999999999997 floor to 0, and the leftover step gives each its card", "9",
			[]string{"a l=-1 w=1 full", "b l=-1 w=1 full", "c l=-1 w=1 full", "d l=-1 w=1 full", "e l=-1 w=1 full",
				"f l=-1 w=1 full", "g l=-1 w=1 full", "h l=-1 w=1 full", "i l=-1 w=1 full"},
			"a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1"},
	} {
		res, err := Divide(gpuPool(t, c.capacity, c.queues...))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, q := range res.Queues {
			s := q.Share.GPU
			var marks []string
			if s.Float.Exact != nil {
				marks = append(marks, "exact "+s.Float.Exact.String())
			}
			if s.Float.OrderDependent {
				marks = append(marks, "order")
			}
			v := q.Name + "=" + s.FairShare().String()
			if len(marks) > 0 {
				v += fmt.Sprintf(" (%s)", strings.Join(marks, ", "))
			}
			got = append(got, v)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.why, g, c.want)
		}
	}
}

// TestExactIntegers: the integer division (exactint.go) and the rational
// one (exact.go) agree on random whole-number levels.
func TestExactIntegers(t *testing.T) {
	for seed := range 300 {
		p := randomIntPool(uint64(seed))
		d := dividers.Get().(*divider)
		if err := d.init(&p, nil); err != nil {
			t.Fatal(err)
		}
		if err := d.convert(); err != nil {
			t.Fatal(err)
		}
		d.load(0)
		var c check
		l := level{d: d, st: d.st, total: d.cap[0], all: d.top, band: d.top, c: &c}
		l.run()
		ints, ok := d.exactLevelInt(0, d.cap[0], d.top)
		if !ok {
			t.Fatalf("seed %d: the integer division refused a whole-number level", seed)
		}
		rats := d.exactLevel(0, ratFloat(d.cap[0]), d.top)
		for j := range ints {
			if rats[j].Cmp(ratFloat(float64(ints[j]))) != 0 {
				t.Errorf("seed %d: queue %s: integers give %d, rationals %s", seed, d.nodes[d.top[j]].name, ints[j], rats[j].RatString())
			}
		}
		dividers.Put(d)
	}
}

// randomIntPool is a flat pool of whole-number quotas, weights (0 and
// negative ones included), priorities and demands.
func randomIntPool(seed uint64) Pool {
	r := newRand(seed)
	c := quota.FromInt(int64(r.IntN(40)))
	p := Pool{Capacity: PerResource[*quota.Value]{GPU: &c}}
	for i := range 1 + r.IntN(7) {
		q := Queue{Name: fmt.Sprintf("q%d", i)}
		q.Quota.GPU = Quota{quota.FromInt(int64(r.IntN(8) - 1)), quota.FromInt(int64(r.IntN(20) - 1)), quota.FromInt(int64(r.IntN(5) - 1))}
		if r.IntN(3) > 0 {
			q.Demand.GPU = Full
		} else {
			q.Demand.GPU = Demand{Amount: quota.FromInt(int64(r.IntN(10)))}
		}
		if r.IntN(3) == 0 {
			prio := 50 * r.IntN(4)
			q.Priority = &prio
		}
		p.Queues = append(p.Queues, q)
	}
	return p
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 21)) }
