package diag

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/krmplan/krmplan/internal/hcllimit"
	"github.com/zclconf/go-cty/cty"
)

// Files are the HCL sources a diagnostic may point at, by the file name of
// its ranges: the text writer shows their lines, and the converters find
// the enclosing block in their syntax tree (config.Overlay.Files, or
// ParseFiles of a plan's desired source).
type Files map[string]*hcl.File

// ParseFiles parses each source for its blocks, within hcllimit's bounds:
// a source that is too deep or too dense to parse (a plan file's desired
// source is input too) keeps its bytes, without blocks.
func ParseFiles(srcs map[string][]byte) Files {
	out := Files{}
	for name, src := range srcs {
		f := &hcl.File{Bytes: src}
		if _, parse := hcllimit.Check(src, name, hcl.InitialPos); parse {
			if parsed, _ := hclsyntax.ParseConfig(src, name, hcl.InitialPos); parsed != nil {
				f.Body = parsed.Body
			}
		}
		out[name] = f
	}
	return out
}

// source is the bytes of file name, and whether they are known.
func (fs Files) source(name string) ([]byte, bool) {
	f := fs[name]
	if f == nil || f.Bytes == nil {
		return nil, false
	}
	return f.Bytes, true
}

// Block is the header of the block of file name that encloses offset: the
// top-level block's type and labels (`project "workspace"`, `locals`, as
// hcl's own writer names it), then each labelled block inside it that
// encloses offset too (`project "workspace", queue "h100"`); unlabelled
// inner blocks (`gpu { }`) are left out, their attribute names them. ""
// outside every block or for a file without its syntax tree.
func (fs Files) Block(name string, offset int) string {
	f := fs[name]
	if f == nil {
		return ""
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return ""
	}
	var parts []string
	for body != nil {
		var in *hclsyntax.Block
		for _, b := range body.Blocks {
			if b.Range().ContainsOffset(offset) {
				in = b
				break
			}
		}
		if in == nil {
			break
		}
		if len(parts) == 0 || len(in.Labels) > 0 {
			parts = append(parts, header(in))
		}
		body = in.Body
	}
	return strings.Join(parts, ", ")
}

// header is a block's type and quoted labels: `queue "h100"`.
func header(b *hclsyntax.Block) string {
	var s strings.Builder
	s.WriteString(b.Type)
	for _, l := range b.Labels {
		s.WriteString(" " + strconv.Quote(l))
	}
	return s.String()
}

// FromHCL converts an HCL problem: its severity (an invalid one is an
// error), summary, detail, subject and context with their enclosing
// blocks in files, and, when it carries its expression and evaluation
// context, the values the expression used.
func FromHCL(d *hcl.Diagnostic, files Files) Diagnostic {
	out := Diagnostic{Severity: Error, Summary: d.Summary, Detail: d.Detail}
	if d.Severity == hcl.DiagWarning {
		out.Severity = Warning
	}
	if d.Subject != nil {
		r := hclRange(*d.Subject, files)
		out.Subject = &r
	}
	if d.Context != nil {
		r := hclRange(*d.Context, files)
		out.Context = &r
	}
	if d.Expression != nil && d.EvalContext != nil {
		out.Values = valuesUsed(d.Expression, d.EvalContext)
	}
	return out
}

// FromHCLs is FromHCL of each diagnostic, in order.
func FromHCLs(diags hcl.Diagnostics, files Files) []Diagnostic {
	out := make([]Diagnostic, 0, len(diags))
	for _, d := range diags {
		if d != nil {
			out = append(out, FromHCL(d, files))
		}
	}
	return out
}

func hclRange(r hcl.Range, files Files) Range {
	return Range{File: r.Filename, HCL: true,
		Start: Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:   Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
		Block: files.Block(r.Filename, r.Start.Byte)}
}

// maxValues bounds the values listed for one expression, and
// maxValueRunes a string value's text: an expression over a large
// variable must not flood the terminal.
const (
	maxValues     = 20
	maxValueRunes = 60
)

// valuesUsed is each variable expr refers to that ctx resolves to a known
// value, once per traversal, sorted by name. A traversal that does not
// resolve is left out (its own error says why), as are unknown and marked
// values, which hcl's writer leaves out too.
func valuesUsed(expr hcl.Expression, ctx *hcl.EvalContext) []Value {
	seen := map[string]bool{}
	var out []Value
	for _, t := range expr.Variables() {
		v, diags := t.TraverseAbs(ctx)
		if diags.HasErrors() || !v.IsKnown() || v.IsMarked() {
			continue
		}
		name := traversalName(t)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, Value{Name: name, Text: valueText(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) > maxValues {
		out = out[:maxValues]
	}
	return out
}

// traversalName is `var.gpus`, `local.pools["h100"]`; an index that is
// not a number or a string is `[...]`.
func traversalName(t hcl.Traversal) string {
	var s strings.Builder
	for _, step := range t {
		switch st := step.(type) {
		case hcl.TraverseRoot:
			s.WriteString(st.Name)
		case hcl.TraverseAttr:
			s.WriteString("." + st.Name)
		case hcl.TraverseIndex:
			key := "..."
			if ty := st.Key.Type(); st.Key.IsKnown() && !st.Key.IsNull() && (ty == cty.String || ty == cty.Number) {
				key = valueText(st.Key)
			}
			s.WriteString("[" + key + "]")
		}
	}
	return s.String()
}

// valueText is a value as the text view lists it: a number in decimal
// (`0.5`, `64`), a string quoted (and cut after maxValueRunes), a bool,
// `null`, and a collection or object by its type and size.
func valueText(v cty.Value) string {
	ty := v.Type()
	switch {
	case v.IsNull():
		return "null"
	case ty == cty.Number:
		return numberText(v.AsBigFloat())
	case ty == cty.Bool:
		return strconv.FormatBool(v.True())
	case ty == cty.String:
		s := v.AsString()
		if utf8.RuneCountInString(s) > maxValueRunes {
			return strconv.Quote(string([]rune(s)[:maxValueRunes])) + "…"
		}
		return strconv.Quote(s)
	case ty.IsObjectType():
		return countOf(len(ty.AttributeTypes()), "object with %d attribute")
	case ty.IsCollectionType() || ty.IsTupleType():
		return countOf(v.LengthInt(), ty.FriendlyName()+" with %d element")
	}
	return ty.FriendlyName()
}

// numberText is a number in decimal, without an exponent for the sizes a
// quota has: the shortest text of 20 significant digits.
func numberText(f *big.Float) string {
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact {
			return strconv.FormatInt(i, 10)
		}
	}
	return f.Text('g', 20)
}

// countOf is format with n and an "s" unless n is 1.
func countOf(n int, format string) string {
	s := fmt.Sprintf(format, n)
	if n != 1 {
		s += "s"
	}
	return s
}
