package fairshare

import (
	"os"

	"github.com/krmplan/krmplan/quota"
	"path/filepath"
	"testing"
)

// TestKAIRandom compares the division with KAI's on the pools of
// testdata/kai-random (see its README), every queue and resource: the
// share must be KAI's, except where KAI's own float64 result depends on
// the order its Go maps are visited in (Go randomises it), which must be
// marked OrderDependent. KAI ran every pool several times; where its runs
// disagreed, our share must be one of its results and every queue whose
// share differed between its runs must be marked.
func TestKAIRandom(t *testing.T) {
	files, _ := filepath.Glob("testdata/kai-random/*.json")
	if extra := os.Getenv("FAIRSHARE_KAI_CASES"); extra != "" {
		files = []string{extra}
	}
	if len(files) == 0 {
		t.Fatal("no cases in testdata/kai-random")
	}
	var n, same, variant, marked int
	for _, f := range files {
		for _, c := range readCases(t, f) {
			n++
			switch checkAgainstKAI(t, c) {
			case 0:
				same++
			case 1:
				variant++
			case 2:
				marked++
			}
		}
	}
	t.Logf("%d pools: %d as KAI's first run, %d as another of KAI's runs, %d differ only where marked OrderDependent", n, same, variant, marked)
}

// checkAgainstKAI returns 0 when the division equals KAI's first run, 1
// when it equals another run, 2 when it differs only in shares marked
// OrderDependent, and fails the test otherwise.
func checkAgainstKAI(t *testing.T, c caseFile) int {
	t.Helper()
	res, err := Divide(c.pool(t))
	if err != nil {
		t.Errorf("%s: %v", c.Name, err)
		return -1
	}
	have := got(res)
	byName := map[string]*QueueShare{}
	for i := range res.Queues {
		q := &res.Queues[i]
		byName[q.Name] = q
		if q.Dropped != "" {
			delete(have, q.Name) // not in KAI's session at all
		}
	}
	for _, v := range c.Variants {
		for name, w := range v {
			e := c.Expected[name]
			for r := range 3 {
				if w.text(r) != e.text(r) && !byName[name].Share.at(r).Float.OrderDependent {
					t.Errorf("%s: %s %s: KAI gave %s and %s on different runs, not marked OrderDependent",
						c.Name, name, quota.Resources[r], e.text(r), w.text(r))
				}
			}
		}
	}
	for i, want := range append([]map[string]caseAmount{c.Expected}, c.Variants...) {
		if len(diff(want, have)) == 0 {
			return min(i, 1)
		}
	}
	ok := true
	for name, w := range c.Expected {
		q, found := byName[name]
		if !found || q.Dropped != "" {
			t.Errorf("%s: %s is in KAI's result, dropped here", c.Name, name)
			ok = false
			continue
		}
		h := have[name]
		for r := range 3 {
			if w.text(r) != h.text(r) && !q.Share.at(r).Float.OrderDependent {
				t.Errorf("%s: %s %s: KAI %s, got %s (%+v)", c.Name, name, quota.Resources[r], w.text(r), h.text(r), q.Share.at(r).Float)
				ok = false
			}
		}
	}
	if len(have) != len(c.Expected) {
		t.Errorf("%s: %d queues divided, KAI divides %d", c.Name, len(have), len(c.Expected))
	}
	if !ok {
		return -1
	}
	return 2
}
