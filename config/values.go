package config

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/krmplan/krmplan/internal/hcllimit"
	"github.com/krmplan/krmplan/internal/kubeyaml"
	"github.com/krmplan/krmplan/quota"
)

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
		return "a number (" + hcllimit.NumberString(v.AsBigFloat()) + ")"
	}
	return v.Type().FriendlyName()
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
			fmt.Sprintf("A finite number is required, but the value is %s.", hcllimit.NumberString(f))))
		return nil
	}
	// The range is quota.Parse's, the one rule of every reader: below
	// 10^18 in magnitude, at most quota.MaxDecimals digits after the point.
	q, err := hcllimit.QuotaValue(f)
	var re *quota.RangeError
	switch {
	case errors.As(err, &re) && re.TooPrecise:
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s %s; round it (floor, ceil) or write the number.", hcllimit.NumberString(f), re.Rule())))
		return nil
	case errors.As(err, &re):
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s %s.", hcllimit.NumberString(f), re.Rule())))
		return nil
	case err != nil:
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s is not a decimal number: %v.", hcllimit.NumberString(f), err)))
		return nil
	}
	// The API server reads a JSON number with a fraction as a float64:
	// 4.00000000000000001 would be stored as 4 (kubectl's YAML reading
	// is the same), so a value the cluster cannot hold exactly is refused.
	if text := q.String(); !kubeyaml.NumberAlike(text) {
		stored, _ := strconv.ParseFloat(text, 64)
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s cannot be stored exactly: the API server reads it as the float64 %s; write a number of at most 15 significant digits.",
				text, strconv.FormatFloat(stored, 'f', -1, 64))))
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
			fmt.Sprintf("A whole number is required, but the value is %s.", hcllimit.NumberString(f))))
		return nil
	}
	n, acc := f.Int64()
	if acc != big.Exact || n < math.MinInt32 || n > math.MaxInt32 {
		d.diags = append(d.diags, valueError(what, expr, ctx, context,
			fmt.Sprintf("The value %s is out of range: it must be between %d and %d.", hcllimit.NumberString(f), math.MinInt32, math.MaxInt32)))
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
		b.WriteString(hcllimit.NumberString(f))
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
