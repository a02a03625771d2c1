package hcllimit

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// rewriter prepares a parsed file for a bounded evaluation. hcl evaluates
// for expressions, splats, templates and constructors itself, with no
// hook, so the rewriter puts guards (guard.go) around them, which check
// what they build and charge the work; it guards the operators (division
// by zero, the range of results) and every string that hcl would read as
// a number. A guard evaluates to what it wraps, with the same range, and
// hcl's analysis (Variables, the locals' dependencies) sees through it.
type rewriter struct {
	ev    *Evaluator
	src   []byte          // the source the ranges point into
	diags hcl.Diagnostics // literal index keys past the limits
}

// body rewrites every attribute of a file's body and its blocks, except
// the type of a variable, which typeexpr reads as syntax.
func (r *rewriter) body(b *hclsyntax.Body, variable bool) {
	for name, attr := range b.Attributes {
		if variable && name == "type" {
			continue
		}
		attr.Expr = r.top(attr.Expr)
	}
	for _, blk := range b.Blocks {
		r.body(blk.Body, blk.Type == "variable")
	}
}

// top rewrites an attribute's whole expression. It stays the same
// expression (so that hcl.ExprMap and friends still see its syntax), and
// its count of syntax nodes is recorded for checkValue.
func (r *rewriter) top(e hclsyntax.Expression) hclsyntax.Expression {
	e, n := r.expr(e, false)
	r.ev.nodes[e] = n
	return e
}

// wrap puts a guard around e; set says what it checks.
func (r *rewriter) wrap(e hclsyntax.Expression, cost int, set func(*guard)) hclsyntax.Expression {
	g := r.guard(e)
	g.cost = cost
	set(g)
	return g
}

// guard is a new guard around e. It holds e in a ParenthesesExpr, whose
// walk visits e itself (a guard's own walk is e's: it would visit e's
// children only, and hide a reference `local.x` from hcl's Variables).
func (r *rewriter) guard(e hclsyntax.Expression) *guard {
	return &guard{Expression: &hclsyntax.ParenthesesExpr{Expression: e, SrcRange: e.Range()}, ev: r.ev}
}

func meter(g *guard) { g.meter = true }
func iter(g *guard)  { g.iter = true }
func index(g *guard) { g.index = true }

// expr rewrites e's children and returns e (or, when meter is set and e
// builds a value, e wrapped in #meter) and its number of syntax nodes.
// The recursion is as deep as the syntax, which Check bounds.
func (r *rewriter) expr(e hclsyntax.Expression, metered bool) (hclsyntax.Expression, int) {
	n := 1
	child := func(c hclsyntax.Expression, metered bool) hclsyntax.Expression {
		c, m := r.expr(c, metered)
		n += m
		return c
	}
	builds := false
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		r.literal(e)
	case *hclsyntax.ScopeTraversalExpr:
		r.traversal(e.Traversal)
		n += len(e.Traversal)
	case *hclsyntax.RelativeTraversalExpr:
		e.Source = child(e.Source, true)
		r.traversal(e.Traversal)
		n += len(e.Traversal)
	case *hclsyntax.ParenthesesExpr:
		e.Expression = child(e.Expression, metered)
	case *hclsyntax.TemplateWrapExpr:
		e.Wrapped = child(e.Wrapped, metered)
	case *hclsyntax.FunctionCallExpr:
		r.call(e, child)
	case *hclsyntax.ConditionalExpr:
		// hcl unifies the types of both results, which walks them.
		e.Condition = child(e.Condition, false)
		e.TrueResult = r.operand(child(e.TrueResult, true), cty.DynamicPseudoType)
		e.FalseResult = r.operand(child(e.FalseResult, true), cty.DynamicPseudoType)
	case *hclsyntax.IndexExpr:
		e.Collection = child(e.Collection, true)
		e.Key = r.wrap(child(e.Key, true), 0, index)
	case *hclsyntax.BinaryOpExpr:
		e.LHS = r.operand(child(e.LHS, true), e.Op.Impl.Params()[0].Type)
		e.RHS = r.operand(child(e.RHS, true), e.Op.Impl.Params()[1].Type)
		e.Op = r.ev.op(e.Op)
	case *hclsyntax.UnaryOpExpr:
		e.Val = r.operand(child(e.Val, true), e.Op.Impl.Params()[0].Type)
	case *hclsyntax.TupleConsExpr:
		for i := range e.Exprs {
			e.Exprs[i] = child(e.Exprs[i], true)
		}
		builds = true
	case *hclsyntax.ObjectConsExpr:
		r.object(e, child)
		builds = true
	case *hclsyntax.TemplateExpr:
		for i, p := range e.Parts {
			if _, lit := p.(*hclsyntax.LiteralValueExpr); !lit {
				e.Parts[i] = r.wrap(child(p, true), 0, meter)
			}
		}
		builds = !e.IsStringLiteral()
	case *hclsyntax.TemplateJoinExpr:
		e.Tuple = child(e.Tuple, false)
	case *hclsyntax.ForExpr:
		r.forExpr(e, child)
		builds = true
	case *hclsyntax.SplatExpr:
		src := child(e.Source, true)
		each, m := r.expr(e.Each, true)
		n += m
		e.Each = each
		e.Source = r.wrap(src, m+1, iter)
		builds = true
	}
	if metered && builds {
		return r.wrap(e, n, meter), n
	}
	return e, n
}

// object rewrites an object constructor's items.
func (r *rewriter) object(e *hclsyntax.ObjectConsExpr, child func(hclsyntax.Expression, bool) hclsyntax.Expression) {
	for i := range e.Items {
		if k, ok := e.Items[i].KeyExpr.(*hclsyntax.ObjectConsKeyExpr); ok {
			// The key itself stays: a bare word is a keyword only there.
			k.Wrapped = child(k.Wrapped, false)
		} else {
			e.Items[i].KeyExpr = child(e.Items[i].KeyExpr, false)
		}
		e.Items[i].ValueExpr = child(e.Items[i].ValueExpr, true)
	}
}

// forExpr rewrites a for expression: its collection is charged, before
// the loop runs, one step per iteration for each syntax node of the key,
// the value and the condition.
func (r *rewriter) forExpr(e *hclsyntax.ForExpr, child func(hclsyntax.Expression, bool) hclsyntax.Expression) {
	coll := child(e.CollExpr, true)
	body := 0
	sub := func(x hclsyntax.Expression, metered bool) hclsyntax.Expression {
		if x == nil {
			return nil
		}
		x, m := r.expr(x, metered)
		body += m
		return x
	}
	e.KeyExpr = sub(e.KeyExpr, true)
	e.ValExpr = sub(e.ValExpr, true)
	e.CondExpr = sub(e.CondExpr, false)
	e.CollExpr = r.wrap(coll, body+1, iter)
}

// call rewrites a function call. Each argument is metered before the
// call (cty walks every argument in full before the function runs), and
// a number parameter's argument is guarded against strings that are not
// numbers quota.Parse reads (hcl would read them at cty's cost).
func (r *rewriter) call(e *hclsyntax.FunctionCallExpr, child func(hclsyntax.Expression, bool) hclsyntax.Expression) {
	f, known := r.ev.funcs[e.Name]
	for i := range e.Args {
		e.Args[i] = child(e.Args[i], true)
		if !known {
			continue
		}
		ty := cty.DynamicPseudoType
		if params := f.Params(); i < len(params) {
			ty = params[i].Type
		} else if vp := f.VarParam(); vp != nil {
			ty = vp.Type
		}
		e.Args[i] = r.operand(e.Args[i], ty)
	}
}

// traversal reports a literal string index key (local.l["0"]) that hcl
// would read as a number, for a list, and that quota.Parse refuses: the
// key is in the syntax, so no guard can. The key becomes unknown,
// so that hcl does not read it.
func (r *rewriter) traversal(t hcl.Traversal) {
	for i, step := range t {
		ix, ok := step.(hcl.TraverseIndex)
		if !ok || !ix.Key.IsKnown() || ix.Key.IsNull() || ix.Key.Type() != cty.String {
			continue
		}
		if le, ok := numberString1(ix.Key.AsString(), true).(*limitError); ok {
			r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: le.summary, Detail: le.detail, Subject: ix.SrcRange.Ptr()})
			t[i] = hcl.TraverseIndex{Key: cty.UnknownVal(cty.String), SrcRange: ix.SrcRange}
		}
	}
}

// operand guards an operand or an argument: its value is metered (the
// operators and functions walk it), and when hcl converts it to a number
// its strings are held to quota.Parse. A literal needs neither.
func (r *rewriter) operand(e hclsyntax.Expression, ty cty.Type) hclsyntax.Expression {
	if _, ok := e.(*hclsyntax.LiteralValueExpr); ok {
		return e
	}
	g, ok := e.(*guard)
	if !ok || !g.meter {
		g = r.guard(e)
		g.meter = true
	}
	g.numbers = g.numbers || ty == cty.Number
	return g
}

// literal disables a number literal that Check refused (and
// reported): its value is unknown, so that nothing reports it again.
func (r *rewriter) literal(e *hclsyntax.LiteralValueExpr) {
	if e.Val.Type() != cty.Number {
		return
	}
	rng := e.SrcRange
	if rng.Start.Byte < 0 || rng.End.Byte > len(r.src) || rng.Start.Byte > rng.End.Byte {
		return
	}
	if BadNumber(string(r.src[rng.Start.Byte:rng.End.Byte])) {
		e.Val = cty.UnknownVal(cty.Number)
	}
}

// ParseConfig checks src (Check), parses it as an HCL file and prepares
// it for a bounded evaluation: the file's attributes then evaluate with
// Value (the type of a variable block is left as it is, for typeexpr).
// The file is never nil; ok is false when it cannot be read further (too
// deep, too dense, a syntax error). A number literal out of range is an
// error in diags, and the file is still read, without it (its value is
// unknown).
func (ev *Evaluator) ParseConfig(src []byte, filename string) (file *hcl.File, diags hcl.Diagnostics, ok bool) {
	diags, parse := Check(src, filename, hcl.InitialPos)
	if !parse {
		return &hcl.File{Bytes: src, Body: hcl.EmptyBody()}, diags, false
	}
	file, pdiags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	diags = append(diags, pdiags...)
	if file == nil {
		file = &hcl.File{Bytes: src}
	}
	if body, isSyntax := file.Body.(*hclsyntax.Body); isSyntax {
		r := &rewriter{ev: ev, src: src}
		r.body(body, false)
		diags = append(diags, r.diags...)
	} else {
		file.Body = hcl.EmptyBody()
	}
	return file, diags, !pdiags.HasErrors()
}

// ParseExpression is ParseConfig for an expression (a --var value); the
// expression is nil when it cannot be evaluated.
func (ev *Evaluator) ParseExpression(src []byte, filename string, start hcl.Pos) (hclsyntax.Expression, hcl.Diagnostics) {
	diags, parse := Check(src, filename, start)
	if !parse {
		return nil, diags
	}
	expr, pdiags := hclsyntax.ParseExpression(src, filename, start)
	diags = append(diags, pdiags...)
	if expr == nil {
		return nil, diags
	}
	r := &rewriter{ev: ev, src: src}
	expr = r.top(expr)
	return expr, append(diags, r.diags...)
}
