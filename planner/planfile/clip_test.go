package planfile

import "testing"

// clip keeps the first n runes as []rune reads them, a byte that is not
// UTF-8 included (U+FFFD), and the whole of a text of n runes or fewer.
func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc… (4 bytes)"},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "ééé… (8 bytes)"},
		{"a\xffbc", 2, "a\uFFFD… (4 bytes)"},
		{"a\xffb", 3, "a\xffb"},
	} {
		if got := clip(c.s, c.n); got != c.want {
			t.Errorf("clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
