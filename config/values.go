package config

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

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

// valueError builds the diagnostic for a value that does not fit what the
// attribute needs.
func valueError(what string, expr hcl.Expression, ctx *hcl.EvalContext, context *hcl.Range, detail string) *hcl.Diagnostic {
	rng := expr.Range()
	return &hcl.Diagnostic{
		Severity:    hcl.DiagError,
		Summary:     fmt.Sprintf("Invalid value for %q", what),
		Detail:      detail,
		Subject:     &rng,
		Context:     context,
		Expression:  expr,
		EvalContext: ctx,
	}
}

// describe names a value for a message: its type and, for short values,
// the value itself.
func describe(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "a value that is not known"
	case v.Type() == cty.String:
		s := v.AsString()
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return fmt.Sprintf("a string (%q)", s)
	case v.Type() == cty.Bool:
		return fmt.Sprintf("a bool (%t)", v.True())
	case v.Type() == cty.Number:
		return "a number (" + numberString(v.AsBigFloat()) + ")"
	}
	return v.Type().FriendlyName()
}

// numberString prints a cty number for a message. A number beyond
// 2^±4096 (only a source that breaks the limits has one) is printed as
// its order of magnitude: big.Float's decimal text of 1e3000000 takes
// tens of seconds.
func numberString(f *big.Float) string {
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

// exactDecimal is the quota number that the finite cty number f stands
// for, or a *quota.RangeError naming f (as numberString prints it). cty
// computes with 512-bit binary floats, so 0.1 + 0.2 is 0.3 plus noise
// near the 150th digit: f stands for the number with at most 18 digits
// after the point that is within that noise of it (f × 10^18 is within
// 2^(136-precision) of a whole number, a bound far above cty's rounding
// for numbers below 10^18 and far below the smallest step, 10^-18, of a
// quota number). Nothing else is rounded: 1/3, or a literal with more
// digits, is an error. A number of float64 precision (a result of pow
// or log) stands for its shortest decimal text, as quota.Parse reads it.
func exactDecimal(f *big.Float) (quota.Value, error) {
	if numberProblem(f) != "" {
		return quota.Value{}, &quota.RangeError{Text: numberString(f), TooPrecise: new(big.Float).Abs(f).Cmp(minNumber) < 0}
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
		return quota.Value{}, &quota.RangeError{Text: numberString(f), TooPrecise: true}
	}
	return quota.Parse(n.String() + "e-18")
}

// checkKnown reports a value that cannot be used at all: unknown (only
// after an upstream error, which was reported) or null.
func (d *decoder) checkKnown(what string, v cty.Value, expr hcl.Expression, ctx *hcl.EvalContext, context *hcl.Range, need string) bool {
	if !v.IsKnown() {
		if !d.upstreamErr {
			d.diags = append(d.diags, valueError(what, expr, ctx, context,
				fmt.Sprintf("%s is required, but the value is not known.", need)))
		}
		return false
	}
	if v.IsNull() {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("%s is required, but the value is null.", need)))
		return false
	}
	return true
}

// toNum converts v to an exact decimal for the attribute what.
func (d *decoder) toNum(what string, v cty.Value, expr hcl.Expression, ctx *hcl.EvalContext, context *hcl.Range) *Num {
	if !d.checkKnown(what, v, expr, ctx, context, "A number") {
		return nil
	}
	if v.Type() != cty.Number {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("A number is required, but this is %s.", describe(v))))
		return nil
	}
	f := v.AsBigFloat()
	if f.IsInf() {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("A finite number is required, but the value is %s.", numberString(f))))
		return nil
	}
	// The range is quota.Parse's, the one rule of every reader: below
	// 10^18 in magnitude, at most quota.MaxDecimals digits after the point.
	q, err := exactDecimal(f)
	var re *quota.RangeError
	switch {
	case errors.As(err, &re) && re.TooPrecise:
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s %s; round it (floor, ceil) or write the number.", numberString(f), re.Rule())))
		return nil
	case errors.As(err, &re):
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s %s.", numberString(f), re.Rule())))
		return nil
	case err != nil:
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s is not a decimal number: %v.", numberString(f), err)))
		return nil
	}
	return &Num{Value: q, Range: expr.Range()}
}

// toInt converts v to a whole int32 for the attribute what.
func (d *decoder) toInt(what string, v cty.Value, expr hcl.Expression, ctx *hcl.EvalContext, context *hcl.Range) *Int {
	if !d.checkKnown(what, v, expr, ctx, context, "A whole number") {
		return nil
	}
	if v.Type() != cty.Number {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("A whole number is required, but this is %s.", describe(v))))
		return nil
	}
	f := v.AsBigFloat()
	if f.IsInf() || !f.IsInt() {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("A whole number is required, but the value is %s.", numberString(f))))
		return nil
	}
	n, acc := f.Int64()
	if acc != big.Exact || n < math.MinInt32 || n > math.MaxInt32 {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s is out of range: it must be between %d and %d.", numberString(f), math.MinInt32, math.MaxInt32)))
		return nil
	}
	return &Int{Value: int32(n), Range: expr.Range()}
}

// toStr converts v to a non-empty string for the attribute what (an empty
// one too when allowEmpty).
func (d *decoder) toStr(what string, v cty.Value, expr hcl.Expression, ctx *hcl.EvalContext, context *hcl.Range, allowEmpty bool) *Str {
	if !d.checkKnown(what, v, expr, ctx, context, "A string") {
		return nil
	}
	if v.Type() != cty.String {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("A string is required, but this is %s.", describe(v))))
		return nil
	}
	s := v.AsString()
	if s == "" && !allowEmpty {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			"A non-empty string is required."))
		return nil
	}
	return &Str{Value: s, Range: expr.Range()}
}

// toStrList converts v to a list of non-empty strings for the attribute
// what.
func (d *decoder) toStrList(what string, v cty.Value, expr hcl.Expression, ctx *hcl.EvalContext, context *hcl.Range) *StrList {
	if !d.checkKnown(what, v, expr, ctx, context, "A list of strings") {
		return nil
	}
	ty := v.Type()
	if !ty.IsListType() && !ty.IsTupleType() && !ty.IsSetType() {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("A list of strings is required, but this is %s.", describe(v))))
		return nil
	}
	if !v.IsWhollyKnown() {
		if !d.upstreamErr {
			d.diags = append(d.diags, valueError(what, expr, ctx, context,
				"A list of strings is required, but the value is not known."))
		}
		return nil
	}
	list := &StrList{Values: []string{}, Range: expr.Range()}
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, el := it.Element()
		if el.IsNull() || el.Type() != cty.String || el.AsString() == "" {
			d.diags = append(d.diags, valueError(what, expr, ctx, context,
				fmt.Sprintf("A list of non-empty strings is required, but element %d is %s.", i, describe(el))))
			return nil
		}
		list.Values = append(list.Values, el.AsString())
	}
	return list
}

// keywords are the identifiers that cannot be a bare object key.
var keywords = map[string]bool{"true": true, "false": true, "null": true, "for": true, "in": true, "if": true}

// hclLiteral prints a wholly known value as HCL literal text; ok is false
// when the value cannot be written (unknown, or an infinite number).
func hclLiteral(v cty.Value) (string, bool) {
	var b strings.Builder
	ok := writeLiteral(&b, v)
	return b.String(), ok
}

func writeLiteral(b *strings.Builder, v cty.Value) bool {
	if !v.IsKnown() {
		return false
	}
	if v.IsNull() {
		b.WriteString("null")
		return true
	}
	ty := v.Type()
	switch {
	case ty == cty.Number:
		f := v.AsBigFloat()
		if f.IsInf() {
			return false
		}
		if s, ok := smallDecimal(f); ok {
			b.WriteString(s)
		} else {
			b.WriteString(decimalText(f))
		}
	case ty == cty.Bool:
		fmt.Fprint(b, v.True())
	case ty == cty.String:
		b.Write(hclwrite.TokensForValue(v).Bytes())
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		b.WriteByte('[')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			_, el := it.Element()
			if !writeLiteral(b, el) {
				return false
			}
		}
		b.WriteByte(']')
	case ty.IsMapType() || ty.IsObjectType():
		b.WriteByte('{')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			if i > 0 {
				b.WriteString(", ")
			} else {
				b.WriteByte(' ')
			}
			k, el := it.Element()
			key := k.AsString()
			if hclsyntax.ValidIdentifier(key) && !keywords[key] {
				b.WriteString(key)
			} else {
				b.Write(hclwrite.TokensForValue(cty.StringVal(key)).Bytes())
			}
			b.WriteString(" = ")
			if !writeLiteral(b, el) {
				return false
			}
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}
