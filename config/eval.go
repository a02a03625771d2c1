package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/krmplan/krmplan/internal/hcllimit"
)

// unlimitedVal is the value of the `unlimited` keyword: KRM's -1.
var unlimitedVal = cty.NumberIntVal(-1)

// Functions returns the functions available in desired.hcl: the pure go-cty
// standard library under Terraform's names, plus sum. Every call returns a
// fresh map.
func Functions() map[string]function.Function {
	return map[string]function.Function{
		// numbers
		"abs":      stdlib.AbsoluteFunc,
		"ceil":     stdlib.CeilFunc,
		"floor":    stdlib.FloorFunc,
		"log":      stdlib.LogFunc,
		"max":      stdlib.MaxFunc,
		"min":      stdlib.MinFunc,
		"parseint": stdlib.ParseIntFunc,
		"pow":      stdlib.PowFunc,
		"signum":   stdlib.SignumFunc,
		"sum":      sumFunc,
		// collections
		"chunklist":              stdlib.ChunklistFunc,
		"coalesce":               stdlib.CoalesceFunc,
		"coalescelist":           stdlib.CoalesceListFunc,
		"compact":                stdlib.CompactFunc,
		"concat":                 stdlib.ConcatFunc,
		"contains":               stdlib.ContainsFunc,
		"distinct":               stdlib.DistinctFunc,
		"element":                stdlib.ElementFunc,
		"flatten":                stdlib.FlattenFunc,
		"keys":                   stdlib.KeysFunc,
		"length":                 stdlib.LengthFunc,
		"lookup":                 stdlib.LookupFunc,
		"merge":                  stdlib.MergeFunc,
		"range":                  stdlib.RangeFunc,
		"reverse":                stdlib.ReverseListFunc,
		"setintersection":        stdlib.SetIntersectionFunc,
		"setproduct":             stdlib.SetProductFunc,
		"setsubtract":            stdlib.SetSubtractFunc,
		"setsymmetricdifference": stdlib.SetSymmetricDifferenceFunc,
		"setunion":               stdlib.SetUnionFunc,
		"slice":                  stdlib.SliceFunc,
		"sort":                   stdlib.SortFunc,
		"values":                 stdlib.ValuesFunc,
		"zipmap":                 stdlib.ZipmapFunc,
		// strings
		"chomp":      stdlib.ChompFunc,
		"format":     stdlib.FormatFunc,
		"formatlist": stdlib.FormatListFunc,
		"indent":     stdlib.IndentFunc,
		"join":       stdlib.JoinFunc,
		"lower":      stdlib.LowerFunc,
		"regex":      stdlib.RegexFunc,
		"regexall":   stdlib.RegexAllFunc,
		"replace":    stdlib.ReplaceFunc,
		"split":      stdlib.SplitFunc,
		"strlen":     stdlib.StrlenFunc,
		"strrev":     stdlib.ReverseFunc,
		"substr":     stdlib.SubstrFunc,
		"title":      stdlib.TitleFunc,
		"trim":       stdlib.TrimFunc,
		"trimprefix": stdlib.TrimPrefixFunc,
		"trimspace":  stdlib.TrimSpaceFunc,
		"trimsuffix": stdlib.TrimSuffixFunc,
		"upper":      stdlib.UpperFunc,
		// encodings and conversions
		"csvdecode":  stdlib.CSVDecodeFunc,
		"jsondecode": stdlib.JSONDecodeFunc,
		"jsonencode": stdlib.JSONEncodeFunc,
		"tobool":     stdlib.MakeToFunc(cty.Bool),
		"tolist":     stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":      stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":   stdlib.MakeToFunc(cty.Number),
		"toset":      stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":   stdlib.MakeToFunc(cty.String),
		// time (pure: no "now")
		"formatdate": stdlib.FormatDateFunc,
		"timeadd":    stdlib.TimeAddFunc,
	}
}

// sumFunc adds the numbers of a list, set or tuple; the sum of nothing is 0.
var sumFunc = function.New(&function.Spec{
	Description: "Returns the sum of the numbers in the given list, set or tuple.",
	Params: []function.Parameter{{
		Name: "list",
		Type: cty.DynamicPseudoType,
	}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		if !ty.IsListType() && !ty.IsSetType() && !ty.IsTupleType() && ty != cty.DynamicPseudoType {
			return cty.NilType, function.NewArgErrorf(0, "sum needs a list, set or tuple of numbers, not %s", ty.FriendlyName())
		}
		return cty.Number, nil
	},
	Impl: func(args []cty.Value, _ cty.Type) (ret cty.Value, err error) {
		defer func() {
			// big.Float panics on +Inf + -Inf.
			if r := recover(); r != nil {
				ret, err = cty.NilVal, function.NewArgErrorf(0, "the sum is not a number: %v", r)
			}
		}()
		list := args[0]
		if !list.IsWhollyKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		total := cty.Zero
		i := 0
		for it := list.ElementIterator(); it.Next(); i++ {
			_, el := it.Element()
			if el.IsNull() || el.Type() != cty.Number {
				return cty.NilVal, function.NewArgErrorf(0, "element %d is %s, not a number", i, describe(el))
			}
			total = total.Add(el)
		}
		return total, nil
	},
})

// baseContext is the context of values that cannot refer to variables or
// locals: variable defaults and --var / --var-file values.
func (d *decoder) baseContext() *hcl.EvalContext {
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{"unlimited": unlimitedVal},
		Functions: d.ev.Functions(),
	}
}

// variable is one `variable "name" {}` block and the value it resolved to.
type variable struct {
	name     string
	defRange hcl.Range
	ty       cty.Type // cty.DynamicPseudoType without a type constraint
	typed    bool
	value    cty.Value // cty.NilVal while unset
	// valueRange is where the value was given: the default, a var file
	// attribute or a --var pseudo file.
	valueRange hcl.Range
}

// local is one attribute of a `locals {}` block.
type local struct {
	attr  *hcl.Attribute
	state int // 0 not visited, 1 on the stack, 2 done
	value cty.Value
	// index is the local's place on the stack while state is 1; low the
	// lowest place that a reference from it or from what it leads to
	// reaches on the stack (Tarjan's low link): below index, it is in a
	// cycle.
	index, low int
	inCycle    bool
}

// declareVariables reads the variable blocks and their defaults.
func (d *decoder) declareVariables(blocks hcl.Blocks) {
	base := d.baseContext()
	for _, b := range blocks {
		name := b.Labels[0]
		if !d.checkLabel("variable", b, true) {
			continue
		}
		if prev, ok := d.vars[name]; ok {
			d.duplicate("variable", name, b.DefRange, prev.defRange)
			continue
		}
		v := &variable{name: name, defRange: b.DefRange, ty: cty.DynamicPseudoType}
		d.vars[name] = v
		d.varOrder = append(d.varOrder, name)
		content, diags := b.Body.Content(variableSchema)
		d.add(diags)
		if attr, ok := content.Attributes["type"]; ok {
			ty, diags := typeConstraint(attr.Expr)
			d.add(diags)
			if !diags.HasErrors() {
				v.ty, v.typed = ty, true
			}
		}
		if attr, ok := content.Attributes["description"]; ok {
			val, diags := d.ev.Value(attr.Expr, base, attr.Range.Ptr())
			d.add(diags)
			if !diags.HasErrors() && (!val.IsKnown() || val.IsNull() || val.Type() != cty.String) {
				d.diags = append(d.diags, valueError("description", attr.Expr, base, attr.Range.Ptr(),
					fmt.Sprintf("A string is required, but this is %s.", describe(val))))
			}
		}
		if attr, ok := content.Attributes["default"]; ok {
			val, diags := d.ev.Value(attr.Expr, base, attr.Range.Ptr())
			d.add(diags)
			if diags.HasErrors() {
				d.upstreamErr = true
				v.value = cty.DynamicVal
			} else {
				if conv, err := hcllimit.Convert(val, v.ty); err != nil {
					d.upstreamErr = true
					v.value = cty.DynamicVal
					summary, detail := hcllimit.Text(err, "Invalid default value for variable",
						"This default value is not compatible with the variable's type constraint: %s.", errText)
					d.diags = append(d.diags, &hcl.Diagnostic{
						Severity:    hcl.DiagError,
						Summary:     summary,
						Detail:      detail,
						Subject:     attr.Expr.Range().Ptr(),
						Context:     attr.Range.Ptr(),
						Expression:  attr.Expr,
						EvalContext: base,
					})
				} else {
					v.value, v.valueRange = conv, attr.Expr.Range()
				}
			}
		}
	}
}

// typeConstraint reads a `type = ...` expression without panicking on
// malformed input.
func typeConstraint(expr hcl.Expression) (ty cty.Type, diags hcl.Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			ty = cty.DynamicPseudoType
			diags = hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid type specification",
				Detail:   fmt.Sprintf("The type could not be read: %v.", r),
				Subject:  expr.Range().Ptr(),
			}}
		}
	}()
	return typeexprTypeConstraint(expr)
}

// errText prints a conversion error; a path error names the element.
func errText(err error) string {
	var pe cty.PathError
	if errors.As(err, &pe) && len(pe.Path) > 0 {
		return fmt.Sprintf("%s: %s", pathString(pe.Path), pe.Error())
	}
	return err.Error()
}

func pathString(p cty.Path) string {
	var b strings.Builder
	b.WriteString("value")
	for _, step := range p {
		switch s := step.(type) {
		case cty.GetAttrStep:
			b.WriteString("." + s.Name)
		case cty.IndexStep:
			if s.Key.IsKnown() && !s.Key.IsNull() && s.Key.Type() == cty.String {
				fmt.Fprintf(&b, "[%q]", s.Key.AsString())
			} else if s.Key.IsKnown() && !s.Key.IsNull() && s.Key.Type() == cty.Number {
				fmt.Fprintf(&b, "[%s]", hcllimit.NumberString(s.Key.AsBigFloat()))
			} else {
				b.WriteString("[...]")
			}
		}
	}
	return b.String()
}

// assignVarFile applies the attributes of one --var-file.
func (d *decoder) assignVarFile(name string, src []byte) {
	file, diags, ok := d.ev.ParseConfig(src, name)
	d.files[name] = file
	d.add(diags)
	if diags.HasErrors() {
		d.upstreamErr = true
	}
	if !ok {
		return
	}
	attrs, diags := file.Body.JustAttributes()
	d.add(diags)
	base := d.baseContext()
	for _, attr := range sortedAttrs(attrs) {
		v, ok := d.vars[attr.Name]
		if !ok {
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("The file %s assigns a value to %q, but %s declares no variable of that name; add a variable block or remove the value.", name, attr.Name, d.filename),
				Subject:  attr.NameRange.Ptr(),
				Context:  attr.Range.Ptr(),
			})
			continue
		}
		val, diags := d.ev.Value(attr.Expr, base, attr.Range.Ptr())
		d.add(diags)
		if diags.HasErrors() {
			d.upstreamErr = true
			v.value = cty.DynamicVal
			continue
		}
		d.setVar(v, val, attr.Expr.Range(), attr.Range.Ptr(), attr.Expr, base)
	}
}

// assignVarOption applies one --var k=v option.
func (d *decoder) assignVarOption(opt string) {
	eq := strings.IndexByte(opt, '=')
	if eq <= 0 {
		file := d.pseudoFile("<--var option>", opt)
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid --var option",
			Detail:   fmt.Sprintf("The option --var %q is not a variable name and a value separated by an equals sign, like --var name=value.", opt),
			Subject:  fileRange(file, opt).Ptr(),
		})
		return
	}
	name, text := strings.TrimSpace(opt[:eq]), opt[eq+1:]
	file := d.pseudoFile(fmt.Sprintf("<value for var.%s>", name), text)
	rng := fileRange(file, text)
	v, ok := d.vars[name]
	if !ok {
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Value for undeclared variable",
			Detail:   fmt.Sprintf("A value for %q was given with --var, but %s declares no variable of that name; add a variable block or remove the option.", name, d.filename),
			Subject:  rng.Ptr(),
		})
		return
	}
	// Like Terraform: a string variable takes the text as it is; otherwise
	// the text is an HCL expression if it is one, and a string if not.
	// An expression past a limit (a number out of range, too deep) is an
	// error, not a string.
	val := cty.StringVal(text)
	if v.ty != cty.String {
		expr, diags := d.ev.ParseExpression([]byte(text), file, rng.Start)
		if !diags.HasErrors() {
			var ev cty.Value
			ev, diags = d.ev.Value(expr, d.baseContext(), nil)
			if !diags.HasErrors() && ev.IsWhollyKnown() {
				val = ev
			}
		}
		if hcllimit.Broken(diags) {
			d.add(diags)
			d.upstreamErr = true
			v.value = cty.DynamicVal
			return
		}
	}
	if diag := d.ev.CheckValue(&hclsyntax.LiteralValueExpr{Val: val, SrcRange: rng}, val, nil); diag != nil {
		d.add(hcl.Diagnostics{diag})
		d.upstreamErr = true
		v.value = cty.DynamicVal
		return
	}
	d.setVar(v, val, rng, nil, nil, nil)
}

// setVar converts val to v's type and records it.
func (d *decoder) setVar(v *variable, val cty.Value, rng hcl.Range, context *hcl.Range, expr hcl.Expression, ctx *hcl.EvalContext) {
	conv, err := hcllimit.Convert(val, v.ty)
	if err != nil {
		d.upstreamErr = true
		v.value = cty.DynamicVal
		summary, detail := hcllimit.Text(err, "Invalid value for variable",
			fmt.Sprintf("The value for var.%s is not compatible with its type constraint (%s): %%s.", v.name, typeString(v.ty)), errText)
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity:    hcl.DiagError,
			Summary:     summary,
			Detail:      detail,
			Subject:     rng.Ptr(),
			Context:     context,
			Expression:  expr,
			EvalContext: ctx,
		})
		return
	}
	v.value, v.valueRange = conv, rng
}

// checkRequired reports the variables that have no value.
func (d *decoder) checkRequired() {
	for _, name := range d.varOrder {
		v := d.vars[name]
		if v.value == cty.NilVal {
			d.upstreamErr = true
			v.value = cty.DynamicVal
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No value for required variable",
				Detail:   fmt.Sprintf("The variable %q has no default, so a value must be given with --var %s=... or in a --var-file.", name, name),
				Subject:  v.defRange.Ptr(),
			})
		}
	}
}

// varObject is the `var` object of the evaluation context.
func (d *decoder) varObject() cty.Value {
	m := make(map[string]cty.Value, len(d.vars))
	for name, v := range d.vars {
		m[name] = v.value
	}
	return cty.ObjectVal(m)
}

// declareLocals collects the attributes of every locals block.
func (d *decoder) declareLocals(blocks hcl.Blocks) {
	for _, b := range blocks {
		attrs, diags := b.Body.JustAttributes()
		d.add(diags)
		for _, attr := range sortedAttrs(attrs) {
			if prev, ok := d.locals[attr.Name]; ok {
				d.duplicateAt("local", attr.Name, attr.NameRange, prev.attr.NameRange, attr.Range.Ptr())
				continue
			}
			d.locals[attr.Name] = &local{attr: attr}
			d.localOrder = append(d.localOrder, attr.Name)
		}
	}
}

// localRef is one reference from a local's expression to another local.
type localRef struct {
	name string // "" for a reference to the whole `local` object
	rng  hcl.Range
}

func localRefs(expr hcl.Expression) []localRef {
	var refs []localRef
	for _, t := range expr.Variables() {
		if t.RootName() != "local" {
			continue
		}
		ref := localRef{rng: t.SourceRange()}
		if len(t) >= 2 {
			switch step := t[1].(type) {
			case hcl.TraverseAttr:
				ref.name = step.Name
			case hcl.TraverseIndex:
				if step.Key.IsKnown() && !step.Key.IsNull() && step.Key.Type() == cty.String {
					ref.name = step.Key.AsString()
				}
			}
			ref.rng = hcl.RangeBetween(t[0].SourceRange(), t[1].SourceRange())
		}
		refs = append(refs, ref)
	}
	return refs
}

// evalLocals evaluates every local in dependency order; a cycle is an
// error, and its locals are unknown. The order is a depth-first walk with
// its own stack (a chain of 100,000 locals, each naming the next, must not
// recurse 100,000 deep), and each local is evaluated in a context of just
// the locals it names, so the work is linear in the references.
func (d *decoder) evalLocals(varObj cty.Value) {
	for _, root := range d.localOrder {
		if d.locals[root].state != 0 {
			continue
		}
		var stack []*local
		refs := map[*local][]localRef{}
		push := func(l *local) {
			l.state, l.index, l.low = 1, len(stack), len(stack)
			stack = append(stack, l)
			refs[l] = d.namedLocals(l)
		}
		push(d.locals[root])
		for len(stack) > 0 {
			l := stack[len(stack)-1]
			if rs := refs[l]; len(rs) > 0 {
				ref := rs[0]
				refs[l] = rs[1:]
				switch dl := d.locals[ref.name]; dl.state {
				case 0:
					push(dl)
				case 1:
					d.reportCycle(stack[dl.index:], ref.rng, l.attr)
					dl.inCycle = true
					l.low = min(l.low, dl.index)
				}
				continue
			}
			stack = stack[:len(stack)-1]
			delete(refs, l)
			l.state = 2
			if l.low < l.index {
				l.inCycle = true
				parent := stack[len(stack)-1]
				parent.low = min(parent.low, l.low)
			}
			d.evalLocal(l, varObj)
		}
	}
}

// namedLocals is the references of l's expression to declared locals. A
// reference to the whole `local` object is an error: it would make l
// depend on every local.
func (d *decoder) namedLocals(l *local) []localRef {
	var out []localRef
	for _, ref := range localRefs(l.attr.Expr) {
		if ref.name == "" {
			d.upstreamErr = true
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid reference to local",
				Detail:   "A local cannot use the whole local object; refer to one of its attributes, like local.name.",
				Subject:  ref.rng.Ptr(),
				Context:  l.attr.Range.Ptr(),
			})
			continue
		}
		if _, ok := d.locals[ref.name]; ok {
			out = append(out, ref)
		}
	}
	return out
}

// evalLocal evaluates l, whose references are done, in a context of the
// locals it names.
func (d *decoder) evalLocal(l *local, varObj cty.Value) {
	if l.inCycle {
		l.value = cty.DynamicVal
		return
	}
	named := map[string]cty.Value{}
	for _, ref := range localRefs(l.attr.Expr) {
		if dl, ok := d.locals[ref.name]; ok && dl.state == 2 && dl.value != cty.NilVal {
			named[ref.name] = dl.value
		}
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"unlimited": unlimitedVal, "var": varObj, "local": cty.ObjectVal(named)},
		Functions: d.ev.Functions(),
	}
	val, diags := d.ev.Value(l.attr.Expr, ctx, l.attr.Range.Ptr())
	d.add(diags)
	if diags.HasErrors() {
		d.upstreamErr = true
		val = cty.DynamicVal
	}
	l.value = val
}

// reportCycle reports the reference at refRange, from attr, that closes a
// cycle through the locals of cycle (from the one it refers to up to
// attr's). A long cycle is shown by its first and last few locals.
func (d *decoder) reportCycle(cycle []*local, refRange hcl.Range, attr *hcl.Attribute) {
	d.upstreamErr = true
	const shown = 10
	name := func(l *local) string { return "local." + l.attr.Name }
	var path []string
	if len(cycle) <= 2*shown {
		for _, l := range cycle {
			path = append(path, name(l))
		}
	} else {
		for _, l := range cycle[:shown] {
			path = append(path, name(l))
		}
		path = append(path, fmt.Sprintf("… (%d more)", len(cycle)-2*shown))
		for _, l := range cycle[len(cycle)-shown:] {
			path = append(path, name(l))
		}
	}
	path = append(path, name(cycle[0]))
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Circular reference in locals",
		Detail:   fmt.Sprintf("The local values refer to each other in a cycle: %s. A local may refer to other locals only if they do not lead back to it.", strings.Join(path, " → ")),
		Subject:  refRange.Ptr(),
		Context:  attr.Range.Ptr(),
	})
}

// localObject is the `local` object of the evaluation context: the locals
// evaluated so far.
func (d *decoder) localObject() cty.Value {
	m := make(map[string]cty.Value, len(d.locals))
	for name, l := range d.locals {
		if l.state == 2 && l.value != cty.NilVal {
			m[name] = l.value
		}
	}
	return cty.ObjectVal(m)
}

// sortedAttrs returns attrs in source order.
func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	list := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Range.Start.Byte < list[j].Range.Start.Byte })
	return list
}
