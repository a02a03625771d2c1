package snapshot

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/kubeyaml"
	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/internal/yamlsrc"
	"github.com/krmplan/krmplan/snapshot/krmschema"
	"github.com/krmplan/krmplan/tenancy"
	"go.yaml.in/yaml/v3"
)

// docCheck walks one document the way kubectl decodes it (sigs.k8s.io/yaml
// on go-yaml v2: every node in order, each alias and merge key expanded
// where it stands) and checks what the API server would receive against
// the KRM schema: every scalar as kubectl reads it (kubeyaml), and the
// spellings that YAML 1.2 tools read differently; unknown fields and
// duplicate keys (strict); the merge keys that go-yaml v2 resolves
// otherwise than YAML's merge rule; and go-yaml v2's bound on alias
// expansion, so that no document costs more here than kubectl allows.
type docCheck struct {
	file  string
	lines *yamlsrc.LineIndex
	// strict is set for a KRM object: a duplicate key or an unknown field
	// is an error there. Other documents are only checked for what would
	// stop kubectl.
	strict bool
	// obj is the KRM object the document is (zero for another
	// document), queue the queue being walked, for messages.
	obj   objRef
	queue string

	// decodes and aliased count the nodes go-yaml v2 decodes, and those
	// it decodes through an alias; aliasDepth is how many aliases deep the
	// walk is.
	// docLine is the line where the document starts: an alias of an
	// anchor before it names another document's.
	docLine int

	decodes, aliased, aliasDepth int
	expanding                    map[*yaml.Node]bool
	path                         []segment
	// visits are the ids of the mapping nodes being walked (nested by
	// merge keys and by values), lastVisit the last id given.
	visits    []int
	lastVisit int
	// values is how many positions the last document of each kind had:
	// the next one's map is made that size rather than grown to it.
	values map[string]int
	// slab is what docReader.fields cuts a mapping's pairs from.
	slab [][2]*yaml.Node
	// keys are the keys of the mappings being walked (mapping.base).
	keys []keySet
	// bangs is set when the file has a "!" anywhere: only then may a
	// node carry a tag yaml.v3 does not keep.
	bangs bool
}

// reset makes c ready for the next document of its file, keeping the
// room it has grown.
func (c *docCheck) reset(strict bool, obj objRef, docLine int) {
	*c = docCheck{file: c.file, lines: c.lines, strict: strict, obj: obj, docLine: docLine,
		path: c.path[:0], visits: c.visits[:0], keys: c.keys[:0], bangs: c.bangs, values: c.values, slab: c.slab}
}

// segment is one step of a JSON pointer: a field name, or an index.
type segment struct {
	key   string
	index int
}

// pointer is the JSON pointer of the walk's place (RFC 6901).
func (c *docCheck) pointer() string {
	if len(c.path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range c.path {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s.key))
		}
	}
	return b.String()
}

func (c *docCheck) push(key string, index int) { c.path = append(c.path, segment{key, index}) }
func (c *docCheck) pop()                       { c.path = c.path[:len(c.path)-1] }

// errf is a ParseError at n's line, after the object and queue.
func (c *docCheck) errf(n *yaml.Node, format string, args ...any) error {
	return parseError(c.file, n.Line, c.obj, c.queue, fmt.Sprintf(format, args...))
}

// objRef names a KRM object: its kind and metadata.name.
type objRef struct{ kind, name string }

// parseError is a ParseError whose message starts with the object and
// queue it is about: "Department eng, queue eng-h100: …".
func parseError(file string, line int, o objRef, queue, msg string) *ParseError {
	e := &ParseError{File: file, Line: line, Msg: msg, Queue: queue}
	if o.kind == "" {
		return e
	}
	label := o.kind + " (no metadata.name)"
	if o.name != "" {
		label = o.kind + " " + o.name
		if k, err := tenancy.ParseKind(o.kind); err == nil {
			e.Object = k.Object(o.name)
		}
	}
	if queue != "" {
		label += ", queue " + queue
	}
	e.Msg = label + ": " + msg
	return e
}

// The bound of go-yaml v2's decoder (decode.go, allowedAliasRatio): once a
// document has decoded more than 1,000 nodes and more than 100 of them
// through aliases, the share decoded through aliases may be at most 99%
// up to 400,000 nodes, falling to 10% at 4,000,000 and beyond.
const (
	aliasRatioLow  = 400000
	aliasRatioHigh = 4000000
)

func allowedAliasRatio(decodes int) float64 {
	switch {
	case decodes <= aliasRatioLow:
		return 0.99
	case decodes >= aliasRatioHigh:
		return 0.10
	}
	return 0.99 - 0.89*(float64(decodes-aliasRatioLow)/float64(aliasRatioHigh-aliasRatioLow))
}

// count is one decoded node, and the bound on alias expansion.
func (c *docCheck) count(n *yaml.Node) error {
	c.decodes++
	if c.aliasDepth > 0 {
		c.aliased++
	}
	// Checked at every node, as go-yaml v2 does: beyond 400,000 nodes the
	// allowed share falls faster than the share through aliases may.
	if c.aliased > 100 && c.decodes > 1000 && float64(c.aliased)/float64(c.decodes) > allowedAliasRatio(c.decodes) {
		return c.errf(n, "the aliases and merge keys of this document expand beyond kubectl's bound: %d of the first %d nodes decoded come through aliases "+
			"(go-yaml v2 allows 99%% of a document's first 400,000 nodes, falling to 10%% at 4,000,000); kubectl refuses the file (document contains excessive aliasing)",
			c.aliased, c.decodes)
	}
	return nil
}

// document checks a document whose root is root against s. go-yaml v2
// counts the document node itself.
func (c *docCheck) document(root *yaml.Node, s *krmschema.Field) error {
	c.decodes++
	return c.node(root, s)
}

// node checks n against schema s, at the walk's path.
func (c *docCheck) node(n *yaml.Node, s *krmschema.Field) error {
	if err := c.count(n); err != nil {
		return err
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.alias(n, func(t *yaml.Node) error { return c.node(t, s) })
	case yaml.ScalarNode:
		return c.scalar(n, s)
	case yaml.SequenceNode:
		if s.Type != krmschema.TypeAny && s.Type != krmschema.TypeArray {
			return c.errf(n, "%s is a list; KRM's schema wants %s there", c.pointer(), typeName(s))
		}
		items := s.Items
		if items == nil {
			items = krmschema.Any
		}
		queues := c.strict && len(c.path) == 2 && c.path[0].key == "spec" && c.path[1].key == "queues"
		for i, it := range n.Content {
			if queues {
				c.queue = nameOf(it)
			}
			c.push("", i)
			err := c.node(it, items)
			c.pop()
			if err != nil {
				return err
			}
		}
		if queues {
			c.queue = ""
		}
		return nil
	case yaml.MappingNode:
		if s.Type != krmschema.TypeAny && s.Type != krmschema.TypeObject {
			return c.errf(n, "%s is a mapping; KRM's schema wants %s there", c.pointer(), typeName(s))
		}
		m := mapping{base: len(c.keys)}
		err := c.mapping(n, s, &m)
		c.keys = c.keys[:m.base]
		return err
	}
	return nil
}

// start is the byte offset of node n, for kubeyaml.ScalarOf, which needs
// it only when n may carry the tag "!": -1 when n's line has no "!".
func (c *docCheck) start(n *yaml.Node) int {
	if !c.bangs {
		return -1
	}
	src := c.lines.Src()
	from := c.lines.StartOf(n.Line)
	to := c.lines.StartOf(n.Line + 1)
	if bytes.IndexByte(src[from:to], '!') < 0 {
		return -1
	}
	return c.lines.Offset(n.Line, n.Column)
}

// tagged reports whether scalar n carries the tag "!", which yaml.v3 does
// not keep: an empty document "!" is the string "" to kubectl, not
// nothing.
func (c *docCheck) tagged(n *yaml.Node) bool {
	return kubeyaml.ScalarOf(n, c.lines.Src(), c.start(n)).Tag != ""
}

// alias expands an alias node through walk, refusing one inside the
// anchor it names (go-yaml v2: "anchor value contains itself").
func (c *docCheck) alias(n *yaml.Node, walk func(*yaml.Node) error) error {
	t := n.Alias
	if t == nil {
		return c.errf(n, "unknown anchor %q", n.Value)
	}
	if t.Line < c.docLine {
		return c.errf(n, "the alias *%s names an anchor of an earlier document (line %d): kubectl reads each document alone and refuses it (unknown anchor '%s' referenced); repeat the value here", n.Value, t.Line, n.Value)
	}
	if c.expanding == nil {
		c.expanding = map[*yaml.Node]bool{}
	}
	if c.expanding[t] {
		return c.errf(n, "the alias *%s is inside the anchor &%s it names (line %d); kubectl refuses it (anchor value contains itself)", n.Value, n.Value, t.Line)
	}
	c.expanding[t] = true
	c.aliasDepth++
	err := walk(t)
	c.aliasDepth--
	delete(c.expanding, t)
	return err
}

func typeName(s *krmschema.Field) string {
	switch s.Type {
	case krmschema.TypeObject:
		return "a mapping"
	case krmschema.TypeArray:
		return "a list"
	case krmschema.TypeString:
		return "a string"
	case krmschema.TypeNumber:
		return "a number"
	case krmschema.TypeInteger:
		return "a whole number"
	case krmschema.TypeBoolean:
		return "true or false"
	case krmschema.TypeIntOrString:
		return "a whole number or a string"
	}
	return "any value"
}

// mapping is the object a YAML mapping becomes, as go-yaml v2 builds it:
// each key set in turn, merge keys included. Its keys are c.keys[base:]:
// mappings nest (a value's mapping is walked, and done, between two keys
// of its parent), so they share one stack. A key remembers the mapping
// visit that set it directly (owner), so that a merge that overwrites the
// own key of a mapping still being walked can be told apart.
type mapping struct {
	base int
	idx  map[string]int // over 16 keys: index into c.keys
}

type keySet struct {
	key  string
	node *yaml.Node // the key as written
	// owner is the id of the mapping node visit that set the key.
	owner int
}

func (c *docCheck) find(m *mapping, k string) int {
	if m.idx != nil {
		if i, ok := m.idx[k]; ok {
			return i
		}
		return -1
	}
	for i := m.base; i < len(c.keys); i++ {
		if c.keys[i].key == k {
			return i
		}
	}
	return -1
}

func (c *docCheck) add(m *mapping, ks keySet) {
	c.keys = append(c.keys, ks)
	switch {
	case m.idx != nil:
		m.idx[ks.key] = len(c.keys) - 1
	case len(c.keys)-m.base > 16:
		m.idx = make(map[string]int, 32)
		for i := m.base; i < len(c.keys); i++ {
			m.idx[c.keys[i].key] = i
		}
	}
}

// mapping walks the pairs of mapping node n into m, as go-yaml v2's
// decoder does: in order, a merge key's mappings set where it stands.
func (c *docCheck) mapping(n *yaml.Node, s *krmschema.Field, m *mapping) error {
	c.lastVisit++
	c.visits = append(c.visits, c.lastVisit)
	err := c.pairs(n, s, m, c.lastVisit)
	c.visits = c.visits[:len(c.visits)-1]
	return err
}

// open reports whether the mapping visit id is still being walked.
func (c *docCheck) open(id int) bool {
	for _, v := range c.visits {
		if v == id {
			return true
		}
	}
	return false
}

func (c *docCheck) pairs(n *yaml.Node, s *krmschema.Field, m *mapping, v int) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		ks, merge, err := c.key(k)
		if err != nil {
			return err
		}
		if merge {
			if err := c.merge(val, s, m); err != nil {
				return err
			}
			continue
		}
		ks.owner = v
		if err := c.set(m, ks); err != nil {
			return err
		}
		written := deref(k).Value
		if c.strict && s.Values != nil && ks.key != written {
			return c.errf(k, "%s has the key %s, which kubectl reads as %q (YAML 1.1); quote it: %q", c.pointer(), c.written(deref(k)), ks.key, written)
		}
		fs := s.Field(ks.key)
		if fs == nil {
			if c.strict {
				return c.unknownField(k, written, ks.key, s)
			}
			fs = krmschema.Any
		}
		c.push(ks.key, -1)
		err = c.node(val, fs)
		c.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

// set records key ks in m: a key the same mapping sets twice is an error
// (strict), and so is a merge that overwrites a key that a mapping still
// being walked set itself before its merge key — go-yaml v2 takes the
// merged value there, YAML's merge rule (and yaml.v3) the key's own.
func (c *docCheck) set(m *mapping, ks keySet) error {
	i := c.find(m, ks.key)
	if i < 0 {
		c.add(m, ks)
		return nil
	}
	prev := c.keys[i]
	switch {
	case prev.owner == ks.owner && c.strict:
		c.push(ks.key, -1)
		defer c.pop()
		return c.errf(ks.node, "%s is set twice in one mapping, %s; kubectl keeps the last silently, YAML 1.2 tools refuse the file: keep one",
			c.pointer(), twoPlaces(prev.node, ks.node))
	case prev.owner != ks.owner && c.open(prev.owner) && c.strict:
		c.push(ks.key, -1)
		defer c.pop()
		return c.errf(prev.node, "%s at line %d is also set by the merge key << after it (line %d): kubectl (go-yaml v2) takes the merged value, YAML's merge rule the key's own; "+
			"move %s below the << line", c.pointer(), prev.node.Line, ks.node.Line, ks.key)
	}
	c.keys[i] = ks
	return nil
}

// key reads a mapping key as kubectl does; merge reports a merge key.
func (c *docCheck) key(k *yaml.Node) (keySet, bool, error) {
	if err := c.count(k); err != nil {
		return keySet{}, false, err
	}
	at := k
	if k.Kind == yaml.AliasNode {
		if k.Alias == nil {
			return keySet{}, false, c.errf(k, "unknown anchor %q", k.Value)
		}
		c.aliasDepth++
		err := c.count(k.Alias)
		c.aliasDepth--
		if err != nil {
			return keySet{}, false, err
		}
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return keySet{}, false, c.errf(at, "%s has a key that is a %s; kubectl refuses it (invalid map key)", c.pointer(), kindWord(k))
	}
	start := c.start(k)
	if k.Style == 0 && start < 0 && kubeyaml.PlainWord(k.Value) {
		return keySet{key: k.Value, node: at}, false, nil // a field name
	}
	s := kubeyaml.ScalarOf(k, c.lines.Src(), start)
	if kubeyaml.IsMerge(s) != (k.Tag == "!!merge") {
		return keySet{}, false, c.errf(at, "%s: the key %s is a merge key to kubectl (go-yaml v2) and not to YAML 1.2 tools, or the other way round; write << plainly", c.pointer(), c.written(k))
	}
	if k.Tag == "!!merge" {
		return keySet{node: at}, true, nil
	}
	key, ok, why := kubeyaml.Key(s)
	if !ok {
		return keySet{}, false, c.errf(at, "%s has the key %s: %s", c.pointer(), c.written(k), why)
	}
	return keySet{key: key, node: at}, false, nil
}

func kindWord(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "scalar"
}

// merge walks the value of a merge key into m: a mapping, an alias of
// one, or a list of those (go-yaml v2 walks a list from its end, so that
// the first mapping wins, as YAML's merge rule says).
func (c *docCheck) merge(v *yaml.Node, s *krmschema.Field, m *mapping) error {
	one := func(n *yaml.Node) error {
		if err := c.count(n); err != nil {
			return err
		}
		switch n.Kind {
		case yaml.MappingNode:
			return c.mapping(n, s, m)
		case yaml.AliasNode:
			return c.alias(n, func(t *yaml.Node) error {
				if t.Kind != yaml.MappingNode {
					return c.errf(n, "%s: the merge key << takes a mapping, and *%s is a %s", c.pointer(), n.Value, kindWord(t))
				}
				if err := c.count(t); err != nil {
					return err
				}
				return c.mapping(t, s, m)
			})
		}
		return c.errf(n, "%s: the merge key << takes a mapping or a list of mappings, not a %s", c.pointer(), kindWord(n))
	}
	if v.Kind != yaml.SequenceNode {
		return one(v)
	}
	for i := len(v.Content) - 1; i >= 0; i-- {
		if err := one(v.Content[i]); err != nil {
			return err
		}
	}
	return nil
}

// unknownField is the error for a field the schema does not have, with
// the nearest known name.
func (c *docCheck) unknownField(k *yaml.Node, written, key string, s *krmschema.Field) error {
	msg := fmt.Sprintf("%s: unknown field %q", c.pointer(), written)
	if key != written {
		msg += fmt.Sprintf(" (kubectl reads the key as %q)", key)
	}
	if near := nearname.Nearest(written, s.Names()); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	msg += "; kubectl apply refuses it (strict field validation), and with --validate=warn the API server drops it"
	return c.errf(k, "%s", msg)
}

// twoPlaces says where two keys of one mapping are written: their lines,
// or their columns when they share one (a flow mapping).
func twoPlaces(a, b *yaml.Node) string {
	if a.Line == b.Line {
		return fmt.Sprintf("on line %d at columns %d and %d", a.Line, a.Column, b.Column)
	}
	return fmt.Sprintf("at lines %d and %d", a.Line, b.Line)
}

// written is scalar n as the file spells it, for a message: with its tag
// or anchor (`!!int 010`) and its quotes (`"5"`), and nothing after it on
// the line (no comment, no `, limit: 4}` of a flow mapping). A spelling over
// 40 bytes is cut.
func (c *docCheck) written(n *yaml.Node) string {
	text := n.Value
	src := c.lines.Src()
	if off := c.lines.Offset(n.Line, n.Column); off >= 0 && n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		at := skipProperties(src, off)
		props := string(src[off:at])
		switch {
		case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
			if end := yamlsrc.QuotedEnd(src, at); end > at {
				text = props + string(src[at:end])
			}
		case bytes.HasPrefix(src[at:], []byte(n.Value)):
			text = props + n.Value
		}
	}
	if len(text) > 40 {
		text = text[:37] + "..."
	}
	return "`" + text + "`"
}
