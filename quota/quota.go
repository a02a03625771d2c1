// Package quota holds KRM quota numbers as exact decimals.
//
// KRM stores deserved, limit and overQuotaWeight as JSON numbers: gpu in
// cards (0.5 is half a card), cpu in millicores, memory in MB (10^6 bytes).
// -1 means unlimited for deserved and limit. The cluster accepts any number,
// so every sum and comparison krmplan makes must be exact: values are parsed
// from their text into a decimal, never into a float64, and -1 behaves as +∞.
package quota

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// ctx is wide enough that sums of tenancy values never round: a quota is
// written with a handful of digits and a tenancy has at most ~10^6 of them.
var ctx = apd.BaseContext.WithPrecision(60)

// Value is one quota number as written: an exact decimal, where -1 stands for
// unlimited. The zero Value is 0. Values are immutable.
type Value struct {
	d apd.Decimal
}

// Unlimited is -1, KRM's spelling of "no bound" for deserved and limit.
var Unlimited = MustParse("-1")

// Zero is 0, what KRM reads for an omitted field.
var Zero = Value{}

// MaxDecimals is the most digits after the decimal point a quota number
// may have, once trailing zeros are dropped (0.5000 has one).
const MaxDecimals = 18

// MaxLength is the most characters a quota number may be written in
// (the longest number in range, "-999999999999999999.999999999999999999",
// has 38). A longer text is refused before it is read: reading a number of
// millions of digits takes seconds.
const MaxLength = 100

// maxMagnitude is 10^18: every quota number is below it in magnitude.
// 10^18 cards, millicores or MB is far beyond any cluster, and the bound
// keeps every sum of a tenancy exact in ctx.
var maxMagnitude = mustDecimal("1e18")

// RangeError is Parse's error for a number that is outside what a quota
// number may be: 10^18 or more in magnitude, more than MaxDecimals digits
// after the decimal point, or (unread) a text of more than MaxLength
// characters. Every reader (YAML, JSON, HCL) refuses the same numbers
// with it.
type RangeError struct {
	Text string // the number as written
	// TooPrecise is set for too many digits after the point, TooLong for
	// a text of more than MaxLength characters; with neither, the number
	// is too large.
	TooPrecise, TooLong bool
}

// Rule says what the number breaks, after the number itself: "is too
// large: …", "has more than 18 digits after the decimal point: …" or
// "is 3000000 characters long: …".
func (e *RangeError) Rule() string {
	switch {
	case e.TooLong:
		return fmt.Sprintf("is %d characters long: quota numbers are written in at most %d", len(e.Text), MaxLength)
	case e.TooPrecise:
		return fmt.Sprintf("has more than %d digits after the decimal point: quota numbers are exact decimals with at most %d", MaxDecimals, MaxDecimals)
	}
	return "is too large: quota numbers must be below 10^18 in magnitude"
}

// Error quotes the text, its first 40 characters and "…" when it is
// longer than MaxLength.
func (e *RangeError) Error() string { return Quote(e.Text) + " " + e.Rule() }

// Quote is text in Go quotes for a message; a text of more than MaxLength
// characters is cut to its first 40 and "…", so that a hostile number of
// millions of digits does not fill the terminal.
func Quote(text string) string {
	if len(text) > MaxLength {
		return strconv.Quote(strings.ToValidUTF8(text[:40], "")) + "…"
	}
	return strconv.Quote(text)
}

// exponentForm matches a number in e-notation, whose exponent may be beyond
// what the decimal type holds ("1e400000").
var exponentForm = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE]([+-]?)[0-9]+$`)

// Parse reads a number as written in YAML, JSON or HCL ("4", "0.5", "-1",
// "1e1", "4.0"). It returns an error naming the text for anything that is not
// a finite decimal number (strings, NaN, Infinity, empty text), and a
// *RangeError for a number of 10^18 or more in magnitude or with more than
// MaxDecimals digits after the decimal point ("1e30", "0.0000000000000000001")
// or of more than MaxLength characters, which it does not read.
func Parse(text string) (Value, error) {
	t := strings.TrimSpace(text)
	if len(t) > MaxLength {
		return Value{}, &RangeError{Text: text, TooLong: true}
	}
	var v Value
	if _, _, err := v.d.SetString(t); err != nil || v.d.Form != apd.Finite || t == "" {
		if m := exponentForm.FindStringSubmatch(t); m != nil && err != nil {
			// A number whose exponent the decimal type cannot hold.
			return Value{}, &RangeError{Text: text, TooPrecise: m[2] == "-"}
		}
		return Value{}, fmt.Errorf("%s is not a number", Quote(text))
	}
	if err := v.checkRange(text); err != nil {
		return Value{}, err
	}
	return v, nil
}

// checkRange is Parse's range rule: a *RangeError naming text when v is
// 10^18 or more in magnitude or has more than MaxDecimals digits after the
// decimal point, else nil.
func (v *Value) checkRange(text string) error {
	var abs, r apd.Decimal
	abs.Abs(&v.d)
	if abs.Cmp(&maxMagnitude.d) >= 0 {
		return &RangeError{Text: text}
	}
	if r.Reduce(&v.d); r.Exponent < -MaxDecimals {
		return &RangeError{Text: text, TooPrecise: true}
	}
	return nil
}

// FromScaled returns coeff × 10^exp, the Value that Parse returns for the
// text "<coeff>e<exp>", without writing and reading that text: converters
// of other number types (Kubernetes quantities) use it. ok is false when
// the number is outside Parse's range (the caller then makes Parse's error).
func FromScaled(coeff int64, exp int32) (v Value, ok bool) {
	v.d.SetFinite(coeff, exp)
	return v, v.checkRange("") == nil
}

// mustDecimal reads a constant without the range rule of Parse.
func mustDecimal(text string) Value {
	var v Value
	if _, _, err := v.d.SetString(text); err != nil || v.d.Form != apd.Finite {
		panic(fmt.Sprintf("quota: %q is not a number", text))
	}
	return v
}

// MustParse is Parse for constants known to be valid; it panics otherwise.
func MustParse(text string) Value {
	v, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return v
}

// FromInt returns the Value n.
func FromInt(n int64) Value {
	var v Value
	v.d.SetInt64(n)
	return v
}

// IsUnlimited reports whether v is -1 (unlimited). A finite value without
// a minus sign (most of them) is not, without a comparison.
func (v Value) IsUnlimited() bool {
	if v.d.Form == apd.Finite && !v.d.Negative {
		return false
	}
	return v.d.Cmp(&Unlimited.d) == 0
}

// IsZero reports whether v is 0.
func (v Value) IsZero() bool { return v.d.IsZero() }

// IsNegative reports whether v is below zero, -1 included.
func (v Value) IsNegative() bool { return v.d.Sign() < 0 }

// Cmp compares a and b with -1 as +∞: it returns -1, 0 or +1. Two unlimited
// values are equal. Other negative values compare as the numbers they are.
func (a Value) Cmp(b Value) int {
	au, bu := a.IsUnlimited(), b.IsUnlimited()
	switch {
	case au && bu:
		return 0
	case au:
		return 1
	case bu:
		return -1
	}
	return a.d.Cmp(&b.d)
}

// Equal reports whether a and b are the same number (4 equals 4.0).
func (a Value) Equal(b Value) bool { return a.d.Cmp(&b.d) == 0 }

// Add returns a+b; if either is unlimited the sum is unlimited.
func (a Value) Add(b Value) Value {
	if a.IsUnlimited() || b.IsUnlimited() {
		return Unlimited
	}
	return a.Plus(b)
}

// Sub returns a-b for finite a and b. It panics on an unlimited operand,
// because a gap to or from +∞ has no number; callers compare first.
func (a Value) Sub(b Value) Value {
	if a.IsUnlimited() || b.IsUnlimited() {
		panic("quota: Sub with an unlimited operand")
	}
	return a.Minus(b)
}

// String prints v without float artefacts and without trailing zeros:
// "0.3", "4", "-1", "0.02". Use Text for the written spelling.
func (v Value) String() string {
	if s, ok := v.integerText(); ok {
		return s
	}
	return v.reducedText()
}

// reducedText is String's general path: v without trailing zeros, in
// plain notation.
func (v *Value) reducedText() string {
	var r apd.Decimal
	r.Reduce(&v.d)
	s := r.Text('f')
	if s == "-0" {
		return "0"
	}
	return s
}

// integerText is String for the commonest value, an integer written
// without a point or an exponent that fits in an int64: its digits, as
// reducedText prints them, without reducing a copy first. ok is false for
// any other value.
func (v *Value) integerText() (s string, ok bool) {
	if v.d.Form != apd.Finite || v.d.Exponent != 0 || !v.d.Coeff.IsInt64() {
		return "", false
	}
	n := v.d.Coeff.Int64()
	if v.d.Negative {
		n = -n
	}
	return strconv.FormatInt(n, 10), true
}

// Float64 approximates v for drawing (bars, proportions) and heuristics
// (the unit-slip ratio); never for checks. It is the float64 that
// strconv.ParseFloat reads for v's text, made without the text for the
// commonest values (Binary64).
func (v Value) Float64() float64 {
	if f, _, ok := v.binary64Fast(0); ok {
		return f
	}
	// Binary64's exactness, which compares rationals, is not needed.
	f, _ := v.parseFloat(0)
	return f
}

// MarshalJSON writes v as a JSON number in its reduced form.
func (v Value) MarshalJSON() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalJSON reads a JSON number; a JSON string is refused.
func (v *Value) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		shown := string(b)
		if len(b) > MaxLength {
			shown = Quote(strings.Trim(shown, `"`))
		}
		if _, err := Parse(strings.Trim(string(b), `"`)); err == nil {
			return fmt.Errorf("the string %s: write the number unquoted", shown)
		}
		return fmt.Errorf("the string %s is not a number", shown)
	}
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// Plus and Minus are a+b and a−b as plain numbers, where -1 is minus one,
// not unlimited: for amounts that are not quota fields, such as a fair
// share, which negative guarantees (KRM accepts them) can make -1. They
// are exact within ctx's 60 digits, far beyond the sums of a tenancy.
func (a Value) Plus(b Value) Value {
	var r Value
	if _, err := ctx.Add(&r.d, &a.d, &b.d); err != nil {
		panic(fmt.Sprintf("quota: add %s + %s: %v", a, b, err))
	}
	return r
}

// Minus is a−b as plain numbers; see Plus.
func (a Value) Minus(b Value) Value {
	var r Value
	if _, err := ctx.Sub(&r.d, &a.d, &b.d); err != nil {
		panic(fmt.Sprintf("quota: sub %s - %s: %v", a, b, err))
	}
	return r
}

// Sum adds values with -1 as +∞; the sum of nothing is 0.
func Sum(vs ...Value) Value {
	s := Zero
	for _, v := range vs {
		s = s.Add(v)
	}
	return s
}
