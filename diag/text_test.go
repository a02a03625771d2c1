package diag

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/krmplan/krmplan/tenancy"
)

// desired is a desired.hcl with a nested block and an expression over two
// lines that uses two variables.
const desired = `variable "gpus" {}
project "workspace" {
  queue "h100" {
    gpu {
      deserved = (var.gpus -
        local.cards)
    }
  }
}
`

// parsed is src parsed as file name, and the attribute at the path of
// block indexes (then the attribute's name).
func parsed(t *testing.T, name, src string) (Files, *hclsyntax.Body) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), name, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return Files{name: f}, f.Body.(*hclsyntax.Body)
}

func text(t *testing.T, ds []Diagnostic, files Files, st Style) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, ds, files, st); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// An HCL problem over an expression of two lines inside a nested block
// shows the block's header, both lines numbered and marked, and the
// values the expression used, sorted.
func TestTextMultiLineRangeValuesAndBlock(t *testing.T) {
	files, body := parsed(t, "desired.hcl", desired)
	expr := body.Blocks[1].Body.Blocks[0].Body.Blocks[0].Body.Attributes["deserved"].Expr
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{
		"var":   cty.ObjectVal(map[string]cty.Value{"gpus": cty.NumberIntVal(5)}),
		"local": cty.ObjectVal(map[string]cty.Value{"cards": cty.MustParseNumberVal("0.5")}),
	}}
	rng := expr.Range()
	d := FromHCL(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for \"deserved\"",
		Detail: "A guarantee is a number of cards.", Subject: &rng, Expression: expr, EvalContext: ctx}, files)
	want := "Error: Invalid value for \"deserved\"\n" +
		"  on desired.hcl line 5, in project \"workspace\", queue \"h100\":\n" +
		"   5:       deserved = (var.gpus -\n" +
		"                       ^^^^^^^^^^^\n" +
		"   6:         local.cards)\n" +
		"              ^^^^^^^^^^^^\n" +
		"    ├────────────────\n" +
		"    │ local.cards is 0.5\n" +
		"    │ var.gpus is 5\n" +
		"  A guarantee is a number of cards.\n\n"
	if got := text(t, []Diagnostic{d}, files, Style{}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// hcl's own evaluation error carries its expression: the operand at
// fault is marked inside the context's lines, and the values of the
// expression (only the operand's: the string has none) are listed.
func TestTextFromEvaluation(t *testing.T) {
	src := "locals {\n  a = (\n    var.n * \"x\"\n  )\n}\n"
	files, body := parsed(t, "d.hcl", src)
	expr := body.Blocks[0].Body.Attributes["a"].Expr
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"n": cty.StringVal("two")})}}
	_, diags := expr.Value(ctx)
	want := "Error: Invalid operand\n" +
		"  on d.hcl line 3, in locals:\n" +
		"   3:     var.n * \"x\"\n" +
		"          ^^^^^\n" +
		"    ├────────────────\n" +
		"    │ var.n is \"two\"\n" +
		"  Unsuitable value for left operand: a number is required.\n\n" +
		"Error: Invalid operand\n" +
		"  on d.hcl line 3, in locals:\n" +
		"   3:     var.n * \"x\"\n" +
		"                  ^^^\n" +
		"  Unsuitable value for right operand: a number is required.\n\n"
	if got := text(t, FromHCLs(diags, files), files, Style{}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// The summary and the detail wrap to the columns (COLUMNS=40), the lines
// after the first indented; the detail's own line breaks stay. The "on"
// line, too long with its block, breaks after the comma.
func TestTextWrapsAt40Columns(t *testing.T) {
	files, _ := parsed(t, "d.hcl", "project \"a-long-project\" {\n  priority = 500\n}\n")
	r := Range{File: "d.hcl", HCL: true, Start: Pos{Line: 2, Column: 14, Byte: 40}, End: Pos{Line: 2, Column: 17, Byte: 43}}
	r.Block = files.Block("d.hcl", r.Start.Byte)
	d := Diagnostic{Severity: Warning, Summary: "Priority above every other queue's of the pool",
		Detail: "A queue of priority 500 takes the whole surplus of the pool before any other queue gets a card of it.\nSet it to 100 to share.", Subject: &r}
	want := "Warning: Priority above every other\n" +
		"  queue's of the pool\n" +
		"  on d.hcl line 2,\n" +
		"    in project \"a-long-project\":\n" +
		"   2:   priority = 500\n" +
		"                   ^^^\n" +
		"  A queue of priority 500 takes the\n" +
		"  whole surplus of the pool before any\n" +
		"  other queue gets a card of it.\n" +
		"  Set it to 100 to share.\n\n"
	if got := text(t, []Diagnostic{d}, files, Style{Columns: 40}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Control characters from the file, its name, a block label, the summary,
// the detail and a value are escaped; the carets stand under the escaped
// text. No byte of the output is a control character but the newlines.
func TestTextEscapesControlCharacters(t *testing.T) {
	name := "d\x1b.hcl"
	src := "project \"a\x1b[2Kb\" {\n  x = var.v # \u202e\n}\n"
	files, body := parsed(t, name, src)
	expr := body.Blocks[0].Body.Attributes["x"].Expr
	rng := expr.Range()
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"v": cty.StringVal("\x1b[31mred")})}}
	d := FromHCL(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "bad \x1b[32mok", Detail: "one\ntwo\x07",
		Subject: &rng, Expression: expr, EvalContext: ctx}, files)
	want := "Error: bad \\x1b[32mok\n" +
		"  on d\\x1b.hcl line 2, in project \"a\\x1b[2Kb\":\n" +
		"   2:   x = var.v # \\u202e\n" +
		"            ^^^^^\n" +
		"    ├────────────────\n" +
		"    │ var.v is \"\\x1b[31mred\"\n" +
		"  one\n  two\\x07\n\n"
	got := text(t, []Diagnostic{d}, files, Style{})
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for i, c := range []byte(got) {
		if c < 0x20 && c != '\n' {
			t.Errorf("byte %d of the output is %#x", i, c)
		}
	}
}

// A finding: its code line (already present, and how it changes), a
// desired.hcl range with its block, two values on one tenancy line shown
// once, a line of the base of a plan between two refs, and colour only
// through the style's Paint.
func TestTextFinding(t *testing.T) {
	files := ParseFiles(map[string][]byte{"desired.hcl": []byte("project \"w\" {\n  queue \"h100\" {\n    gpu { deserved = 6 }\n  }\n}\n")})
	d := Diagnostic{Severity: Error, Code: "projects-over-department", Summary: "platform-h100: 6 of 4 cards",
		AlreadyPresent: true, Before: "platform-h100: 5 of 4 cards"}
	d.SetRanges([]Range{
		RangeOf(tenancy.Location{File: "desired.hcl", Line: 3, Column: 22, EndLine: 3, EndColumn: 23, StartByte: 52, EndByte: 53, Desired: true}, files),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 18, Column: 28}, files),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 18, Column: 40}, files),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 33}, files),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 30, Base: true}, files),
	})
	paint := func(r Role, s string) string {
		return "<" + []string{"err", "warn", "note", "dim"}[r] + ">" + s + "</>"
	}
	want := "<err>Error:</> platform-h100: 6 of 4 cards\n" +
		"<dim>  [projects-over-department] already present before this plan, which changes it; before: platform-h100: 5 of 4 cards</>\n" +
		"  on desired.hcl line 3, in project \"w\", queue \"h100\":\n" +
		"   3:     gpu { deserved = 6 }\n" +
		"                           ^\n" +
		"  on t.yaml line 18\n" +
		"  on t.yaml line 33\n" +
		"  at the base: t.yaml line 30\n\n"
	if got := text(t, []Diagnostic{d}, files, Style{Paint: paint}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A range over more lines than maxSnippetLines shows the first of them
// and counts the rest; a range whose file is not known shows its place
// only; an empty range marks the rest of its line; a range past the end
// of the source shows nothing but its place.
func TestTextBounds(t *testing.T) {
	src := "locals {\n"
	for i := 1; i <= 14; i++ {
		src += fmt.Sprintf("  x%d = 1\n", i)
	}
	src += "}\n"
	files, _ := parsed(t, "d.hcl", src)
	long := Range{File: "d.hcl", HCL: true, Start: Pos{Line: 1, Column: 1, Byte: 0}, End: Pos{Line: 16, Column: 2, Byte: len(src) - 1}}
	empty := Range{File: "d.hcl", HCL: true, Start: Pos{Line: 2, Column: 3, Byte: 11}, End: Pos{Line: 2, Column: 3, Byte: 11}}
	empty.Block = files.Block("d.hcl", empty.Start.Byte)
	past := Range{File: "d.hcl", HCL: true, Start: Pos{Line: 99, Byte: len(src) + 5}, End: Pos{Line: 99, Byte: len(src) + 9}}
	unknown := Range{File: "other.hcl", HCL: true, Start: Pos{Line: 4, Byte: 3}, End: Pos{Line: 4, Byte: 5}}
	var ds []Diagnostic
	for _, r := range []Range{long, empty, past, unknown} {
		ds = append(ds, Diagnostic{Severity: Note, Summary: "s", Subject: &r})
	}
	want := "Note: s\n  on d.hcl line 1:\n   1: locals {\n      ^^^^^^^^\n"
	for i := 2; i <= 10; i++ {
		want += fmt.Sprintf("%4d:   x%d = 1\n        ^^^^^^\n", i, i-1)
	}
	want += "        (6 more lines)\n\n" +
		"Note: s\n  on d.hcl line 2, in locals:\n   2:   x1 = 1\n        ^^^^^^\n\n" +
		"Note: s\n  on d.hcl line 99:\n\n" +
		"Note: s\n  on other.hcl line 4:\n\n"
	if got := text(t, ds, files, Style{}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A context range around the subject adds its lines (unmarked) before and
// after the subject's, at most contextLines on either side.
func TestTextContextLines(t *testing.T) {
	src := "locals {\n  a = [\n    1,\n    2,\n    3,\n    4,\n    5,\n  ]\n}\n"
	files, body := parsed(t, "d.hcl", src)
	ctxRange := body.Blocks[0].Body.Attributes["a"].Expr.Range()
	subject := hcl.Range{Filename: "d.hcl", Start: hcl.Pos{Line: 5, Column: 5, Byte: 35}, End: hcl.Pos{Line: 5, Column: 6, Byte: 36}}
	d := FromHCL(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Not 3", Subject: &subject, Context: &ctxRange}, files)
	want := "Error: Not 3\n" +
		"  on d.hcl line 5, in locals:\n" +
		"   3:     1,\n" +
		"   4:     2,\n" +
		"   5:     3,\n" +
		"          ^\n" +
		"   6:     4,\n" +
		"   7:     5,\n\n"
	if got := text(t, []Diagnostic{d}, files, Style{}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
