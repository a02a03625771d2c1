package preview

import (
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/internal/gentenancy"
)

// TestDivideAllAsOneAfterAnother: the pools divided on every core, each
// run of pools by a builder of its own, are the pools divided one after
// the other by one builder reusing its scratch, as of did before.
func TestDivideAllAsOneAfterAnother(t *testing.T) {
	gt := gentenancy.Generate(gentenancy.Spec{Projects: 1000, Seed: gentenancy.BenchSeed})
	st, _, err := gt.State()
	if err != nil {
		t.Fatal(err)
	}
	c := clusterOf(st, nil, nil)
	got, err := of(st, Full, nil, c, false)
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{s: st, d: Full, live: c.live, pools: map[string][]entry{}}
	b.collect()
	if len(b.poolNames) < 4*minPoolsPerWorker {
		t.Fatalf("%d pools: too few to be divided on more than one core", len(b.poolNames))
	}
	if len(got.Pools) != len(b.poolNames) {
		t.Fatalf("%d pools divided, %d in the tenancy", len(got.Pools), len(b.poolNames))
	}
	for i, name := range b.poolNames {
		want, err := b.pool(name, c.caps)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Pools[i], want) {
			t.Fatalf("pool %s divided on its core:\n%+v\none after the other:\n%+v", name, got.Pools[i], want)
		}
	}
}
