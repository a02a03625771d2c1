package hcllimit

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// fastCollection converts as cty does: the same value, or an error where
// cty has one, on tuples and objects of elements of a few kinds.
func TestFastCollectionIsCty(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	kinds := []func(i int) cty.Value{
		func(i int) cty.Value { return cty.NumberIntVal(int64(i)) },
		func(i int) cty.Value { return cty.StringVal(fmt.Sprint("s", i%7)) },
		func(i int) cty.Value { return cty.BoolVal(i%2 == 0) },
		func(i int) cty.Value { return cty.ObjectVal(map[string]cty.Value{"a": cty.NumberIntVal(int64(i))}) },
		func(i int) cty.Value { return cty.TupleVal([]cty.Value{cty.StringVal("x")}) },
	}
	for round := range 200 {
		n := 64 + r.Intn(100)
		pick := []int{r.Intn(len(kinds))}
		if round%2 == 1 {
			pick = append(pick, r.Intn(len(kinds)))
		}
		els := make([]cty.Value, n)
		attrs := map[string]cty.Value{}
		for i := range els {
			els[i] = kinds[pick[r.Intn(len(pick))]](i)
			attrs[fmt.Sprint("k", i)] = els[i]
		}
		for _, c := range []struct {
			v  cty.Value
			ty cty.Type
		}{
			{cty.TupleVal(els), cty.List(cty.DynamicPseudoType)},
			{cty.TupleVal(els), cty.Set(cty.DynamicPseudoType)},
			{cty.ObjectVal(attrs), cty.Map(cty.DynamicPseudoType)},
		} {
			if !fastPath(c.v, c.ty) {
				t.Fatalf("round %d: no fast path for %s", round, c.ty.FriendlyName())
			}
			want, werr := convert.Convert(c.v, c.ty)
			got, gerr := fastCollection(c.v, c.ty)
			if (werr == nil) != (gerr == nil) || (werr == nil && !got.RawEquals(want)) {
				t.Errorf("round %d, %s of %v: got %#v, %v; cty %#v, %v", round, c.ty.FriendlyName(), pick, got.Type(), gerr, want.Type(), werr)
			}
		}
	}
}
