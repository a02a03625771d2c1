package hcllimit

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/krmplan/krmplan/quota"
)

// guard is an expression that the rewriter (rewrite.go) put around another,
// to hold what it evaluates to to the limits: hcl evaluates for
// expressions, splats, templates and constructors itself, with no hook.
// It evaluates to what the wrapped expression does, and it is that
// expression for everything else (its range, its variables, its children
// for hclsyntax.Walk), so hcl's analysis sees through it. It is not a
// function call: cty walks every argument of a call in full before the
// function runs, which for a value that shares its elements (a list of a
// list of … each holding the previous twice) is exponential.
type guard struct {
	hclsyntax.Expression
	ev *Evaluator
	// meter: measure the value (the limits) and charge the elements it
	// holds beyond cost, the syntax nodes of the expression, as work.
	meter bool
	// iter: charge the value's length times cost before a for expression
	// or a splat iterates it.
	iter bool
	cost int
	// numbers: a string in the value is about to be read as a number
	// (numberStrings); index: likewise for an index key, a string that
	// looks like a number.
	numbers, index bool
}

// Value is the wrapped expression's value, after the guard's checks.
func (g *guard) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	// The work of a function inside is charged at the innermost guard.
	outer := g.ev.current
	g.ev.current = g.Range()
	v, diags := g.Expression.Value(ctx)
	g.ev.current = outer
	if diags.HasErrors() {
		return v, diags
	}
	var err error
	if g.meter {
		s, lerr := measure(v)
		if lerr != nil {
			err = lerr
		} else {
			g.ev.chargeAt(s.elements-g.cost+s.bytes/16, g.Range())
		}
	}
	if g.iter {
		n := 1
		if v.IsKnown() && !v.IsNull() && v.CanIterateElements() {
			n = v.LengthInt()
		}
		g.ev.chargeAt(n*g.cost, g.Range())
	}
	if err == nil && (g.numbers || g.index) {
		err = numberStrings(v, g.index)
	}
	if err != nil {
		le := err.(*limitError)
		return cty.DynamicVal, append(diags, &hcl.Diagnostic{
			Severity:    hcl.DiagError,
			Summary:     le.summary,
			Detail:      le.detail,
			Subject:     g.Range().Ptr(),
			Expression:  g.Expression,
			EvalContext: ctx,
		})
	}
	return v, diags
}

// numberStrings refuses a string in v (v itself, or an element: the
// expanded argument of max(list...)) that is about to be read as a
// number but is not one quota.Parse reads: more than quota.MaxLength
// characters (cty would spend seconds on a million digits), 10^18 or
// more, or more than 18 digits after the point. A string that is not a
// number at all is left for hcl's conversion to refuse. onlyNumeric
// skips strings that do not start like a number (an index key of a map).
func numberStrings(v cty.Value, onlyNumeric bool) error {
	if !v.IsKnown() || v.IsNull() {
		return nil
	}
	v, _ = v.Unmark()
	ty := v.Type()
	if ty.IsListType() || ty.IsTupleType() || ty.IsSetType() {
		for it := v.ElementIterator(); it.Next(); {
			_, el := it.Element()
			if el.IsKnown() && !el.IsNull() && el.Type() == cty.String {
				if err := numberString1(el.AsString(), onlyNumeric); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if ty != cty.String {
		return nil
	}
	return numberString1(v.AsString(), onlyNumeric)
}

func numberString1(s string, onlyNumeric bool) error {
	if onlyNumeric && !looksNumeric(s) {
		return nil
	}
	_, err := quota.Parse(s)
	if re, ok := err.(*quota.RangeError); ok {
		return &limitError{summary: NumberSummary, detail: fmt.Sprintf("The string %s is read as a number, and it %s.", quota.Quote(s), re.Rule())}
	}
	return nil
}

// looksNumeric reports whether s starts as a number does.
func looksNumeric(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && (s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))
}

// guarded wraps a function: its arguments and its result are held to the
// limits (measure) and its result's elements charged as work, and pre,
// when not nil, refuses before the call what would be too large to build.
// The arguments are checked in the type function, which cty calls first
// and some functions do real work in (jsondecode decodes its text there,
// recursively). An argument that becomes a list, set or map of any type
// is converted by fastCollection, not by hcl (see collectionParams).
func (ev *Evaluator) guarded(name string, f function.Function, pre func([]cty.Value) error) function.Function {
	params, varParam, conv := collectionParams(name, f)
	convert := func(args []cty.Value) ([]cty.Value, error) {
		if len(conv) == 0 {
			return args, nil
		}
		out := append([]cty.Value(nil), args...)
		for i, a := range out {
			ty, ok := conv[min(i, len(params))]
			if !ok {
				continue
			}
			if name == "tolist" || name == "toset" || name == "tomap" {
				if !fastPath(a, ty) {
					continue // the function's own conversion, and its messages
				}
			}
			c, err := fastCollection(a, ty)
			if err != nil {
				return nil, function.NewArgError(i, err)
			}
			out[i] = c
		}
		return out, nil
	}
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      params,
		VarParam:    varParam,
		Type: func(args []cty.Value) (cty.Type, error) {
			// The arguments were charged as they were evaluated (rewrite
			// guards each one).
			for _, a := range args {
				if _, err := measure(a); err != nil {
					return cty.NilType, err
				}
			}
			args, err := convert(args)
			if err != nil {
				return cty.NilType, err
			}
			if pre != nil {
				if err := pre(args); err != nil {
					return cty.NilType, err
				}
			}
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			args, err := convert(args)
			if err != nil {
				return cty.NilVal, err
			}
			r, err := f.Call(args)
			if err != nil {
				return r, err
			}
			if r.IsKnown() && !r.IsNull() && r.Type() == cty.Number {
				if err := numberError("The result of "+name+" is", r.AsBigFloat()); err != nil {
					return cty.NilVal, err
				}
			}
			s, lerr := measure(r)
			if lerr != nil {
				return cty.NilVal, lerr
			}
			ev.charge(s.elements + s.bytes/16)
			return r, nil
		},
	})
}

// collectionParams is f's parameters with each one of a list, set or map
// of any type (distinct's list, setunion's sets) made of any type, so
// that hcl passes the argument as it is, and the types the wrapper
// converts those arguments to, by index (len(params) for the variadic
// one). tolist, toset and tomap, whose parameter is of any type already,
// convert to their own type.
func collectionParams(name string, f function.Function) ([]function.Parameter, *function.Parameter, map[int]cty.Type) {
	conv := map[int]cty.Type{}
	params := append([]function.Parameter(nil), f.Params()...)
	for i := range params {
		if anyElements(params[i].Type) {
			conv[i], params[i].Type = params[i].Type, cty.DynamicPseudoType
		}
	}
	var varParam *function.Parameter
	if vp := f.VarParam(); vp != nil {
		p := *vp
		if anyElements(p.Type) {
			conv[len(params)], p.Type = p.Type, cty.DynamicPseudoType
		}
		varParam = &p
	}
	switch name {
	case "tolist":
		conv[0] = cty.List(cty.DynamicPseudoType)
	case "toset":
		conv[0] = cty.Set(cty.DynamicPseudoType)
	case "tomap":
		conv[0] = cty.Map(cty.DynamicPseudoType)
	}
	return params, varParam, conv
}

// op returns the guarded version of an operator: a division or a
// remainder by zero is an error (cty gives ±Inf for 5 / 0 and 5 for
// 5 % 0), and an arithmetic result is held to numberRule.
func (ev *Evaluator) op(orig *hclsyntax.Operation) *hclsyntax.Operation {
	if g, ok := ev.ops[orig]; ok {
		return g
	}
	impl := orig.Impl
	byZero := ""
	switch orig {
	case hclsyntax.OpDivide:
		byZero = "The divisor is zero, and a quotient by zero has no value."
	case hclsyntax.OpModulo:
		byZero = "The divisor is zero, and a remainder by zero has no value."
	}
	g := &hclsyntax.Operation{Type: orig.Type, ShortCircuit: orig.ShortCircuit, Impl: function.New(&function.Spec{
		Params: impl.Params(),
		Type:   impl.ReturnTypeForValues,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if byZero != "" && args[1].IsKnown() && !args[1].IsNull() && args[1].Type() == cty.Number && args[1].AsBigFloat().Sign() == 0 {
				return cty.NilVal, ev.opError(&limitError{summary: DivZeroSummary, detail: byZero})
			}
			r, err := impl.Call(args)
			if err != nil {
				return r, err
			}
			if r.IsKnown() && !r.IsNull() && r.Type() == cty.Number {
				if err := numberError("The result of this operation is", r.AsBigFloat()); err != nil {
					return cty.NilVal, ev.opError(err)
				}
			}
			return r, nil
		},
	})}
	ev.ops[orig] = g
	return g
}

// opError records err so that add can give hcl's "Operation failed"
// diagnostic (whose Detail is the only trace of it) err's summary.
func (ev *Evaluator) opError(err *limitError) error {
	ev.opErrors["Error during operation: "+err.Error()+"."] = err
	return err
}

// preChecks refuse, before the call, what a function would build beyond
// the limits (or spend too long on): the functions whose result can be
// far larger than their arguments.
func (ev *Evaluator) preChecks() map[string]func([]cty.Value) error {
	return map[string]func([]cty.Value) error{
		"setproduct": func(args []cty.Value) error {
			n := 1
			for _, a := range args {
				if !a.IsKnown() || a.IsNull() || !a.CanIterateElements() {
					return nil
				}
				n *= max(a.LengthInt(), 1)
				if n > MaxElements {
					return tooBig("The product of these collections has more than %d elements; krmplan allows %d.", MaxElements, MaxElements)
				}
			}
			return nil
		},
		"range":        rangeCount,
		"concat":       sumOfElements,
		"setunion":     sumOfElements,
		"merge":        sumOfElements,
		"coalescelist": sumOfElements,
		"zipmap":       sumOfElements,
		"join":         joinLength,
		"distinct": func(args []cty.Value) error {
			// cty compares every element with every one kept so far: n²/2
			// comparisons of values, each far more than a step. Measured on
			// the 2-core machine under load: 2,000 distinct numbers take 2.4 s,
			// 4,000 took 10 s (at n²/20 steps, 4,000 fitted in the budget).
			if a := args[0]; a.IsKnown() && !a.IsNull() && a.CanIterateElements() {
				n := a.LengthInt()
				ev.charge(n * (n / 4))
			}
			return nil
		},
		"indent":     indentLength,
		"replace":    ev.replaceLength,
		"regex":      ev.regexWork,
		"regexall":   ev.regexMatches,
		"csvdecode":  csvCount,
		"split":      splitCount,
		"format":     formatLength(false),
		"formatlist": formatLength(true),
		"jsondecode": jsonLimits,
		"parseint":   parseintLength,
		"tonumber":   func(args []cty.Value) error { return numberStrings(args[0], false) },
	}
}

// knownString is v's string when v is a known, non-null string.
func knownString(v cty.Value) (string, bool) {
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// knownInt is v as an int when it is a known whole number of int range.
func knownInt(v cty.Value) (int64, bool) {
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
		return 0, false
	}
	n, acc := v.AsBigFloat().Int64()
	return n, acc == big.Exact
}

func rangeCount(args []cty.Value) error {
	nums := make([]*big.Float, 0, 3)
	for _, a := range args {
		if !a.IsKnown() || a.IsNull() || a.Type() != cty.Number {
			return nil
		}
		nums = append(nums, a.AsBigFloat())
	}
	var start, limit, step *big.Float
	switch len(nums) {
	case 1:
		start, limit, step = big.NewFloat(0), nums[0], big.NewFloat(1)
	case 2:
		start, limit, step = nums[0], nums[1], big.NewFloat(1)
	case 3:
		start, limit, step = nums[0], nums[1], nums[2]
	default:
		return nil // cty refuses the call
	}
	if step.Sign() == 0 {
		return nil
	}
	count := new(big.Float).Sub(limit, start)
	count.Quo(count, step)
	if count.Cmp(big.NewFloat(MaxElements)) > 0 {
		return tooBig("This range has %s elements; krmplan allows %d.", NumberString(count), MaxElements)
	}
	return nil
}

// sumOfElements refuses the functions whose result can hold every element
// of every argument when they hold more than MaxElements together.
func sumOfElements(args []cty.Value) error {
	n := 0
	for _, a := range args {
		if a.IsKnown() && !a.IsNull() && a.CanIterateElements() {
			n += a.LengthInt()
		}
	}
	if n > MaxElements {
		return tooBig("The arguments hold %d elements together, and the result could hold them all; krmplan allows %d.", n, MaxElements)
	}
	return nil
}

func joinLength(args []cty.Value) error {
	sep, ok := knownString(args[0])
	if !ok {
		return nil
	}
	total := 0
	for _, list := range args[1:] {
		if !list.IsKnown() || list.IsNull() || !list.CanIterateElements() {
			return nil
		}
		for it := list.ElementIterator(); it.Next(); {
			_, el := it.Element()
			s, _ := knownString(el)
			total += len(s) + len(sep)
		}
	}
	return resultBytes(total)
}

func resultBytes(n int) error {
	if n > MaxBytes {
		return tooBig("The result would hold %d bytes of string; krmplan allows %d.", n, MaxBytes)
	}
	return nil
}

func indentLength(args []cty.Value) error {
	n, ok1 := knownInt(args[0])
	s, ok2 := knownString(args[1])
	if !ok1 || !ok2 || n < 0 {
		return nil
	}
	lines := int64(strings.Count(s, "\n") + 1)
	if n > MaxBytes || n*lines+int64(len(s)) > MaxBytes {
		return tooBig("Indenting %d lines by %d spaces would build more than %d bytes of string; krmplan allows %d.", lines, n, MaxBytes, MaxBytes)
	}
	return nil
}

func (ev *Evaluator) replaceLength(args []cty.Value) error {
	s, ok1 := knownString(args[0])
	sub, ok2 := knownString(args[1])
	rep, ok3 := knownString(args[2])
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
		if err := ev.regexWork([]cty.Value{cty.StringVal(sub), args[0]}); err != nil {
			return err
		}
		// Each match (at most one per byte, and one at the end) becomes
		// rep, whose $1 can repeat the whole string.
		return resultBytes(len(s) + (len(s)+1)*(len(rep)+1))
	}
	matches := utf8.RuneCountInString(s) + 1
	if sub != "" {
		matches = strings.Count(s, sub)
	}
	return resultBytes(len(s) + matches*len(rep))
}

// regexWork charges a regular expression search: Go's engine takes time
// in proportion to the text times the pattern.
func (ev *Evaluator) regexWork(args []cty.Value) error {
	pattern, ok1 := knownString(args[0])
	s, ok2 := knownString(args[1])
	if !ok1 || !ok2 {
		return nil
	}
	ev.charge((len(s) + 1) * (len(pattern) + 1) / 64)
	return nil
}

// regexMatches is regexWork, and refuses a search that finds more than
// MaxElements matches before cty builds them all (a 10 MB string has ten
// million matches of ".").
func (ev *Evaluator) regexMatches(args []cty.Value) error {
	if err := ev.regexWork(args); err != nil {
		return err
	}
	pattern, ok1 := knownString(args[0])
	s, ok2 := knownString(args[1])
	if !ok1 || !ok2 {
		return nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil // regexall's to refuse
	}
	if n := len(re.FindAllStringIndex(s, MaxElements+1)); n > MaxElements {
		return tooBig("The pattern matches more than %d times; krmplan allows %d.", MaxElements, MaxElements)
	}
	return nil
}

// csvCount refuses a CSV text of more than MaxElements fields (each comma
// and each line break ends one) before cty builds them all.
func csvCount(args []cty.Value) error {
	s, ok := knownString(args[0])
	if !ok {
		return nil
	}
	if n := strings.Count(s, ",") + strings.Count(s, "\n"); n > MaxElements {
		return tooBig("The CSV text holds about %d fields; krmplan allows %d.", n, MaxElements)
	}
	return nil
}

func splitCount(args []cty.Value) error {
	sep, ok1 := knownString(args[0])
	s, ok2 := knownString(args[1])
	if !ok1 || !ok2 {
		return nil
	}
	n := utf8.RuneCountInString(s)
	if sep != "" {
		n = strings.Count(s, sep) + 1
	}
	if n > MaxElements {
		return tooBig("Splitting this string gives %d elements; krmplan allows %d.", n, MaxElements)
	}
	return nil
}

// formatLength bounds what format (list false) and formatlist print: the
// widths and precisions of the verbs ("%0999999999d" asks for a
// gigabyte), and the length of the result: formatlist prints the format
// and its single values once per element of its lists.
func formatLength(list bool) func([]cty.Value) error {
	return func(args []cty.Value) error {
		spec, ok := knownString(args[0])
		if !ok {
			return nil
		}
		width, err := formatWidths(spec)
		if err != nil {
			return err
		}
		rows, once, each := 1, 0, len(spec)+width
		for _, a := range args[1:] {
			s, err := measure(a)
			if err != nil {
				return err
			}
			n := s.bytes + 32*(s.elements+1)
			if list && a.IsKnown() && !a.IsNull() && (a.Type().IsListType() || a.Type().IsTupleType()) {
				rows = max(rows, a.LengthInt())
				once += n
			} else {
				each += n
			}
		}
		return resultBytes(rows*each + once)
	}
}

// formatWidths is the sum of the widths and precisions of spec's verbs.
func formatWidths(spec string) (int, error) {
	total := 0
	for i := 0; i < len(spec); i++ {
		if spec[i] != '%' {
			continue
		}
		// The flags, argument index, width and precision, up to the verb.
		for i++; i < len(spec); i++ {
			if c := spec[i]; c < '0' || c > '9' {
				if strings.IndexByte("-+# .[]", c) < 0 {
					break
				}
				continue
			}
			j := i
			for j < len(spec) && spec[j] >= '0' && spec[j] <= '9' {
				j++
			}
			w, err := strconv.Atoi(spec[i:j])
			if err != nil || w > MaxBytes {
				return 0, tooBig("The format %s asks for a width or precision of more than %d characters; krmplan allows %d.", quota.Quote(spec), MaxBytes, MaxBytes)
			}
			total += w
			i = j - 1
		}
	}
	return total, nil
}

// jsonLimits reads the text jsondecode is given token by token (without
// recursion) and refuses, before cty decodes it recursively, a document
// that nests deeper than MaxDepth, holds more than MaxElements values, or
// holds a number quota.Parse refuses. A text that is not JSON is left for
// jsondecode to refuse.
func jsonLimits(args []cty.Value) error {
	text, ok := knownString(args[0])
	if !ok {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	depth, values := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '[' || t == '{' {
				if depth++; depth > MaxDepth {
					return tooBig("The JSON text nests more than %d levels deep; krmplan allows %d.", MaxDepth, MaxDepth)
				}
			} else {
				depth--
			}
			continue
		case json.Number:
			if err := numberString1(string(t), false); err != nil {
				return err
			}
		}
		if values++; values > 2*MaxElements {
			// A key and its value are two tokens.
			return tooBig("The JSON text holds more than %d values; krmplan allows %d.", MaxElements, MaxElements)
		}
	}
}

func parseintLength(args []cty.Value) error {
	if s, ok := knownString(args[0]); ok && len(s) > quota.MaxLength {
		return &limitError{summary: NumberSummary, detail: fmt.Sprintf("The string %s is %d characters long: a number below 10^18 is written in at most %d.", quota.Quote(s), len(s), quota.MaxLength)}
	}
	return nil
}
