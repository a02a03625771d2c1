package quota

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// Conversions between exact decimals and IEEE-754 float64 ("binary64"),
// for emulating a program that computes with float64: KAI's scheduler keeps
// every quota, request and fair share in float64 (its Queue CRD's fields are
// float64, read by encoding/json). Never use them for krmplan's own checks.

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Binary64 returns the float64 nearest to v × 10^shift, which is what
// strconv.ParseFloat (and so encoding/json, and so KAI's scheduler) reads
// for that number's text, and whether it equals v × 10^shift exactly
// (4, 0.5 and 1e-3 × 10^6 do; 0.1 does not). shift converts units: 6 turns
// MB into bytes.
func (v Value) Binary64(shift int32) (f float64, exact bool) {
	if f, exact, ok := v.binary64Fast(shift); ok {
		return f, exact
	}
	return v.binary64Slow(shift)
}

// binary64Fast is Binary64 for a value whose digits and power of ten are
// exact in float64 (most quotas); ok is false for any other.
func (v Value) binary64Fast(shift int32) (f float64, exact, ok bool) {
	d := &v.d
	if d.Form == apd.Finite && d.Coeff.IsInt64() {
		c, e := d.Coeff.Int64(), int64(d.Exponent)+int64(shift)
		if c < 1<<53 && e >= -22 && e <= 22 {
			// c and 10^|e| are exact, so one operation rounds correctly,
			// as ParseFloat does; FMA gives that operation's exact error.
			m := float64(c)
			if d.Negative {
				m = -m
			}
			if e == 0 {
				return m, true, true
			}
			if e > 0 && e <= 15 && c < 1<<53/int64(pow10[e]) {
				return m * pow10[e], true, true // no rounding: the product is below 2^53
			}
			if e >= 0 {
				f = m * pow10[e]
				return f, math.FMA(m, pow10[e], -f) == 0, true
			}
			f = m / pow10[-e]
			return f, math.FMA(f, pow10[-e], -m) == 0, true
		}
	}
	return 0, false, false
}

// binary64Slow is Binary64 for any value: through the number's text, with
// exactness decided by comparing rationals.
func (v Value) binary64Slow(shift int32) (float64, bool) {
	f, text := v.parseFloat(shift)
	want, ok := new(big.Rat).SetString(text)
	if !ok || math.IsInf(f, 0) {
		return f, false
	}
	return f, new(big.Rat).SetFloat64(f).Cmp(want) == 0
}

// parseFloat is what strconv.ParseFloat reads for the text of
// v × 10^shift (±Inf beyond float64's range), and that text.
func (v Value) parseFloat(shift int32) (float64, string) {
	var s apd.Decimal
	s.Set(&v.d)
	s.Exponent += shift
	text := s.String()
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		panic(fmt.Sprintf("quota: %s does not read as a float64: %v", text, err))
	}
	return f, text
}

// halfEven is ctx rounding half to even, as strconv does.
var halfEven = func() *apd.Context {
	c := *ctx
	c.Rounding = apd.RoundHalfEven
	return &c
}()

// FromFloat64 returns f × 10^shift as an exact decimal: the shortest decimal
// text that reads back as f (strconv.FormatFloat with precision -1), scaled
// by 10^shift (-6 turns bytes into MB). A result with more than MaxDecimals
// digits after the point is rounded half to even to MaxDecimals, and
// rounded says so. NaN, ±Inf and results of 10^18 or more in magnitude are
// an error (a *RangeError for the magnitude).
func FromFloat64(f float64, shift int32) (v Value, rounded bool, err error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, false, fmt.Errorf("%v is not a number", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		if v, ok := FromScaled(int64(f), shift); ok {
			return v, false, nil
		}
	}
	var buf [32]byte
	if _, _, err := v.d.SetString(string(strconv.AppendFloat(buf[:0], f, 'e', -1, 64))); err != nil {
		return Value{}, false, err
	}
	v.d.Exponent += shift
	err = v.checkRange("")
	if re, ok := err.(*RangeError); ok && re.TooPrecise {
		if _, err := halfEven.Quantize(&v.d, &v.d, -MaxDecimals); err != nil {
			return Value{}, false, err
		}
		return v, true, v.checkRange("")
	}
	if err != nil {
		return Value{}, false, &RangeError{Text: v.String()}
	}
	return v, false, nil
}
