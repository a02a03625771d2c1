package planner

import (
	"math/rand"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestPlainLabelShortcut: the shortcut of the name checks never calls a
// name valid that the validation package refuses, and it takes most
// names of a tenancy; with it, the checks give the validation package's
// answer, messages included.
func TestPlainLabelShortcut(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	alphabet := "abz09-.A_"
	names := []string{"", "a", "-", "a-", "-a", "a.b", "research-h100", "UPPER", strings.Repeat("a", 63), strings.Repeat("a", 64),
		strings.Repeat("a", 253), strings.Repeat("a", 254), "a..b", "a_b", "ü"}
	for i := 0; i < 20000; i++ {
		n := r.Intn(8)
		if r.Intn(50) == 0 {
			n = 60 + r.Intn(200)
		}
		var b strings.Builder
		for j := 0; j < n; j++ {
			b.WriteByte(alphabet[r.Intn(len(alphabet))])
		}
		names = append(names, b.String())
	}
	plain := 0
	for _, s := range names {
		if plainLabel(s) {
			plain++
			if len(validation.IsDNS1123Label(s)) > 0 || len(validation.IsDNS1123Subdomain(s)) > 0 {
				t.Fatalf("%q: the shortcut calls it valid, the validation package does not", s)
			}
		}
		if got, want := strings.Join(dns1123Subdomain(s), "; "), strings.Join(validation.IsDNS1123Subdomain(s), "; "); got != want {
			t.Fatalf("%q: subdomain %q, want %q", s, got, want)
		}
		if got, want := strings.Join(dns1123Label(s), "; "), strings.Join(validation.IsDNS1123Label(s), "; "); got != want {
			t.Fatalf("%q: label %q, want %q", s, got, want)
		}
	}
	if plain < 1000 {
		t.Fatalf("the shortcut took only %d names", plain)
	}
}
