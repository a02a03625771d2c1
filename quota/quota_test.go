package quota

import "testing"

func TestExactSums(t *testing.T) {
	sum := Sum(MustParse("0.1"), MustParse("0.2"))
	if got := sum.Cmp(MustParse("0.3")); got != 0 {
		t.Fatalf("0.1+0.2 vs 0.3: Cmp = %d, want 0", got)
	}
	if got := sum.String(); got != "0.3" {
		t.Fatalf("0.1+0.2 = %q, want 0.3", got)
	}
	three := Sum(MustParse("0.34"), MustParse("0.34"), MustParse("0.34"))
	if got := Amount(GPU, three.Sub(FromInt(1))); got != "0.02 cards" {
		t.Fatalf("over = %q, want 0.02 cards", got)
	}
}

func TestUnlimited(t *testing.T) {
	s := Sum(FromInt(4), Unlimited, FromInt(1))
	if !s.IsUnlimited() || Amount(GPU, s) != "unlimited" {
		t.Fatalf("sum with -1 = %s (%s), want unlimited", s, Amount(GPU, s))
	}
	if Unlimited.Cmp(MustParse("1e9")) != 1 || FromInt(3).Cmp(Unlimited) != -1 || Unlimited.Cmp(Unlimited) != 0 {
		t.Fatal("-1 must compare as +∞")
	}
	if MustParse("-2").Cmp(Zero) != -1 {
		t.Fatal("-2 is a plain negative number, below 0")
	}
}

func TestParseAndPrint(t *testing.T) {
	for in, want := range map[string]string{"4": "4", "4.0": "4", "1e1": "10", "0.50": "0.5", "-1": "-1", "-0": "0", "0.000": "0"} {
		v, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if v.String() != want {
			t.Errorf("Parse(%q).String() = %q, want %q", in, v.String(), want)
		}
	}
	for _, bad := range []string{"", "four", `"4"`, "NaN", "Infinity", "4 cards"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", bad)
		}
	}
	if got := Amount(GPU, FromInt(1)); got != "1 card" {
		t.Errorf("Amount(1) = %q", got)
	}
	if got := Amount(Memory, FromInt(2048)); got != "2048 MB" {
		t.Errorf("Amount(memory) = %q", got)
	}
}
