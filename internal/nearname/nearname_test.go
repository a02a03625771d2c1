package nearname

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"pretraining", "inference", "h100", "h200", "l40s", "research", "Department", "Project"}
	for _, c := range []struct{ name, want string }{
		{"pretrainig", "pretraining"},  // one letter left out
		{"pretrainign", "pretraining"}, // two swapped: two edits
		{"Inference", "inference"},     // case only
		{"h10", "h100"},                // one letter short: the first of two as near
		{"h300", ""},                   // one replaced in a short name: another card
		{"a100", ""},                   // likewise
		{"h1000", "h100"},              // one added
		{"l40", "l40s"},                // one left out of a short name
		{"H100", "h100"},               // case only, short or not
		{"reserch", "research"},        // one left out
		{"rsrch", ""},                  // three left out: too far
		{"departmnet", "Department"},   // two edits, any case
		{"Projects", "Project"},        // one added
		{"pretraining", ""},            // itself is no suggestion
		{"a", ""},                      // a one-letter name suggests nothing
		{"h1", ""},                     // two letters: one edit is half of it
		{"", ""},
	} {
		if got := Nearest(c.name, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"kai.resources", "kai.resources", 0},
		{"kai.resource", "kai.resources", 1},
		{"kai-resources", "kai.resources", 1},
		{"karpenter.sh", "kai.resources", 9},
		{"é", "e", 1}, // characters, not bytes
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
