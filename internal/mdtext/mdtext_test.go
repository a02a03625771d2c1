package mdtext

import "testing"

func TestEscapeCodeFence(t *testing.T) {
	if got, want := Escape("a|b <script> *x* _y_ [l](u) & `c` \x1b[2K"), "a\\|b \\<script\\> \\*x\\* \\_y\\_ \\[l\\](u) &amp; \\`c\\` \\\\x1b\\[2K"; got != want {
		t.Errorf("Escape = %s, want %s", got, want)
	}
	for in, want := range map[string]string{"": "` `", "a|b": "`a\\|b`", "x`y": "``x`y``", "`q": "`` `q ``"} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Fence("a\n````\nb"); got != "`````" {
		t.Errorf("Fence = %s", got)
	}
}
