package planner

import (
	"fmt"
	"path"
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
	origins := map[string]*snapshot.Origin{}
	for i := range before.NodePools {
		origins[KindNodePool+"/"+before.NodePools[i].Metadata.Name] = before.NodePools[i].Origin
	}
	for i := range before.Departments {
		origins[KindDepartment+"/"+before.Departments[i].Metadata.Name] = before.Departments[i].Origin
	}
	for i := range before.Projects {
		origins[KindProject+"/"+before.Projects[i].Metadata.Name] = before.Projects[i].Origin
	}
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
	for key, f := range named {
		if f == nil {
			continue
		}
		r := f.Range
		clean := path.Clean(f.Value)
		if f.Value == "" || path.IsAbs(f.Value) || clean != f.Value || strings.HasPrefix(clean, "../") || clean == ".." {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid file", Subject: &r,
				Detail: fmt.Sprintf("file = %q: give a clean path relative to the repository root, such as \"tenancy/projects.yaml\".", f.Value)})
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
