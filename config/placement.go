package config

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/tenancy"
)

// place copies the file that desired.hcl names for a new object (`file =
// "tenancy/research.yaml"`) onto that object's changes, for the splice to
// write it there. Naming a file for an object that exists is an error
// unless it is the file that already holds it: a plan never moves objects
// between files. A path must be repository-relative and clean. The
// diagnostics come by object ("Kind/name").
func (d *differ) place(o *Overlay) hcl.Diagnostics {
	named := map[tenancy.ObjectAddr]*Str{}
	for _, p := range o.NodePools {
		named[tenancy.KindNodePool.Object(p.Name)] = p.File
	}
	for _, dep := range o.Departments {
		named[tenancy.KindDepartment.Object(dep.Name)] = dep.File
	}
	for _, p := range o.Projects {
		named[tenancy.KindProject.Object(p.Name)] = p.File
	}
	addrs := slices.Collect(maps.Keys(named))
	slices.SortFunc(addrs, func(a, b tenancy.ObjectAddr) int { return strings.Compare(a.String(), b.String()) })
	var diags hcl.Diagnostics
	for _, a := range addrs {
		f := named[a]
		if f == nil {
			continue
		}
		r := f.Range
		if why := badPath(f.Value); why != "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid file", Subject: &r,
				Detail: fmt.Sprintf("file = %q: give a clean path relative to the repository root, such as \"tenancy/projects.yaml\" (%s).", f.Value, why)})
			continue
		}
		if origin, exists := d.x.Origin(a); exists {
			if origin == nil || origin.File != f.Value {
				where := "the cluster"
				if origin != nil {
					where = origin.File
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Object already placed", Subject: &r,
					Detail: fmt.Sprintf("%s is already written in %s; file = %q only places a new object (a plan never moves objects between files).", a, where, f.Value)})
			}
			continue
		}
		if oc := d.byObject[a]; oc != nil {
			for i := range oc.changes {
				oc.changes[i].File = f.Value
			}
		}
	}
	return diags
}

// badPath says why p cannot name a file of the repository for a new
// object, or returns "". git itself refuses a tree entry named .git (in any
// case), an empty one, "." and "..": a path with such a segment would
// fail in git after the plan was approved, or write into git's own data.
func badPath(p string) string {
	switch {
	case p == "":
		return "the path is empty"
	case path.IsAbs(p):
		return "the path is absolute"
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "":
			return "the path has an empty segment (a leading, trailing or doubled /)"
		case seg == "." || seg == "..":
			return fmt.Sprintf("the path has a %q segment", seg)
		case strings.EqualFold(seg, ".git"):
			return "a .git segment is git's own data, not a file of the repository"
		}
	}
	return ""
}
