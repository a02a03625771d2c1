// Package diag is the one shape of every problem krmplan shows: a finding
// of the checks (planner.Finding) and a problem of an HCL file (an
// hcl.Diagnostic from desired.hcl, a var file or the repository profile)
// are both a Diagnostic, and each output format has one writer of it:
// WriteText (the plan, show and check text views and the desired.hcl load
// and plan errors), MarkdownItem (the markdown view), JSONOf (the JSON
// views' "diagnostics") and Annotation (check's GitHub workflow commands).
//
// Every writer escapes the control characters of what it writes from a
// file (internal/escape): a hostile file or name never reaches the
// terminal, the log viewer or the comment raw.
//
// diag sits below config and planner: it imports the model (tenancy) for
// locations and HCL for its ranges and expressions, nothing of krmplan's
// own logic. planner.Finding is converted above the planner
// (render/views.FindingDiagnostics).
package diag

import (
	"github.com/krmplan/krmplan/tenancy"
)

// Severity is how bad a diagnostic is: Error blocks render and exits 1,
// Warning and Note do not. The values are the words of the JSON views and
// of planner.Level.
type Severity string

// The severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

// Rank orders the severities, most serious first: 0 for Error, 1 for
// Warning, 2 for a note (and anything else).
func (s Severity) Rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Label is the severity as the text view starts a diagnostic: "Error",
// "Warning" or "Note" (anything else is a note).
func (s Severity) Label() string {
	switch s {
	case Error:
		return "Error"
	case Warning:
		return "Warning"
	}
	return "Note"
}

// Pos is a place in a file: Line and Column 1-based (Column 0 when only
// the line is known), Byte the 0-based offset.
type Pos struct {
	Line, Column, Byte int
}

// Range is where a diagnostic points: a range of an HCL file (HCL true:
// start and end with their byte offsets, so the text writer shows its
// source lines and marks it) or a line of a tenancy file (HCL false: File
// and Start's Line and Column only, as the snapshot records a value's
// place). It is tenancy.Location's distinction, which findings carry.
type Range struct {
	File       string
	Start, End Pos
	HCL        bool
	// Base marks, in a plan between two git refs (whose findings point at
	// the head's lines), a line of the base: a value the head removes.
	Base bool
	// Block is the header of the HCL block that encloses the range, as
	// desired.hcl writes it: `project "workspace"`, with each labelled
	// block inside it (`project "workspace", queue "h100"`); "" when the
	// range is at the top level, in a tenancy file, or the file is not
	// known. It belongs to the range, not the diagnostic: a finding's
	// related ranges may be in other blocks.
	Block string
}

// Value is a value an expression used, as the text writer lists it under
// the source line: Name is the traversal (`var.gpus`, `local.cards`), Text
// the value (`5`, `"h100"`, `null`, `list of number with 3 elements`).
type Value struct {
	Name, Text string
}

// Diagnostic is one finding or HCL problem.
type Diagnostic struct {
	Severity Severity
	// Code is a finding's stable code ("projects-over-department"); HCL
	// problems have none.
	Code string
	// Summary is the one-line message; Detail (HCL problems) the
	// explanation under the source, several lines allowed.
	Summary, Detail string
	// Subject is the range the diagnostic is about (nil: none is known);
	// Context an optional wider range around it whose lines the text
	// writer shows too (an HCL expression around the operand at fault);
	// Related the other ranges that cause it (a finding's other values).
	Subject *Range
	Context *Range
	Related []Range
	// Values are the values the subject's expression used, sorted by name.
	Values []Value

	// The fields of a finding. Address is the object ("project.workspace",
	// "" for none), Queue, Pool and Resource where they apply.
	Address, Queue, Pool, Resource string
	// AlreadyPresent marks a finding the snapshot has too; Before is the
	// snapshot's message of it when this plan changes it.
	AlreadyPresent bool
	Before         string
}

// Ranges is the subject (when set) and then the related ranges.
func (d *Diagnostic) Ranges() []Range {
	var out []Range
	if d.Subject != nil {
		out = append(out, *d.Subject)
	}
	return append(out, d.Related...)
}

// SetRanges sets the subject to the first of rs and the related ranges to
// the rest (a finding's Where, in order).
func (d *Diagnostic) SetRanges(rs []Range) {
	d.Subject, d.Related = nil, nil
	if len(rs) == 0 {
		return
	}
	first := rs[0]
	d.Subject = &first
	d.Related = append([]Range(nil), rs[1:]...)
}

// RangeOf is the range of a finding's location: an HCL range for a
// desired.hcl location (with the enclosing block of files[l.File], when
// that file is known), else a tenancy file's line.
func RangeOf(l tenancy.Location, files Files) Range {
	r := Range{File: l.File, Start: Pos{Line: l.Line, Column: l.Column}, Base: l.Base}
	if l.Desired {
		r.HCL = true
		r.Start.Byte = l.StartByte
		r.End = Pos{Line: l.EndLine, Column: l.EndColumn, Byte: l.EndByte}
		r.Block = files.Block(l.File, l.StartByte)
	}
	return r
}
