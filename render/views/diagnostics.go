package views

import (
	"github.com/fatih/color"
	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// FindingDiagnostic is a finding as a diagnostic (diag's one shape, which
// every format's writer takes): its level, code and message, its object's
// address, queue, pool and resource, whether it was already present, and
// its locations, the first the subject and the others related ranges
// (with their enclosing blocks in files, where a location is a range of
// one of them).
func FindingDiagnostic(f planner.Finding, files diag.Files) diag.Diagnostic {
	d := diag.Diagnostic{Severity: f.Level, Code: string(f.Code), Summary: f.Message,
		Queue: f.Queue, Pool: f.Pool, Resource: f.Resource, AlreadyPresent: f.AlreadyPresent, Before: f.Before}
	if f.Object != (tenancy.ObjectAddr{}) {
		d.Address = Address(f.Object)
	}
	rs := make([]diag.Range, 0, len(f.Where))
	for _, l := range f.Where {
		rs = append(rs, diag.RangeOf(l, files))
	}
	d.SetRanges(rs)
	return d
}

// FindingDiagnostics is FindingDiagnostic of each finding, in order.
func FindingDiagnostics(fs []planner.Finding, files diag.Files) []diag.Diagnostic {
	out := make([]diag.Diagnostic, 0, len(fs))
	for _, f := range fs {
		out = append(out, FindingDiagnostic(f, files))
	}
	return out
}

// Diag is s for diag.WriteText: its columns, and its colours for the
// labels (errors red and bold, warnings yellow and bold, notes cyan) and
// the dim code line, as the views colour them.
func (s Style) Diag() diag.Style {
	return diag.Style{Columns: s.Columns(), Paint: func(r diag.Role, text string) string {
		var c *color.Color
		switch r {
		case diag.RoleError:
			c = s.errorC
		case diag.RoleWarning:
			c = s.warnC
		case diag.RoleNote:
			c = s.noteC
		case diag.RoleDim:
			c = s.dim
		}
		return s.paint(c, text)
	}}
}
