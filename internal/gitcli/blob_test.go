package gitcli

import "testing"

// HoldsBlob knows git's ids of the empty blob in both object formats.
func TestHoldsBlob(t *testing.T) {
	for _, c := range []struct {
		b    string
		id   string
		want bool
	}{
		{"", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", true},
		{"", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813", true},
		{"x", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", false},
		{"x", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813", false},
	} {
		if got := HoldsBlob([]byte(c.b), c.id); got != c.want {
			t.Errorf("HoldsBlob(%q, %s) = %v", c.b, c.id, got)
		}
	}
}
