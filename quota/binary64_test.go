package quota

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestBinary64(t *testing.T) {
	for _, c := range []struct {
		text  string
		shift int32
		want  float64
		exact bool
	}{
		{"4", 0, 4, true},
		{"0.5", 0, 0.5, true},
		{"0.1", 0, 0.1, false},
		{"0.1", 6, 100000, true},
		{"0.0000001", 6, 0.1, false},
		{"512000", 6, 512e9, true},
		{"-1", 6, -1e6, true},
		{"-1", 0, -1, true},
		{"9007199254740993", 0, 9007199254740992, false}, // 2^53+1 rounds to even
		{"123456789012345678", 0, 123456789012345680, false},
		{"0.000000000000000001", 0, 1e-18, false},
		{"0.000000000000000001", 24, 1e6, true},
		{"0.3", 0, 0.3, false},
		{"2.25", 0, 2.25, true},
	} {
		f, exact := MustParse(c.text).Binary64(c.shift)
		if f != c.want || exact != c.exact {
			t.Errorf("Binary64(%s, %d) = %v, %v; want %v, %v", c.text, c.shift, f, exact, c.want, c.exact)
		}
		p, err := strconv.ParseFloat(c.text+"e"+strconv.Itoa(int(c.shift)), 64)
		if err != nil || p != f {
			t.Errorf("Binary64(%s, %d) = %v, ParseFloat says %v (%v)", c.text, c.shift, f, p, err)
		}
	}
}

func TestFromFloat64(t *testing.T) {
	a, b := 0.1, 0.2 // variables: a constant 0.1+0.2 is exact
	for _, c := range []struct {
		f       float64
		shift   int32
		want    string
		rounded bool
	}{
		{4, 0, "4", false},
		{a + b, 0, "0.30000000000000004", false},
		{8277333333334, -6, "8277333.333334", false},
		{100000.00000000001, -6, "0.10000000000000001", false},
		{1.5, 0, "1.5", false},
		{-1, 0, "-1", false},
		{3e-7, -6, "0.0000000000003", false},
		{0.30000000000000004, -6, "0.0000003", true},
		{1e17, 0, "100000000000000000", false},
	} {
		v, rounded, err := FromFloat64(c.f, c.shift)
		if err != nil || v.String() != c.want || rounded != c.rounded {
			t.Errorf("FromFloat64(%v, %d) = %s, %v, %v; want %s, %v", c.f, c.shift, v, rounded, err, c.want, c.rounded)
		}
	}
	for _, f := range []float64{1e18, -2e18, 1e30} {
		var re *RangeError
		if _, _, err := FromFloat64(f, 0); !errors.As(err, &re) {
			t.Errorf("FromFloat64(%v) = %v, want a RangeError", f, err)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if _, _, err := FromFloat64(f, 0); err == nil {
			t.Errorf("FromFloat64(%v) succeeded", f)
		}
	}
}

// TestFloat64AsParsed: Float64, made by Binary64's fast path for most
// values, is the float64 that strconv.ParseFloat reads for the value's
// text, as it was when Float64 read the text: for random values of every
// form a quota number takes (integers, fractions, trailing zeros, -1, 0,
// the largest in range) and for their sums, whose exponents differ.
func TestFloat64AsParsed(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	texts := []string{"0", "-0", "-1", "1", "0.1", "0.30", "999999999999999999.999999999999999999", "-999999999999999999", "0.000000000000000001", "9007199254740993", "1e17"}
	for range 20000 {
		digits := strconv.FormatUint(rng.Uint64N(1<<uint(rng.IntN(60)+1)), 10)
		if point := rng.IntN(len(digits) + 3); point < len(digits) && len(digits)-point <= MaxDecimals {
			digits = digits[:point] + "." + digits[point:]
			if digits[0] == '.' {
				digits = "0" + digits
			}
		}
		if rng.IntN(4) == 0 {
			digits = "-" + digits
		}
		texts = append(texts, digits)
	}
	sum := Zero
	for _, text := range texts {
		v, err := Parse(text)
		if err != nil {
			continue // out of range: no quota value has it
		}
		if !v.IsNegative() {
			sum = sum.Add(v) // -1 would make every later sum unlimited
		}
		for _, x := range []Value{v, sum} {
			want, err := strconv.ParseFloat(x.d.String(), 64)
			if got := x.Float64(); err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("Float64(%s) = %v (bits %x), ParseFloat says %v (bits %x, %v)", x.d.String(), got, math.Float64bits(got), want, math.Float64bits(want), err)
			}
		}
	}
}
