package sortby

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

type item struct {
	name string
	at   int // where it came: equal names keep this order
}

// Key gives the order of a stable sort: by name, equal names in the order
// they came.
func TestKeyIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 5, 100, 3000} {
		list := make([]item, n)
		for i := range list {
			list[i] = item{name: fmt.Sprintf("n%d", r.IntN(max(1, n/3))), at: i}
		}
		want := slices.Clone(list)
		slices.SortStableFunc(want, func(a, b item) int { return strings.Compare(a.name, b.name) })
		Key(list, func(e *item) string { return e.name })
		if !slices.Equal(list, want) {
			t.Fatalf("n=%d: Key is not the stable order", n)
		}
		Key(list, func(e *item) string { return e.name }) // sorted already: stays
		if !slices.Equal(list, want) {
			t.Fatalf("n=%d: Key moved a sorted list", n)
		}
	}
}
