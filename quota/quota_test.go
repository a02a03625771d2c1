package quota

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

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

// TestPlainArithmetic: Plus and Minus read -1 as minus one, where Add and
// Sub read it as unlimited (Sub refuses it).
func TestPlainArithmetic(t *testing.T) {
	m1, two := MustParse("-1"), FromInt(2)
	for _, tc := range []struct {
		got  Value
		want string
	}{
		{m1.Plus(two), "1"},
		{MustParse("-3").Plus(two), "-1"},
		{m1.Minus(two), "-3"},
		{two.Minus(m1), "3"},
		{MustParse("0.1").Plus(MustParse("0.2")), "0.3"},
	} {
		if s := tc.got.String(); s != tc.want {
			t.Errorf("got %s, want %s", s, tc.want)
		}
	}
	if got := m1.Add(two); !got.IsUnlimited() {
		t.Errorf("Add(-1, 2) = %s, want unlimited", got)
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
	// Every spelling of -1 is unlimited, and nothing else is: not 1, not
	// -0, not a number near -1.
	for text, want := range map[string]bool{"-1": true, "-1.0": true, "-1.000": true, "-0.1e1": true, "-10e-1": true,
		"1": false, "1.0": false, "0": false, "-0": false, "-0.0": false, "-1.1": false, "-0.999999999999999999": false, "-2": false} {
		if got := MustParse(text).IsUnlimited(); got != want {
			t.Errorf("IsUnlimited(%s) = %v, want %v", text, got, want)
		}
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

// One rule for every reader: below 10^18 in magnitude, at most 18 digits
// after the decimal point once trailing zeros are dropped.
func TestParseRange(t *testing.T) {
	for _, ok := range []string{"999999999999999999", "-999999999999999999.999999999999999999", "0.000000000000000001",
		"1." + strings.Repeat("0", 98),
		"4.0000000000000000000000", "1e17", "0e-400", "0.0000000000000000000", "-1"} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"1e18":                  `"1e18" is too large: quota numbers must be below 10^18 in magnitude`,
		"1e30":                  `"1e30" is too large: quota numbers must be below 10^18 in magnitude`,
		"-1000000000000000000":  `"-1000000000000000000" is too large: quota numbers must be below 10^18 in magnitude`,
		"1e400000":              `"1e400000" is too large: quota numbers must be below 10^18 in magnitude`,
		"0.0000000000000000001": `"0.0000000000000000001" has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18`,
		"1e-19":                 `"1e-19" has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18`,
		"2.5e-400000":           `"2.5e-400000" has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18`,
		"0.3333333333333333333": `"0.3333333333333333333" has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18`,
		// Refused unread: reading millions of digits takes seconds.
		strings.Repeat("1", 101):     `"1111111111111111111111111111111111111111"… is 101 characters long: quota numbers are written in at most 100`,
		strings.Repeat("1", 3000000): `"1111111111111111111111111111111111111111"… is 3000000 characters long: quota numbers are written in at most 100`,
	} {
		_, err := Parse(in)
		var re *RangeError
		if !errors.As(err, &re) || err.Error() != want {
			t.Errorf("Parse(%q) = %v, want the RangeError %q", in, err, want)
		}
	}
	if _, err := Parse("1e"); err == nil || err.Error() != `"1e" is not a number` {
		t.Errorf("Parse(1e) = %v", err)
	}
}

// TestFromScaled: coeff × 10^exp is the Value Parse reads from
// "<coeff>e<exp>", and outside Parse's range it is refused.
func TestFromScaled(t *testing.T) {
	for _, tc := range []struct {
		coeff int64
		exp   int32
	}{{15, -1}, {0, 3}, {-1, 0}, {-2500, -3}, {56, 9}, {1, -18}, {999999999999999999, 0}, {1, 18}, {1, -19}, {-3, 20}} {
		text := fmt.Sprintf("%de%d", tc.coeff, tc.exp)
		want, err := Parse(text)
		got, ok := FromScaled(tc.coeff, tc.exp)
		if ok != (err == nil) || (ok && (got.Cmp(want) != 0 || got.String() != want.String())) {
			t.Errorf("FromScaled(%d, %d) = %s, %v; Parse(%q) = %s, %v", tc.coeff, tc.exp, got, ok, text, want, err)
		}
	}
}

// TestIntegerText: String's shortcut for integers prints what the general
// path (reduce, then plain notation) prints, for every value it takes,
// and it takes the integers a tenancy is written with.
func TestIntegerText(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	texts := []string{"0", "-0", "-1", "4", "4.0", "1e3", "100", "0.5", "-2.50", "999999999999999999", "-999999999999999999", "1e17", "0e5", "0.000"}
	for i := 0; i < 5000; i++ {
		n := r.Int63n(1 << uint(1+r.Intn(59)))
		if r.Intn(2) == 0 {
			n = -n
		}
		texts = append(texts, fmt.Sprint(n), fmt.Sprintf("%d.%d", n, r.Intn(100)), fmt.Sprintf("%de%d", n%1000, r.Intn(5)))
	}
	took := 0
	for _, text := range texts {
		v, err := Parse(text)
		if err != nil {
			continue
		}
		if s, ok := v.integerText(); ok {
			took++
			if want := v.reducedText(); s != want {
				t.Fatalf("%q: the shortcut prints %q, the general path %q", text, s, want)
			}
		}
		if got, want := v.String(), v.reducedText(); got != want {
			t.Fatalf("%q: String %q, want %q", text, got, want)
		}
	}
	if took < 5000 {
		t.Fatalf("the shortcut took only %d values", took)
	}
}

// A JSON string is refused, with advice only when it holds a number.
func TestUnmarshalJSONString(t *testing.T) {
	for in, want := range map[string]string{
		`"4"`:     `the string "4": write the number unquoted`,
		`"eight"`: `the string "eight" is not a number`,
	} {
		var v Value
		if err := v.UnmarshalJSON([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", in, err, want)
		}
	}
}

// A quoted number too long to read is named by its first characters.
func TestUnmarshalLongString(t *testing.T) {
	var v Value
	err := v.UnmarshalJSON([]byte(`"` + strings.Repeat("9", 5000) + `"`))
	want := `the string "9999999999999999999999999999999999999999"… is not a number`
	if err == nil || err.Error() != want {
		t.Errorf("UnmarshalJSON = %v, want %q", err, want)
	}
}
