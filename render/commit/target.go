package commit

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// specs maps objects to their spec as JSON (what the tenancy's types
// marshal to): two specs are equal exactly when KRM reads them alike.
type specs map[tenancy.ObjectAddr]string

// targetSpecs returns the spec of every object of the plan's target (new
// objects included) that keep names, or of every object when keep is nil.
func targetSpecs(p *planner.Plan, keep map[tenancy.ObjectAddr]bool) specs {
	_, tx := p.Indexes()
	out := specs{}
	if keep != nil {
		for a := range keep {
			if spec := tx.Spec(a); spec != nil {
				out[a] = specJSON(spec)
			}
		}
		return out
	}
	addSpecs(out, p.Target, nil)
	return out
}

// addSpecs adds the spec of every object of t to out; where, when not nil,
// gets the file of each. An object already in out is an error naming it:
// the files declare it twice.
func addSpecs(out specs, t *tenancy.Tenancy, where map[tenancy.ObjectAddr]string) error {
	put := func(a tenancy.ObjectAddr, spec any, o *tenancy.Origin) error {
		if _, dup := out[a]; dup {
			if o != nil {
				return fmt.Errorf("%s:%d: %s %q is declared twice", o.File, o.Line, a.Kind, a.Name)
			}
			return fmt.Errorf("%s is declared twice", a)
		}
		out[a] = specJSON(spec)
		if where != nil && o != nil {
			where[a] = o.File
		}
		return nil
	}
	for _, o := range t.NodePools {
		if err := put(tenancy.KindNodePool.Object(o.Metadata.Name), o.Spec, o.Origin); err != nil {
			return err
		}
	}
	for _, o := range t.Departments {
		if err := put(tenancy.KindDepartment.Object(o.Metadata.Name), o.Spec, o.Origin); err != nil {
			return err
		}
	}
	for _, o := range t.Projects {
		if err := put(tenancy.KindProject.Object(o.Metadata.Name), o.Spec, o.Origin); err != nil {
			return err
		}
	}
	return nil
}

// specJSON is a spec's JSON.
func specJSON(spec any) string {
	b, err := json.Marshal(spec)
	if err != nil {
		panic(err) // the tenancy's specs are plain data
	}
	return string(b)
}

// parsedObjects parses tenancy files and returns every object's spec, and
// the file that holds it.
func parsedObjects(files map[string][]byte) (specs, map[tenancy.ObjectAddr]string, error) {
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	var t snapshot.Parsed
	for _, f := range names {
		if err := t.ParseTenancy(f, files[f]); err != nil {
			return nil, nil, err
		}
	}
	out, where := specs{}, map[tenancy.ObjectAddr]string{}
	if err := addSpecs(out, &t.Tenancy, where); err != nil {
		return nil, nil, err
	}
	return out, where, nil
}

// sortedAddrs is the keys of m in the order of their text ("Kind/name").
func sortedAddrs[V any](m map[tenancy.ObjectAddr]V) []tenancy.ObjectAddr {
	out := make([]tenancy.ObjectAddr, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	slices.SortFunc(out, tenancy.ObjectAddr.Compare)
	return out
}
