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
// between files. A path must be repository-relative and clean, and, when
// the snapshot read tenancy files (d.read), name one of them or a .yaml or
// .yml file in a folder that holds one, or below it: any other file
// (tenancy/x.json, .krmplan.hcl, a folder the snapshot did not read) would
// never be read back, and the new object would be planned as new again at
// the next snapshot. The diagnostics come by object ("Kind/name").
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
		if summary, detail := placementProblem(d.x, d.read, a, f.Value); summary != "" {
			r := f.Range
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Subject: &r, Detail: detail})
			continue
		}
		if _, exists := d.x.Origin(a); exists {
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

// CheckPlacements refuses the first change whose file cannot place its
// object by the rules of desired.hcl's `file = "…"` (place), against the
// snapshot's index x and the tenancy files it read: "change 3 (parent of
// project e): Invalid file: file = ".git/x.yaml": …". A plan made from its
// changes (no desired file) is checked with it, so that an edited
// plan.json cannot place an object where desired.hcl could not
// (.git/x.yaml, tenancy/x.json).
func CheckPlacements(x *tenancy.Index, read []string, changes []tenancy.Change) error {
	folders := readFolders(read)
	for i := range changes {
		c := &changes[i]
		if c.File == "" {
			continue
		}
		if summary, detail := placementProblem(x, folders, c.Field.Object, c.File); summary != "" {
			return fmt.Errorf("change %d (%s): %s: %s", i+1, c.Describe(), summary, strings.TrimSuffix(detail, "."))
		}
	}
	return nil
}

// placementProblem is the summary and detail of the diagnostic for file =
// file on the object a, both "" when it places a.
func placementProblem(x *tenancy.Index, read folders, a tenancy.ObjectAddr, file string) (summary, detail string) {
	if why := badPath(file); why != "" {
		return "Invalid file", fmt.Sprintf("file = %q: give a clean path relative to the repository root, such as \"tenancy/projects.yaml\" (%s).", file, why)
	}
	origin, exists := x.Origin(a)
	if why := read.unread(file); !exists && why != "" {
		return "Invalid file", fmt.Sprintf("file = %q: %s, so the next snapshot would not read %s back.", file, why, a)
	}
	if exists && (origin == nil || origin.File != file) {
		where := "the cluster"
		if origin != nil {
			where = origin.File
		}
		return "Object already placed", fmt.Sprintf("%s is already written in %s; file = %q only places a new object (a plan never moves objects between files).", a, where, file)
	}
	return "", ""
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

func readFolders(files []string) folders {
	fs := folders{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, f := range files {
		fs.files[f] = true
		fs.dirs[path.Dir(f)] = true
	}
	return fs
}

// unread says why the snapshot's reader would not read the file p back,
// or returns "": a --tenancy folder takes only *.yaml and *.yml, from it
// and every folder below it, so p must be one of the snapshot's files or
// such a file in a folder that holds one, or below it. A snapshot that
// read no file (a cluster's) has nothing to say: a patch writes no file.
func (fs folders) unread(p string) string {
	switch {
	case len(fs.files) == 0 || fs.files[p]:
		return ""
	case !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml"):
		return "a new object goes in a .yaml or .yml file"
	case !fs.under(path.Dir(p)):
		var names []string
		for _, d := range slices.Sorted(maps.Keys(fs.dirs)) {
			if fs.under(path.Dir(d)) {
				continue // below another one, which is shown
			}
			names = append(names, d+"/")
		}
		if len(names) > 5 {
			names = append(names[:5], fmt.Sprintf("%d more", len(names)-5))
		}
		return fmt.Sprintf("a new object goes in a folder the snapshot read or one below it (%s)", strings.Join(names, ", "))
	}
	return ""
}

// under reports whether dir is a folder that holds one of the snapshot's
// files, or is below one.
func (fs folders) under(dir string) bool {
	for {
		if fs.dirs[dir] {
			return true
		}
		up := path.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}
