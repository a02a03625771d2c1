package planner

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/snapshot"
)

// placeNewObjects copies the file that desired.hcl names for a new object
// (`file = "tenancy/research.yaml"`) onto that object's changes, for the
// splice to write it there. Naming a file for an object that exists is an
// error unless it is the file that already holds it: a plan never moves
// objects between files. A path must be repository-relative and clean.
func placeNewObjects(before *snapshot.State, ov *config.Overlay, changes []Change) hcl.Diagnostics {
	origins := before.Origins()
	named := map[string]*config.Str{}
	for _, p := range ov.NodePools {
		named[KindNodePool+"/"+p.Name] = p.File
	}
	for _, d := range ov.Departments {
		named[KindDepartment+"/"+d.Name] = d.File
	}
	for _, p := range ov.Projects {
		named[KindProject+"/"+p.Name] = p.File
	}
	var diags hcl.Diagnostics
	for _, key := range slices.Sorted(maps.Keys(named)) {
		f := named[key]
		if f == nil {
			continue
		}
		r := f.Range
		if why := badPath(f.Value); why != "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid file", Subject: &r,
				Detail: fmt.Sprintf("file = %q: give a clean path relative to the repository root, such as \"tenancy/projects.yaml\" (%s).", f.Value, why)})
			continue
		}
		if o, exists := origins[key]; exists {
			if o == nil || o.File != f.Value {
				where := "the cluster"
				if o != nil {
					where = o.File
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Object already placed", Subject: &r,
					Detail: fmt.Sprintf("%s is already written in %s; file = %q only places a new object (a plan never moves objects between files).", key, where, f.Value)})
			}
			continue
		}
		for i := range changes {
			if changes[i].Kind+"/"+changes[i].Object == key {
				changes[i].File = f.Value
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
