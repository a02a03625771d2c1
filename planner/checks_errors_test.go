package planner

import (
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

// sameErrors fails unless errs (checkErrors' answer) is exactly the error
// findings of all (Check's answer), in the same order, with the same
// messages and locations.
func sameErrors(t *testing.T, all, errs []Finding) {
	t.Helper()
	want := slices.DeleteFunc(slices.Clone(all), func(f Finding) bool { return f.Level != LevelError })
	if len(want) == 0 && len(errs) == 0 {
		return
	}
	if !reflect.DeepEqual(errs, want) {
		t.Fatalf("checkErrors:\n got %q\nwant %q", messages(errs), messages(want))
	}
}

// TestCheckErrorsIsCheckFiltered: the checks that checkErrors leaves out
// make no error, on random messy tenancies and the targets of random
// changes to them, whose errors are of every kind. 500 tenancies; 50
// under -short.
func TestCheckErrorsIsCheckFiltered(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	codes := map[string]bool{}
	for i := 0; i < cases(500); i++ {
		before := messyTenancy(t, r)
		target, _, _, diags := applyOverlay(before, messyOverlay(r, before))
		all := Check(before, nil)
		sameErrors(t, all, checkErrors(before))
		if !diags.HasErrors() {
			tf := Check(target, nil)
			sameErrors(t, tf, checkErrors(target))
			all = append(all, tf...)
		}
		for _, f := range all {
			if f.Level == LevelError {
				codes[string(f.Code)] = true
			}
		}
	}
	t.Logf("errors made: %v", codes)
	if len(codes) < 8 {
		t.Fatalf("the cases make only these errors: %v", codes)
	}
}
