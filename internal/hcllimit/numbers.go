package hcllimit

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/krmplan/krmplan/quota"
)

// maxSignificant is the number of significant digits a computed number is
// rounded to when its shortest exact text is longer: cty computes with
// 512-bit binary floats, so 0.1+0.2 is 0.3 plus binary noise in the 150th
// digit. 34 digits is decimal128's precision.
const maxSignificant = 34

// decimalText returns the shortest decimal text that reads back as f at its
// precision, or f rounded to maxSignificant digits when that text is longer.
// The text is in e-notation ("3.2e+01"); f must be finite.
func decimalText(f *big.Float) string {
	s := f.Text('e', -1)
	mant := s
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant = s[:i]
	}
	digits := 0
	for _, c := range mant {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if digits > maxSignificant {
		s = f.Text('e', maxSignificant-1)
	}
	return s
}

// NumberString prints a cty number for a message (and for HCL literal
// text). A number beyond
// 2^±4096 (only a source that breaks the limits has one) is printed as
// its order of magnitude: big.Float's decimal text of 1e3000000 takes
// tens of seconds.
func NumberString(f *big.Float) string {
	if f.IsInf() {
		if f.Sign() > 0 {
			return "+Inf"
		}
		return "-Inf"
	}
	if s, ok := smallDecimal(f); ok {
		return s
	}
	if e := f.MantExp(nil); e > 4096 || e < -4096 {
		return magnitudeText(f, e)
	}
	return decimalText(f)
}

// magnitudeText is "about 1.23e+903089" for f = m × 2^e.
func magnitudeText(f *big.Float, e int) string {
	m, _ := new(big.Float).SetMantExp(f, -e).Float64() // 0.5 ≤ |m| < 1
	l := math.Log10(math.Abs(m)) + float64(e)*math.Log10(2)
	exp := math.Floor(l)
	mant := math.Pow(10, l-exp)
	if m < 0 {
		mant = -mant
	}
	return fmt.Sprintf("about %.2fe%+d", mant, int64(exp))
}

// smallDecimal prints f in fixed-point notation without trailing zeros
// ("0.3", "1000000000000000000") when it is within the magnitudes where
// that text stays short. It prints any number, in or out of the range of
// quota numbers (messages and literals print what was computed).
func smallDecimal(f *big.Float) (string, bool) {
	if f.IsInf() {
		return "", false
	}
	if f.Sign() != 0 {
		// 2^±64 keeps the fixed-point text within ~20 digits of the
		// significant ones; beyond, numbers are printed in e-notation.
		e := f.MantExp(nil)
		if e > 64 || e < -64 {
			return "", false
		}
	}
	var d, r apd.Decimal
	if _, _, err := d.SetString(decimalText(f)); err != nil {
		return "", false
	}
	r.Reduce(&d)
	s := r.Text('f')
	if s == "-0" {
		s = "0"
	}
	return s, true
}

// scale18 is 10^18, exact.
var scale18 = new(big.Float).SetInt64(1_000_000_000_000_000_000)

// QuotaValue is the quota number that the finite cty number f stands for,
// or a *quota.RangeError naming f (as NumberString prints it). cty
// computes with 512-bit binary floats, so 0.1 + 0.2 is 0.3 plus noise
// near the 150th digit: f stands for the number with at most 18 digits
// after the point that is within that noise of it (f × 10^18 is within
// 2^(136-precision) of a whole number, a bound far above cty's rounding
// for numbers below 10^18 and far below the smallest step, 10^-18, of a
// quota number). Nothing else is rounded: 1/3, or a literal with more
// digits, is an error. A number of float64 precision (a result of pow
// or log) stands for its shortest decimal text, as quota.Parse reads it.
func QuotaValue(f *big.Float) (quota.Value, error) {
	if numberProblem(f) != "" {
		return quota.Value{}, &quota.RangeError{Text: NumberString(f), TooPrecise: new(big.Float).Abs(f).Cmp(minNumber) < 0}
	}
	prec := f.Prec()
	if prec <= 64 {
		return quota.Parse(f.Text('g', -1))
	}
	scaled := new(big.Float).SetPrec(prec+64).Mul(f, scale18)
	n, _ := scaled.Int(nil)
	whole := new(big.Float).SetPrec(prec + 64).SetInt(n)
	diff := new(big.Float).SetPrec(prec+64).Sub(scaled, whole)
	// Round n to the nearest whole number, then measure the distance.
	half := big.NewFloat(0.5)
	switch {
	case diff.Cmp(half) > 0:
		n.Add(n, big.NewInt(1))
	case diff.Cmp(new(big.Float).Neg(half)) < 0:
		n.Sub(n, big.NewInt(1))
	}
	diff.Sub(scaled, whole.SetInt(n)).Abs(diff)
	tolerance := new(big.Float).SetMantExp(big.NewFloat(1), 136-int(prec))
	if diff.Cmp(tolerance) > 0 {
		return quota.Value{}, &quota.RangeError{Text: NumberString(f), TooPrecise: true}
	}
	return quota.Parse(n.String() + "e-18")
}
