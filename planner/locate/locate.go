// Package locate says where a value is written, for a finding of the
// planner's checks to point at: the desired.hcl range of a value the plan
// sets, else the value's line and column in the tenancy files, else its
// object's line.
package locate

import (
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/tenancy"
)

// Locator finds where a value of an object is written: the desired.hcl
// range when the plan sets it, else the tenancy file's line.
type Locator struct {
	// Set maps the values desired.hcl sets to their ranges (nil when the
	// state is checked as it is).
	Set config.Ranges
	// X indexes the state whose objects' origins say where the rest is.
	X *tenancy.Index
}

// At returns the location of the value a, or of its object when the value
// itself has no position (omitted, or a live read); nil for an object
// without an origin (read from a cluster).
func (l *Locator) At(a tenancy.FieldAddr) []tenancy.Location {
	if loc, ok := l.Set[a]; ok {
		return []tenancy.Location{loc}
	}
	o, _ := l.X.Origin(a.Object)
	if o == nil {
		return nil
	}
	if p, ok := o.Values.Value(a.Pointer()); ok {
		return []tenancy.Location{{File: o.File, Line: p.Line, Column: p.Column}}
	}
	return []tenancy.Location{{File: o.File, Line: o.Line}}
}

// AtFirst is At for the first of addrs that is written somewhere (set in
// desired.hcl or positioned in a tenancy file), else for the last one: it
// points at an omitted value's neighbours rather than at the whole object.
func (l *Locator) AtFirst(addrs ...tenancy.FieldAddr) []tenancy.Location {
	for _, a := range addrs {
		if _, ok := l.Set[a]; ok {
			return l.At(a)
		}
		if _, ok := l.X.Pos(a); ok {
			return l.At(a)
		}
	}
	return l.At(addrs[len(addrs)-1])
}
