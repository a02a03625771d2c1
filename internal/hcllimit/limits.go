package hcllimit

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/krmplan/krmplan/quota"
)

// The limits of an evaluation (README, "Limits"), besides MaxDepth, which
// bounds values too (a list in a list is 2 levels). Each is far beyond
// what a quota file needs, and together they keep an evaluation within
// seconds and a few hundred megabytes for any input: without them
// `setproduct(range(1000), range(1000), range(1000))` asks for 24 GB, and
// for expressions nested three deep run out of memory.
const (
	// MaxElements is how many elements one value may hold: the elements
	// of a list, set or tuple, the attributes of a map or object, counted
	// through every level (a list of 10 lists of 10 numbers holds 110).
	MaxElements = 100_000
	// MaxBytes is how many bytes of string one value may hold: one string,
	// or all the strings of a collection together.
	MaxBytes = 10_000_000
	// MaxWork bounds the work of an evaluation: each iteration of a for
	// expression or a splat (times the size of its body), each element a
	// function reads or returns, each element a constructor or reference
	// repeats beyond what the source spells out, and each 16 bytes of a
	// built string count one. A plain file of literal blocks costs
	// nothing, so a desired.hcl of any number of projects loads.
	MaxWork = 1_000_000
)

// Summaries of the evaluation's limit diagnostics (NumberSummary too).
const (
	TooBigSummary  = "Value too large"
	WorkSummary    = "Too much work"
	DivZeroSummary = "Division by zero"
)

// limitError is a limit broken during evaluation: it becomes a diagnostic
// with its own summary (see Evaluator.Value).
type limitError struct {
	summary, detail string
}

func (e *limitError) Error() string { return e.detail }

func tooBig(format string, args ...any) *limitError {
	return &limitError{summary: TooBigSummary, detail: fmt.Sprintf(format, args...)}
}

// size is what measure found in a value: its elements at every level and
// its string bytes.
type size struct{ elements, bytes int }

// measure returns v's size, or the limit it breaks: MaxElements, MaxBytes,
// MaxDepth, or a number out of numberRule's range. It stops as soon as a
// limit is passed, so it costs at most MaxElements steps however v shares
// its elements (a list of a list of … a list, each holding the previous
// twice, has 2^n elements in n values).
func measure(v cty.Value) (size, *limitError) {
	var s size
	err := s.walk(v, 0)
	return s, err
}

func (s *size) walk(v cty.Value, depth int) *limitError {
	if depth > MaxDepth {
		return tooBig("The value nests more than %d levels deep; krmplan allows %d.", MaxDepth, MaxDepth)
	}
	if !v.IsKnown() || v.IsNull() {
		return nil
	}
	v, _ = v.Unmark()
	ty := v.Type()
	switch {
	case ty == cty.String:
		s.bytes += len(v.AsString())
		if s.bytes > MaxBytes {
			return tooBig("The value holds more than %d bytes of string; krmplan allows %d.", MaxBytes, MaxBytes)
		}
	case ty == cty.Number:
		return numberError("The value holds the number", v.AsBigFloat())
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			s.elements++
			if s.elements > MaxElements {
				return tooBig("The value holds more than %d elements (counting those of nested lists, maps and objects); krmplan allows %d.", MaxElements, MaxElements)
			}
			_, el := it.Element()
			if err := s.walk(el, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Bounds of numberRule: 10^18, quota.Parse's bound, and 10^-18, the
// smallest step of a number with at most 18 digits after the point.
var (
	maxNumber = new(big.Float).SetPrec(512).SetInt64(1_000_000_000_000_000_000)
	minNumber = new(big.Float).SetPrec(512).Quo(big.NewFloat(1).SetPrec(512), maxNumber)
)

// numberProblem says what is wrong with a number that no quota number
// can come from ("" when nothing is): +Inf or -Inf, 10^18 or more in
// magnitude (quota.Parse's bound), or below 10^-18 without being 0 (it
// has digits beyond the 18th after the point). Every literal, result of
// arithmetic, result of a function and variable value is held to it; a
// result such as 1/3, whose digits go on, may be computed with
// (floor(x / 3)), but a quota number made from it must have at most 18
// digits after the point (toNum).
func numberProblem(f *big.Float) string {
	if f.IsInf() {
		return "is not finite"
	}
	var abs big.Float
	abs.Abs(f)
	if abs.Cmp(maxNumber) >= 0 {
		return "is too large: quota numbers must be below 10^18 in magnitude"
	}
	if f.Sign() != 0 && abs.Cmp(minNumber) < 0 {
		return fmt.Sprintf("is below 10^-18 without being 0: quota numbers have at most %d digits after the decimal point", quota.MaxDecimals)
	}
	return ""
}

// numberError is numberProblem as an error about what ("The result of
// this operation is"), nil when f is fine.
func numberError(what string, f *big.Float) *limitError {
	p := numberProblem(f)
	if p == "" {
		return nil
	}
	return &limitError{summary: NumberSummary, detail: fmt.Sprintf("%s %s, which %s.", what, NumberString(f), p)}
}

// CheckValue holds the value of a top-level expression (an attribute, a
// local, a variable's value) to the limits, and charges the work of the
// elements it holds beyond the expression's own syntax nodes (a reference
// to a local of 1,000 elements costs 1,000; a literal list of 1,000
// costs nothing). It returns the diagnostic of a broken limit, or nil.
func (ev *Evaluator) CheckValue(expr hcl.Expression, v cty.Value, context *hcl.Range) *hcl.Diagnostic {
	s, err := measure(v)
	if err != nil {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  err.summary,
			Detail:   err.detail,
			Subject:  expr.Range().Ptr(),
			Context:  context,
		}
	}
	ev.chargeAt(s.elements-ev.nodes[expr], expr.Range())
	return nil
}

// chargeAt adds n steps to the work done (nothing when n ≤ 0); past
// MaxWork it ends the evaluation with a diagnostic at the range at
// (abort): every later step would be refused too.
func (ev *Evaluator) chargeAt(n int, at hcl.Range) {
	if n <= 0 {
		return
	}
	ev.work += n
	if ev.work > MaxWork {
		ev.abort(at, workError())
	}
}

// charge is chargeAt the expression being evaluated: the attribute, local
// or variable value whose evaluation calls a function.
func (ev *Evaluator) charge(n int) { ev.chargeAt(n, ev.current) }

func workError() *limitError {
	return &limitError{summary: WorkSummary, detail: fmt.Sprintf(
		"Evaluating the expressions takes more than %d steps (iterations of for expressions, elements that functions read or build, repeated references); krmplan allows %d.",
		MaxWork, MaxWork)}
}

// Broken reports whether diags hold a broken limit: Check's, or one of
// Value's.
func Broken(diags hcl.Diagnostics) bool {
	for _, diag := range diags {
		switch diag.Summary {
		case DepthSummary, NumberSummary, TokensSummary, TooBigSummary, WorkSummary, DivZeroSummary:
			return true
		}
	}
	return false
}

// Text is the summary and detail of a conversion error (Convert): a
// limit's own, or summary and format applied to describe(err).
func Text(err error, summary, format string, describe func(error) string) (string, string) {
	var le *limitError
	if errors.As(err, &le) {
		return le.summary, le.detail
	}
	return summary, fmt.Sprintf(format, describe(err))
}
