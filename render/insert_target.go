package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"go.yaml.in/yaml/v3"
)

// tnode is a value that a splice writes into a file: a scalar, a mapping
// with ordered keys, or a sequence. It is built from the plan's changes
// (every field of a new object or queue is a change of its own).
type tnode struct {
	kind yaml.Kind // yaml.ScalarNode, yaml.MappingNode or yaml.SequenceNode
	// For a scalar: js is its JSON value (a string or a number); raw, when
	// set, is the text to write as it is (a neighbour's annotation value).
	js    json.RawMessage
	raw   string
	keys  []string
	kids  map[string]*tnode
	items []*tnode
}

func newMap() *tnode { return &tnode{kind: yaml.MappingNode, kids: map[string]*tnode{}} }

// put sets key k of mapping t to v, keeping the first position of k.
func (t *tnode) put(k string, v *tnode) {
	if _, ok := t.kids[k]; !ok {
		t.keys = append(t.keys, k)
	}
	t.kids[k] = v
}

// set stores the JSON value v at the pointer segments segs below t,
// creating mappings and sequences on the way (a numeric segment indexes a
// sequence).
func (t *tnode) set(segs []string, v json.RawMessage) error {
	if len(segs) == 0 {
		n, err := fromJSON(v)
		if err != nil {
			return err
		}
		*t = *n
		return nil
	}
	seg := segs[0]
	childKind := yaml.MappingNode
	if len(segs) > 1 {
		if _, err := strconv.Atoi(segs[1]); err == nil {
			childKind = yaml.SequenceNode
		}
	}
	mk := func() *tnode {
		if childKind == yaml.SequenceNode {
			return &tnode{kind: yaml.SequenceNode}
		}
		return newMap()
	}
	switch t.kind {
	case yaml.MappingNode:
		c, ok := t.kids[seg]
		if !ok {
			c = mk()
			t.put(seg, c)
		}
		return c.set(segs[1:], v)
	case yaml.SequenceNode:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i > 1<<16 {
			return fmt.Errorf("bad sequence index %q", seg)
		}
		for len(t.items) <= i {
			t.items = append(t.items, nil)
		}
		if t.items[i] == nil {
			t.items[i] = mk()
		}
		return t.items[i].set(segs[1:], v)
	}
	return fmt.Errorf("cannot set %q below a scalar", seg)
}

// fromJSON turns a JSON value into a tnode, keeping the order of object keys.
func fromJSON(v json.RawMessage) (*tnode, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	return decodeJSON(dec)
}

func decodeJSON(dec *json.Decoder) (*tnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			m := newMap()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				c, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				m.put(kt.(string), c)
			}
			_, err := dec.Token()
			return m, err
		case '[':
			s := &tnode{kind: yaml.SequenceNode}
			for dec.More() {
				c, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				s.items = append(s.items, c)
			}
			_, err := dec.Token()
			return s, err
		}
	case string:
		b, _ := json.Marshal(x)
		return &tnode{kind: yaml.ScalarNode, js: b}, nil
	case json.Number:
		return &tnode{kind: yaml.ScalarNode, js: json.RawMessage(x.String())}, nil
	case bool:
		return &tnode{kind: yaml.ScalarNode, js: json.RawMessage(strconv.FormatBool(x))}, nil
	case nil:
		return &tnode{kind: yaml.ScalarNode, js: json.RawMessage("null")}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// splitPointer splits a JSON pointer ("/spec/queues/0/name") into its
// unescaped segments.
func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

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
		if err := setPointer(&root, splitPointer(c.Path), v); err != nil {
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
