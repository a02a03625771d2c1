package escape

import (
	"testing"
	"unicode/utf8"
)

func TestControls(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"workspace-rtx", "workspace-rtx"},
		{"a\tb", "a\tb"},
		{`back\slash "quoted" 'single'`, `back\slash "quoted" 'single'`},
		{"café → 4 cards — ✅", "café → 4 cards — ✅"},
		{"x\ny", `x\ny`},
		{"x\r\n", `x\r\n`},
		{"\x1b[2K\x1b[1A✅ all checks passed", `\x1b[2K\x1b[1A✅ all checks passed`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"evil\u202edoc.yaml", `evil\u202edoc.yaml`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`},
		{"\ufffd is text", "\ufffd is text"},
	} {
		if got := Controls(tc.in); got != tc.want {
			t.Errorf("Controls(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if Has(tc.in) != (tc.in != tc.want) {
			t.Errorf("Has(%q) = %v", tc.in, Has(tc.in))
		}
	}
}

// FuzzControls: the result of Controls is UTF-8 without a byte below 0x20
// but tab, without DEL and without a character Controls escapes, and a
// string that needs no escape comes back as it was.
func FuzzControls(f *testing.F) {
	for _, s := range []string{"a", "\x1b[31m", "\n\r\t", "\xff", "\u2028\u202e", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Controls(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Controls(%q) = %q is not UTF-8", s, got)
		}
		for _, r := range got {
			if unsafeRune(r) {
				t.Fatalf("Controls(%q) = %q keeps %U", s, got, r)
			}
		}
		if Has(s) == (got == s) {
			t.Fatalf("Has(%q) = %v, but Controls gives %q", s, Has(s), got)
		}
	})
}
