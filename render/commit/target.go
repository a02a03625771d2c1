package commit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/snapshot"
)

// targetObjects returns, for every object of the plan's target (the
// snapshot with every change applied, new objects included) whose key is
// in keep (every object when keep is nil), its spec as canonical JSON
// (what the snapshot's types marshal to), by objectKey.
func targetObjects(p *planner.Plan, keep map[string]bool) (map[string]string, error) {
	docs := map[string]any{}
	kinds := map[string]string{}
	add := func(kind, name string, spec any) error {
		if keep != nil && !keep[snapshot.ObjectKey(kind, name)] {
			return nil
		}
		b, err := json.Marshal(spec)
		if err != nil {
			return err
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return err
		}
		docs[snapshot.ObjectKey(kind, name)] = map[string]any{"spec": v}
		kinds[snapshot.ObjectKey(kind, name)] = kind
		return nil
	}
	s := &p.Snapshot
	for _, o := range s.NodePools {
		if err := add(planner.KindNodePool, o.Metadata.Name, o.Spec); err != nil {
			return nil, err
		}
	}
	for _, o := range s.Departments {
		if err := add(planner.KindDepartment, o.Metadata.Name, o.Spec); err != nil {
			return nil, err
		}
	}
	for _, o := range s.Projects {
		if err := add(planner.KindProject, o.Metadata.Name, o.Spec); err != nil {
			return nil, err
		}
	}
	for _, c := range p.Changes {
		k := snapshot.ObjectKey(c.Kind, c.Object)
		if keep != nil && !keep[k] {
			continue
		}
		if docs[k] == nil {
			docs[k] = map[string]any{"spec": map[string]any{}}
			kinds[k] = c.Kind
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(c.After))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("change %s of %s: %w", c.Path, k, err)
		}
		root := docs[k]
		if err := setPointer(&root, yamledit.SplitPointer(c.Path), v); err != nil {
			return nil, fmt.Errorf("change %s of %s: %w", c.Path, k, err)
		}
		docs[k] = root
	}
	out := map[string]string{}
	for k, d := range docs {
		spec := d.(map[string]any)["spec"]
		canon, err := canonicalSpec(kinds[k], spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = canon
	}
	return out, nil
}

// setPointer sets the value at segs below *root, creating objects and
// appending to arrays (an index equal to the length appends).
func setPointer(root *any, segs []string, v any) error {
	if len(segs) == 0 {
		*root = v
		return nil
	}
	switch cur := (*root).(type) {
	case map[string]any:
		child, ok := cur[segs[0]]
		if !ok {
			child = nil
		}
		if child == nil && len(segs) > 1 {
			if _, err := strconv.Atoi(segs[1]); err == nil {
				child = []any{}
			} else {
				child = map[string]any{}
			}
		}
		if err := setPointer(&child, segs[1:], v); err != nil {
			return err
		}
		cur[segs[0]] = child
		return nil
	case []any:
		i, err := strconv.Atoi(segs[0])
		if err != nil || i < 0 || i > len(cur) {
			return fmt.Errorf("index %q outside the list of %d", segs[0], len(cur))
		}
		if i == len(cur) {
			var child any
			if len(segs) > 1 {
				child = map[string]any{}
			}
			cur = append(cur, child)
		}
		if err := setPointer(&cur[i], segs[1:], v); err != nil {
			return err
		}
		*root = cur
		return nil
	case nil:
		*root = map[string]any{}
		return setPointer(root, segs, v)
	}
	return fmt.Errorf("cannot set %q below a scalar", segs[0])
}

// canonicalSpec round-trips a spec through the snapshot's type for kind,
// so that two specs compare equal exactly when KRM reads them alike.
func canonicalSpec(kind string, spec any) (string, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return "", err
	}
	var typed any
	switch kind {
	case planner.KindNodePool:
		typed = &snapshot.NodePoolSpec{}
	case planner.KindDepartment:
		typed = &snapshot.DepartmentSpec{}
	case planner.KindProject:
		typed = &snapshot.ProjectSpec{}
	default:
		return "", fmt.Errorf("unknown kind %q", kind)
	}
	if err := json.Unmarshal(b, typed); err != nil {
		return "", err
	}
	out, err := json.Marshal(typed)
	return string(out), err
}

// parsedObjects parses tenancy files and returns every object's canonical
// spec by objectKey, and the file that holds it.
func parsedObjects(files map[string][]byte) (map[string]string, map[string]string, error) {
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	var t snapshot.Tenancy
	for _, f := range names {
		if err := t.ParseTenancy(f, files[f]); err != nil {
			return nil, nil, err
		}
	}
	out, where := map[string]string{}, map[string]string{}
	put := func(kind, name string, spec any, o *snapshot.Origin) error {
		c, err := canonicalSpec(kind, spec)
		if err != nil {
			return err
		}
		k := snapshot.ObjectKey(kind, name)
		if _, dup := out[k]; dup {
			return fmt.Errorf("%s:%d: %s %q is declared twice", o.File, o.Line, kind, name)
		}
		out[k], where[k] = c, o.File
		return nil
	}
	for _, o := range t.NodePools {
		if err := put(planner.KindNodePool, o.Metadata.Name, o.Spec, o.Origin); err != nil {
			return nil, nil, err
		}
	}
	for _, o := range t.Departments {
		if err := put(planner.KindDepartment, o.Metadata.Name, o.Spec, o.Origin); err != nil {
			return nil, nil, err
		}
	}
	for _, o := range t.Projects {
		if err := put(planner.KindProject, o.Metadata.Name, o.Spec, o.Origin); err != nil {
			return nil, nil, err
		}
	}
	return out, where, nil
}
