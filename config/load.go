package config

import (
	"fmt"
	"runtime/debug"
	"sort"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/krmplan/krmplan/internal/hcllimit"
)

// VarFile is the content of one --var-file: HCL attributes, `name = value`.
type VarFile struct {
	Name string // the file name as given, used in diagnostics
	Src  []byte
}

// InternalErrorSummary is the summary of the diagnostic Load returns if it
// meets a bug (a recovered panic) instead of crashing.
const InternalErrorSummary = "Internal error in krmplan's HCL reader"

// Load parses desired.hcl into an Overlay.
//
// filename names the file in diagnostics and src is its content. vars are
// the --var options, "name=value": the value is an HCL expression if it is
// one (`64`, `unlimited`, `["a"]`) and a string otherwise (`h100`); for a
// variable of type string it is always the text as given. varFiles are the
// --var-file contents by file name, applied in the order of their names
// (use LoadOrdered to keep the command-line order). Precedence: a
// variable's default, then the var files, then the --var options, the
// later winning.
//
// Load returns every problem it finds as an error diagnostic with a Subject
// range: syntax errors, unknown blocks and attributes, duplicate objects,
// queues or resources, values of the wrong type (a string, bool or null
// where a number is needed, a priority that is not a whole int32, a number
// with more than 18 decimals or of 10^18 or more), unknown resource keys,
// undeclared or missing variables, values that do not match a variable's
// type, and cycles between locals; and every limit (internal/hcllimit): a
// source too dense or nested too deep, a number literal or a result of
// arithmetic out of quota.Parse's range, a division by zero, a value of
// more than hcllimit.MaxElements elements or MaxBytes of string, and more
// than hcllimit.MaxWork steps of evaluation, which ends it. At most
// MaxDiagnostics problems are reported. The Overlay is never nil: its File,
// Source and Files are always set so the diagnostics can be printed (see
// diag.WriteText over Overlay.Files); when diags has errors the rest is partial and
// must not be planned.
func Load(filename string, src []byte, vars []string, varFiles map[string][]byte) (*Overlay, hcl.Diagnostics) {
	names := make([]string, 0, len(varFiles))
	for name := range varFiles {
		names = append(names, name)
	}
	sort.Strings(names)
	files := make([]VarFile, 0, len(names))
	for _, name := range names {
		files = append(files, VarFile{Name: name, Src: varFiles[name]})
	}
	return LoadOrdered(filename, src, vars, files)
}

// LoadOrdered is Load with the var files in the given order (the order of
// the --var-file options): a later file overrides an earlier one.
func LoadOrdered(filename string, src []byte, vars []string, varFiles []VarFile) (ov *Overlay, diags hcl.Diagnostics) {
	ov = &Overlay{
		File:      filename,
		Source:    src,
		Variables: map[string]string{},
		Files:     map[string]*hcl.File{filename: {Bytes: src}},
	}
	d := newDecoder(filename, ov.Files)
	d.ev.Run(func() {
		defer func() {
			if r := recover(); r != nil {
				rng := hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos}
				d.diags = append(d.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  InternalErrorSummary,
					Detail:   fmt.Sprintf("Reading the file failed with a bug; please report it with the file: %v\n%s", r, debug.Stack()),
					Subject:  &rng,
				})
			}
		}()
		d.load(ov, vars, varFiles)
	})
	if ab := d.ev.Aborted(); ab != nil {
		d.diags = append(d.diags, ab)
	}
	return ov, sortDiagnostics(filename, d.diags)
}

func newDecoder(filename string, files map[string]*hcl.File) *decoder {
	return &decoder{
		filename: filename,
		files:    files,
		vars:     map[string]*variable{},
		locals:   map[string]*local{},
		ev:       hcllimit.New(Functions()),
	}
}

// MaxDiagnostics is how many problems Load reports; one more says how many
// it leaves out. A file of a million stray characters has a million syntax
// errors, and each is printed with its source line.
const MaxDiagnostics = 100

// sortDiagnostics puts the diagnostics about the HCL file in source order,
// after those about --var and --var-file values (kept in their order),
// keeps one of each (an error in the body of a for expression is reported
// once, not once per iteration) and the first MaxDiagnostics of them.
func sortDiagnostics(filename string, diags hcl.Diagnostics) hcl.Diagnostics {
	key := func(d *hcl.Diagnostic) int {
		if d.Subject == nil || d.Subject.Filename != filename {
			return -1
		}
		return d.Subject.Start.Byte
	}
	type same struct {
		rng             hcl.Range
		summary, detail string
	}
	seen := map[same]bool{}
	out := diags[:0]
	for _, d := range diags {
		k := same{summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			k.rng = *d.Subject
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	if n := len(out); n > MaxDiagnostics {
		more := out[MaxDiagnostics]
		out = append(out[:MaxDiagnostics:MaxDiagnostics], &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Too many problems",
			Detail:   fmt.Sprintf("%d more problems, from here on, are not shown: fix these first.", n-MaxDiagnostics),
			Subject:  more.Subject,
		})
	}
	return out
}

// decoder carries the state of one Load.
type decoder struct {
	filename string
	files    map[string]*hcl.File
	diags    hcl.Diagnostics
	// upstreamErr is set once a variable or local failed: their value is
	// then unknown, and the unknown values it leads to are not reported
	// again.
	upstreamErr bool

	vars       map[string]*variable
	varOrder   []string
	locals     map[string]*local
	localOrder []string
	ctx        *hcl.EvalContext

	// ev bounds the evaluation (internal/hcllimit): every expression is
	// evaluated through it.
	ev *hcllimit.Evaluator
}

func (d *decoder) add(diags hcl.Diagnostics) { d.diags = append(d.diags, diags...) }

var topSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "locals"},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "node_pool", LabelNames: []string{"name"}},
		{Type: "department", LabelNames: []string{"name"}},
		{Type: "project", LabelNames: []string{"name"}},
		{Type: "removed"},
		{Type: "moved"},
	},
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "default"}, {Name: "type"}, {Name: "description"}},
}

func (d *decoder) load(ov *Overlay, vars []string, varFiles []VarFile) {
	file, diags, ok := d.ev.ParseConfig(ov.Source, ov.File)
	d.files[ov.File] = file
	d.add(diags)
	if diags.HasErrors() {
		d.upstreamErr = true // a number literal refused, its value unknown
	}
	if !ok {
		return
	}
	content, diags := file.Body.Content(topSchema)
	d.add(diags)

	var varBlocks, localBlocks hcl.Blocks
	for _, b := range content.Blocks {
		switch b.Type {
		case "variable":
			varBlocks = append(varBlocks, b)
		case "locals":
			localBlocks = append(localBlocks, b)
		}
	}
	d.declareVariables(varBlocks)
	for _, vf := range varFiles {
		d.assignVarFile(vf.Name, vf.Src)
	}
	for _, opt := range vars {
		d.assignVarOption(opt)
	}
	d.checkRequired()
	d.printVariables(ov)
	varObj := d.varObject()

	d.declareLocals(localBlocks)
	d.evalLocals(varObj)

	d.ctx = &hcl.EvalContext{
		Variables: map[string]cty.Value{
			"unlimited": unlimitedVal,
			"var":       varObj,
			"local":     d.localObject(),
		},
		Functions: d.ev.Functions(),
	}

	pools := map[string]hcl.Range{}
	depts := map[string]hcl.Range{}
	projects := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		switch b.Type {
		case "node_pool":
			np, ok := d.nodePool(b)
			if ok && d.unique("node_pool", np.Name, b.DefRange, pools) {
				ov.NodePools = append(ov.NodePools, np)
			}
		case "department":
			dep, ok := d.department(b)
			if ok && d.unique("department", dep.Name, b.DefRange, depts) {
				ov.Departments = append(ov.Departments, dep)
			}
		case "project":
			p, ok := d.project(b)
			if ok && d.unique("project", p.Name, b.DefRange, projects) {
				ov.Projects = append(ov.Projects, p)
			}
		case "removed":
			if r, ok := d.removed(b); ok {
				ov.Removed = append(ov.Removed, r)
			}
		case "moved":
			if m, ok := d.moved(b); ok {
				ov.Moved = append(ov.Moved, m)
			}
		}
	}
}

// printVariables records each resolved variable's value as HCL text.
func (d *decoder) printVariables(ov *Overlay) {
	for _, name := range d.varOrder {
		v := d.vars[name]
		if !v.value.IsWhollyKnown() {
			continue
		}
		if text, ok := hclLiteral(v.value); ok {
			ov.Variables[name] = text
		} else {
			d.upstreamErr = true
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid value for variable",
				Detail:   fmt.Sprintf("The value of var.%s contains an infinite number.", name),
				Subject:  v.valueRange.Ptr(),
				Context:  v.defRange.Ptr(),
			})
		}
	}
}

// unique records name in seen; a second definition is an error.
func (d *decoder) unique(kind, name string, rng hcl.Range, seen map[string]hcl.Range) bool {
	if prev, ok := seen[name]; ok {
		d.duplicate(kind, name, rng, prev)
		return false
	}
	seen[name] = rng
	return true
}

// duplicate reports a second definition of a named block.
func (d *decoder) duplicate(kind, name string, rng, prev hcl.Range) {
	d.duplicateAt(kind, name, rng, prev, nil)
}

func (d *decoder) duplicateAt(kind, name string, rng, prev hcl.Range, context *hcl.Range) {
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Duplicate %s %q", kind, name),
		Detail:   fmt.Sprintf("A %s named %q was already defined on line %d (%s); each name may be defined once.", kind, name, prev.Start.Line, prev),
		Subject:  rng.Ptr(),
		Context:  context,
	})
}

// checkLabel reports an empty block label (or one that is not an
// identifier, when ident).
func (d *decoder) checkLabel(kind string, b *hcl.Block, ident bool) bool {
	name := b.Labels[0]
	switch {
	case name == "":
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Invalid %s name", kind),
			Detail:   fmt.Sprintf("A %s needs a non-empty name.", kind),
			Subject:  b.LabelRanges[0].Ptr(),
			Context:  b.DefRange.Ptr(),
		})
		return false
	case ident && !hclsyntax.ValidIdentifier(name):
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Invalid %s name", kind),
			Detail:   fmt.Sprintf("A %s name must start with a letter or underscore and contain only letters, digits, underscores and dashes; %q does not.", kind, name),
			Subject:  b.LabelRanges[0].Ptr(),
			Context:  b.DefRange.Ptr(),
		})
		return false
	}
	return true
}

// pseudoFile registers text as a file for diagnostics about a --var value
// and returns its name, made unique.
func (d *decoder) pseudoFile(name, text string) string {
	unique := name
	for i := 2; d.files[unique] != nil; i++ {
		unique = fmt.Sprintf("%s (%d)", name, i)
	}
	d.files[unique] = &hcl.File{Bytes: []byte(text), Body: hcl.EmptyBody()}
	return unique
}

// fileRange is the range of all of text in the file named file.
func fileRange(file, text string) hcl.Range {
	end := hcl.InitialPos
	for i, r := range text {
		if r == '\n' {
			end = hcl.Pos{Line: end.Line + 1, Column: 1, Byte: i + 1}
			continue
		}
		end = hcl.Pos{Line: end.Line, Column: end.Column + 1, Byte: i + utf8.RuneLen(r)}
	}
	end.Byte = len(text)
	return hcl.Range{Filename: file, Start: hcl.InitialPos, End: end}
}

func typeexprTypeConstraint(expr hcl.Expression) (cty.Type, hcl.Diagnostics) {
	return typeexpr.TypeConstraint(expr)
}

func typeString(ty cty.Type) string {
	if ty.IsCapsuleType() {
		return ty.FriendlyName()
	}
	return typeexpr.TypeString(ty)
}
