package krmunits

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/quota"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestFromQuantityFastPath: FromQuantity gives exactly the
// Value (and the same error) that the general path, quota.Parse of the
// scaled number's text, gives: for the quantities a scheduler writes, and
// for ones at the edges of the range (too large, too precise, beyond int64).
func TestFromQuantityFastPath(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	texts := []string{"0", "1", "2", "0.5", "1500m", "3Gi", "500M", "1e9", "1024", "56Gi", "-1", "-2500m", "1n", "999999999999999999",
		"1e18", "1e17", "100Ei", "0.000000001", "123456789012345678901234567890", "1.000", "7k", "2Ki", "1e-3"}
	suffixes := []string{"", "m", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti", "n", "u", "e3", "e-6"}
	for i := 0; i < 3000; i++ {
		n := r.Int63n(1 << uint(r.Intn(62)+1))
		text := fmt.Sprint(n) + suffixes[r.Intn(len(suffixes))]
		if r.Intn(4) == 0 {
			text = fmt.Sprintf("%d.%03d", n%100000, r.Intn(1000))
		}
		texts = append(texts, text)
	}
	checked := 0
	for _, text := range texts {
		for _, res := range quota.Resources {
			got, err := FromQuantity(res, text)
			q, perr := resource.ParseQuantity(text)
			if perr != nil {
				if err == nil {
					t.Fatalf("%s %q: accepted, but it is not a quantity", res, text)
				}
				continue
			}
			d := q.AsDec()
			want, werr := scaledByText(res, text, d.UnscaledBig(), int64(unitShift(res))-int64(d.Scale()))
			if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) || got.String() != want.String() {
				t.Fatalf("%s %q: got %v, %v; the general path gives %v, %v", res, text, got, err, want, werr)
			}
			checked++
		}
	}
	if checked < 5000 {
		t.Fatalf("only %d quantities compared", checked)
	}
}
