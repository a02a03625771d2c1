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
// objects between files. A path must be repository-relative and clean,
// and name one of the snapshot's files or a .yaml or .yml file in a folder
// that holds one: any other file (tenancy/x.json, .krmplan.hcl, a folder
// the snapshot did not read) would never be read back, and the new object
// would be planned as new again at the next snapshot.
func placeNewObjects(before *snapshot.State, ov *config.Overlay, changes []Change) hcl.Diagnostics {
	origins := before.Origins()
	read := readFolders(before)
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
		if _, exists := origins[key]; !exists {
			if why := read.unread(f.Value); why != "" {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid file", Subject: &r,
					Detail: fmt.Sprintf("file = %q: %s, so the next snapshot would not read %s back.", f.Value, why, key)})
				continue
			}
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

// folders are the tenancy files a snapshot read and the folders that hold
// them.
type folders struct {
	files, dirs map[string]bool
}

func readFolders(st *snapshot.State) folders {
	fs := folders{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, f := range st.Source.Files {
		fs.files[f.Path] = true
		fs.dirs[path.Dir(f.Path)] = true
	}
	return fs
}

// unread says why the snapshot's reader would not read the file p back
// (the --tenancy folders take only *.yaml and *.yml), or returns "".
func (fs folders) unread(p string) string {
	switch {
	case fs.files[p]:
		return ""
	case len(fs.files) == 0:
		return "the snapshot read no tenancy file (it is a cluster's), and a new object is placed in a file only for a splice"
	case !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml"):
		return "a new object goes in a .yaml or .yml file"
	case !fs.dirs[path.Dir(p)]:
		names := make([]string, 0, len(fs.dirs))
		for _, d := range slices.Sorted(maps.Keys(fs.dirs)) {
			if d == "." {
				d = "the repository root"
			} else {
				d += "/"
			}
			names = append(names, d)
		}
		if len(names) > 5 {
			names = append(names[:5], fmt.Sprintf("%d more", len(names)-5))
		}
		return fmt.Sprintf("a new object goes in a folder the snapshot read (%s)", strings.Join(names, ", "))
	}
	return ""
}
