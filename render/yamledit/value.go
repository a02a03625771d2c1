package yamledit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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

// SplitPointer splits a JSON pointer ("/spec/queues/0/name") into its
// unescaped segments.
func SplitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}
