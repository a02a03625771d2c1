package fairshare

import (
	"fmt"
	"strings"
	"testing"
)

// describe prints a trace one step a line, then one line per round.
func describe(tr Trace) string {
	var b strings.Builder
	for _, s := range tr.Steps {
		demand := "unbounded"
		if !s.Demand.Unbounded {
			demand = s.Demand.Amount.String()
		}
		fmt.Fprintf(&b, "%s under %q: divides %s among %d; band %d (%d queues, %d above); deserved %s (all: %v) limit %s weight %s demand %s; guaranteed %s (%s); surplus %s, band's %s; leftover %s; share %s: %s\n",
			s.Queue, s.Parent, s.Divided, s.Siblings, s.Priority, s.BandSize, s.HigherBands,
			s.Deserved, s.DeservedIsAll, s.Limit, s.OverQuotaWeight, demand, s.Guaranteed, s.GuaranteeCap,
			s.Surplus, s.BandSurplus, s.Leftover, s.Share.FairShare(), s.Stop)
		for _, r := range s.Rounds {
			fmt.Fprintf(&b, "  round %d: %s × %.4f = %s, given %s, remainder %s\n", r.N, r.Available, r.Fraction, r.Offered, r.Given, r.Remainder)
		}
	}
	return b.String()
}

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		capacity string
		queues   []string
		queue    string
		want     string
	}{
		{"10", []string{"a l=-1 w=1 req=2", "b l=-1 w=1 full", "c l=-1 w=1 full"}, "b",
			`b under "": divides 10 among 3; band 100 (3 queues, 0 above); deserved 0 (all: false) limit -1 weight 1 demand unbounded; guaranteed 0 (deserved); surplus 10, band's 10; leftover 0; share 4: the surplus was shared out by weight
  round 1: 10 × 0.3333 = 3.333333333333333, given 3, remainder 0.33333333333333304
  round 2: 2 × 0.5000 = 1, given 1, remainder 0
`},
		{"10", []string{"a l=-1 w=1 req=2", "b l=-1 w=1 full", "c l=-1 w=1 full"}, "a",
			`a under "": divides 10 among 3; band 100 (3 queues, 0 above); deserved 0 (all: false) limit -1 weight 1 demand 2; guaranteed 0 (deserved); surplus 10, band's 10; leftover 0; share 2: its demand is met
  round 1: 10 × 0.3333 = 3.333333333333333, given 2, remainder 0
`},
		{"10", []string{"d d=2 l=4 w=1", "k1 d=3 l=-1 w=1 parent=d full", "k2 d=3 l=-1 w=1 parent=d full", "root l=-1 w=1 full"}, "k2",
			`d under "": divides 10 among 2; band 100 (2 queues, 0 above); deserved 2 (all: false) limit 4 weight 1 demand unbounded; guaranteed 2 (deserved); surplus 8, band's 8; leftover 0; share 4: it reached its limit
  round 1: 8 × 0.5000 = 4, given 2, remainder 0
k2 under "d": divides 4 among 2; band 100 (2 queues, 0 above); deserved 3 (all: false) limit -1 weight 1 demand unbounded; guaranteed 3 (deserved); surplus 0, band's 0; leftover 0; share 3: the guarantees used up everything divided at its level
`},
		{"20", []string{"high d=2 l=-1 w=1 p=200 full", "low d=2 l=-1 w=1 full"}, "low",
			`low under "": divides 20 among 2; band 100 (1 queues, 1 above); deserved 2 (all: false) limit -1 weight 1 demand unbounded; guaranteed 2 (deserved); surplus 16, band's 0; leftover 0; share 2: higher-priority queues took the surplus
`},
		{"10", []string{"a d=1 l=-1 full", "b d=5 l=2 w=1 full", "c d=-1 l=-1 w=1 req=3"}, "a",
			`a under "": divides 10 among 3; band 100 (3 queues, 0 above); deserved 1 (all: false) limit -1 weight 0 demand unbounded; guaranteed 1 (deserved); surplus 4, band's 4; leftover 0; share 1: overQuotaWeight 0: it never borrows
`},
		{"10", []string{"a d=1 l=-1 full", "b d=5 l=2 w=1 full", "c d=-1 l=-1 w=1 req=3"}, "b",
			`b under "": divides 10 among 3; band 100 (3 queues, 0 above); deserved 5 (all: false) limit 2 weight 1 demand unbounded; guaranteed 2 (limit); surplus 4, band's 4; leftover 0; share 2: it reached its limit
`},
		{"10", []string{"a d=1 l=-1 full", "b d=5 l=2 w=1 full", "c d=-1 l=-1 w=1 req=3"}, "c",
			`c under "": divides 10 among 3; band 100 (3 queues, 0 above); deserved 10 (all: true) limit -1 weight 1 demand 3; guaranteed 3 (demand); surplus 4, band's 4; leftover 0; share 3: its demand is met
`},
		{"3", []string{"a l=-1 w=1 full", "b l=-1 w=1 full t=2025-01-01T00:00:00Z"}, "b",
			`b under "": divides 3 among 2; band 100 (2 queues, 0 above); deserved 0 (all: false) limit -1 weight 1 demand unbounded; guaranteed 0 (deserved); surplus 3, band's 3; leftover 1; share 2: the surplus was shared out by weight
  round 1: 3 × 0.5000 = 1.5, given 1, remainder 0.5
`},
	} {
		p := gpuPool(t, c.capacity, c.queues...)
		e, err := Explain(p, c.queue)
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(e.Resources.GPU); got != c.want {
			t.Errorf("%v, %s:\ngot\n%s\nwant\n%s", c.queues, c.queue, got, c.want)
		}
		if e.Resources.CPU.Known || len(e.Resources.CPU.Steps) != 0 {
			t.Errorf("cpu of unknown capacity explained: %+v", e.Resources.CPU)
		}
		res, _ := Divide(p)
		for _, q := range res.Queues {
			if q.Name == c.queue && q.Share.GPU != e.Resources.GPU.Steps[len(e.Resources.GPU.Steps)-1].Share {
				t.Errorf("%s: Explain's share %+v, Divide's %+v", c.queue, e.Resources.GPU.Steps[0].Share, q.Share.GPU)
			}
		}
	}
}

func TestExplainErrors(t *testing.T) {
	p := gpuPool(t, "1", "a l=-1 full", "o parent=gone")
	if _, err := Explain(p, "x"); err == nil || err.Error() != `no queue "x" in the pool` {
		t.Errorf("unknown queue: %v", err)
	}
	e, err := Explain(p, "o")
	if err != nil || e.Dropped != `its parent queue "gone" is not in the pool: KAI deletes it with its descendants` || len(e.Resources.GPU.Steps) != 0 {
		t.Errorf("dropped queue: %+v, %v", e, err)
	}
}
