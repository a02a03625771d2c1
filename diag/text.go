package diag

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
)

// Role is what a painted piece of text is, for a Style's Paint.
type Role int

// The roles: a severity's label, and the dim code line of a finding.
const (
	RoleError Role = iota
	RoleWarning
	RoleNote
	RoleDim
)

// Style is how WriteText lays out: Columns is the width the summary and
// the detail are wrapped to (0 or less: not wrapped); Paint colours a
// piece of text for its role (nil: no colour). render/views.Style gives
// its own (DiagStyle), so that diagnostics and views colour alike.
type Style struct {
	Columns int
	Paint   func(Role, string) string
}

func (st Style) paint(r Role, s string) string {
	if st.Paint == nil {
		return s
	}
	return st.Paint(r, s)
}

// WriteText writes diagnostics as the text views and the CLI's errors
// show them, each followed by a blank line:
//
//	Error: <summary, wrapped>
//	  [<code>] already present before this plan    (a finding)
//	  on desired.hcl line 3, in project "workspace":
//	     3:     gpu { deserved = var.gpus }
//	                  ^^^^^^^^^^^^^^^^^^^
//	      ├────────────────
//	      │ var.gpus is 5
//	  on clusters/a/tenancy.yaml line 31             (a tenancy file's line)
//	  at the base: clusters/a/tenancy.yaml line 30   (the base's, between two refs)
//	  <detail, wrapped>
//
// An HCL range shows the lines of its subject and context (at most
// maxSnippetLines, the others counted), each numbered, the subject marked
// by carets under each of its lines. Every text from a file is written
// with its control characters escaped, and the carets stand under the
// escaped text.
func WriteText(w io.Writer, ds []Diagnostic, files Files, st Style) error {
	var b bytes.Buffer
	for i := range ds {
		writeOne(&b, &ds[i], files, st)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeOne(b *bytes.Buffer, d *Diagnostic, files Files, st Style) {
	role := RoleNote
	switch d.Severity {
	case Error:
		role = RoleError
	case Warning:
		role = RoleWarning
	}
	label := d.Severity.Label()
	var plain bytes.Buffer
	words.Wrap(&plain, st.Columns, "", "  ", label+": "+escape.Controls(d.Summary))
	b.WriteString(st.paint(role, label+":"))
	b.Write(plain.Bytes()[len(label)+1:])
	if d.Code != "" {
		b.WriteString(st.paint(RoleDim, codeLine(d)) + "\n")
	}
	last := ""
	for i, r := range d.Ranges() {
		if r.HCL {
			var ctx *Range
			var values []Value
			if i == 0 && d.Subject != nil {
				ctx, values = d.Context, d.Values
			}
			writeSnippet(b, files, r, ctx, values, st.Columns)
			last = ""
			continue
		}
		on := fmt.Sprintf("  %s %s line %d\n", map[bool]string{false: "on", true: "at the base:"}[r.Base], escape.Controls(r.File), r.Start.Line)
		if on != last { // two values on one line are one line to look at
			b.WriteString(on)
		}
		last = on
	}
	if d.Detail != "" {
		words.Wrap(b, st.Columns, "  ", "  ", escape.Lines(d.Detail))
	}
	b.WriteString("\n")
}

// codeLine is a finding's "  [code]" line, with whether it was already
// present before the plan.
func codeLine(d *Diagnostic) string {
	tag := "  [" + escape.Controls(d.Code) + "]"
	if d.AlreadyPresent {
		tag += " already present before this plan"
		if d.Before != "" {
			tag += ", which changes it; before: " + escape.Controls(d.Before)
		}
	}
	return tag
}

// maxSnippetLines bounds the source lines shown for one range, and
// contextLines the lines of a context range shown before and after the
// subject: a range over a whole file must not flood the terminal.
const (
	maxSnippetLines = 10
	contextLines    = 2
)

// writeSnippet writes "on FILE line N, in BLOCK:" (broken after the comma
// when longer than cols) and the source lines of r (and of ctx around
// it), the part of each line inside r marked by carets, then the values
// r's expression used.
func writeSnippet(b *bytes.Buffer, files Files, r Range, ctx *Range, values []Value, cols int) {
	on := fmt.Sprintf("  on %s line %d", escape.Controls(r.File), r.Start.Line)
	if r.Block != "" {
		in := " in " + escape.Controls(r.Block) + ":"
		// A line too long for the page breaks after the comma.
		if cols > 0 && utf8.RuneCountInString(on)+1+utf8.RuneCountInString(in) > cols {
			on += ",\n   "
		} else {
			on += ","
		}
		on += in
	} else {
		on += ":"
	}
	b.WriteString(on + "\n")
	src, ok := files.source(r.File)
	if !ok || r.Start.Byte < 0 || r.Start.Byte > len(src) {
		return
	}
	mark := marked(src, r)
	first, last := shownLines(src, r, ctx, mark)
	line := r.Start.Line - bytes.Count(src[first:lineStart(src, r.Start.Byte)], []byte("\n"))
	shown := 0
	for at := first; at <= last && at <= len(src); line++ {
		end := lineEnd(src, at)
		if shown == maxSnippetLines {
			rest := bytes.Count(src[at:min(lineEnd(src, last), len(src))], []byte("\n")) + 1
			fmt.Fprintf(b, "        (%s)\n", strings.Replace(words.Count(rest, "line"), " ", " more ", 1))
			break
		}
		writeLine(b, src, line, at, end, mark)
		shown++
		if end >= len(src) {
			break
		}
		at = end + 1
	}
	if len(values) > 0 {
		b.WriteString("    ├────────────────\n")
		for _, v := range values {
			fmt.Fprintf(b, "    │ %s is %s\n", escape.Controls(v.Name), escape.Controls(v.Text))
		}
	}
}

// span is a byte range [from, to) of a source.
type span struct{ from, to int }

// marked is the bytes of r that the carets mark. A range on one line that
// is empty or passes the line's end marks the rest of its line (at least
// one caret is drawn); a range over several lines marks up to its end.
func marked(src []byte, r Range) span {
	from := r.Start.Byte
	eol := lineEnd(src, from)
	if r.End.Line > r.Start.Line && r.End.Byte > from {
		return span{from, min(r.End.Byte, len(src))}
	}
	if r.End.Byte > from && r.End.Byte <= eol {
		return span{from, r.End.Byte}
	}
	return span{from, eol}
}

// shownLines is the first byte of the first line shown and a byte of the
// last: the lines of the mark, widened to ctx's lines by at most
// contextLines on either side.
func shownLines(src []byte, r Range, ctx *Range, mark span) (first, last int) {
	first, last = lineStart(src, mark.from), max(mark.from, mark.to-1)
	if ctx == nil || ctx.File != r.File {
		return first, last
	}
	if c := ctx.Start.Byte; c >= 0 && c < first {
		for n := 0; n < contextLines && first > 0 && c < first; n++ {
			first = lineStart(src, first-1)
		}
	}
	if c := min(ctx.End.Byte, len(src)); c > last+1 {
		for n := 0; n < contextLines && lineEnd(src, last) < c-1; n++ {
			last = lineEnd(src, last) + 1
		}
	}
	return first, last
}

// writeLine writes source line n (bytes [at, end)) numbered, escaped, and
// under it the carets of the part of mark on it: from its first character
// that is not a space (the start of the mark on its first line) to the
// mark's end or the line's. A line without a marked character has no
// caret line.
func writeLine(b *bytes.Buffer, src []byte, n, at, end int, mark span) {
	raw := strings.TrimRight(string(src[at:end]), "\r")
	text := escape.Controls(raw)
	num := fmt.Sprintf("%4d: ", n)
	fmt.Fprintf(b, "%s%s\n", num, text)
	from, to := max(mark.from, at), min(mark.to, at+len(raw))
	if mark.from < at { // a continuation line: from its text on
		from = at + len(raw) - len(strings.TrimLeft(raw, " \t"))
	}
	if mark.from >= at && mark.from <= end && from >= to { // an empty mark
		to = from + 1
	}
	if from >= to {
		return
	}
	pad := utf8.RuneCountInString(escape.Controls(raw[:min(from-at, len(raw))]))
	width := max(utf8.RuneCountInString(escape.Controls(raw[min(from-at, len(raw)):min(to-at, len(raw))])), 1)
	fmt.Fprintf(b, "%s%s%s\n", strings.Repeat(" ", len(num)), strings.Repeat(" ", pad), strings.Repeat("^", width))
}

// lineStart is the offset of the first byte of the line holding offset i.
func lineStart(src []byte, i int) int {
	return bytes.LastIndexByte(src[:min(i, len(src))], '\n') + 1
}

// lineEnd is the offset of the newline that ends the line holding offset
// i, or len(src) on the last line.
func lineEnd(src []byte, i int) int {
	i = min(i, len(src))
	if n := bytes.IndexByte(src[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(src)
}
