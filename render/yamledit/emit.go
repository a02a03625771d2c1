package yamledit

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/kubeyaml"
	"github.com/krmplan/krmplan/internal/yamlsrc"
	"go.yaml.in/yaml/v3"
)

// like is a neighbour node whose style new text copies: flow or block,
// indentation, the column of aligned values, key order, quoting. A zero
// like means "no neighbour": the default style (two-space indentation,
// block mappings, resource quotas as one-line flow maps).
type like struct {
	f *File
	n *yaml.Node
}

func (l like) ok() bool { return l.f != nil && l.n != nil }

// node is the neighbour with aliases followed.
func (l like) node() *yaml.Node {
	if !l.ok() {
		return nil
	}
	return deref(l.n)
}

// keyOrder ranks the keys of KRM objects in the order people write them
// (and KRM documents them). Within any one mapping the relative order of
// the keys it may hold is the conventional one.
var keyOrder = func() map[string]int {
	m := map[string]int{}
	for i, k := range []string{"apiVersion", "kind", "metadata", "name", "namespace", "labels", "annotations", "spec",
		"labelKey", "labelValue", "parent", "defaultNodePools", "nodepool", "priority", "resources", "queues",
		"gpu", "cpu", "memory", "deserved", "limit", "overQuotaWeight"} {
		m[k] = i
	}
	return m
}()

func rank(k string) int {
	if r, ok := keyOrder[k]; ok {
		return r
	}
	return len(keyOrder)
}

// equivalent keys share a style: one resource's quota map looks like another's.
func equivalent(a, b string) bool {
	class := func(k string) string {
		switch k {
		case "gpu", "cpu", "memory":
			return "resource"
		case "deserved", "limit", "overQuotaWeight":
			return "field"
		}
		return k
	}
	return class(a) == class(b)
}

// mapKeys lists the keys of mapping n (merge keys excluded) with their nodes.
func mapKeys(n *yaml.Node) (keys []string, knodes, vnodes []*yaml.Node) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Tag == "!!merge" {
			continue
		}
		keys = append(keys, n.Content[i].Value)
		knodes = append(knodes, n.Content[i])
		vnodes = append(vnodes, n.Content[i+1])
	}
	return keys, knodes, vnodes
}

// entryOf finds the entry of mapping l used as the style of key k: k
// itself, else an equivalent key. It returns the key and value nodes.
func entryOf(l like, k string) (*yaml.Node, *yaml.Node) {
	keys, kn, vn := mapKeys(l.node())
	for i, x := range keys {
		if x == k {
			return kn[i], vn[i]
		}
	}
	for i, x := range keys {
		if equivalent(x, k) {
			return kn[i], vn[i]
		}
	}
	return nil, nil
}

// sortKeys orders the keys of a new mapping: keys the neighbour has in the
// neighbour's order, the others where the conventional order puts them.
func sortKeys(keys []string, l like) []string {
	lkeys, _, _ := mapKeys(l.node())
	idx := map[string]int{}
	for i, k := range lkeys {
		idx[k] = i
	}
	pos := func(k string) float64 {
		if i, ok := idx[k]; ok {
			return float64(i)
		}
		best := -1
		for i, lk := range lkeys {
			if rank(lk) < rank(k) {
				best = i
			}
		}
		return float64(best) + 0.5
	}
	out := append([]string(nil), keys...)
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := pos(out[i]), pos(out[j])
		if pi != pj {
			return pi < pj
		}
		return rank(out[i]) < rank(out[j])
	})
	return out
}

// valueGap is the number of spaces to write between "key:" and a value on
// the same line, so that the value starts in the column the neighbour's
// values of that kind start in (one space when nothing is aligned).
func valueGap(l like, k string) int {
	kn, vn := entryOf(l, k)
	if kn == nil || vn.Line != kn.Line {
		return 1
	}
	target := l.f.Offset(vn) - l.f.Offset(kn) // the value's offset from its key
	return max(1, target-len(k)-1)
}

// childIndent is how much deeper than its key the block value of k is
// indented in the neighbour (2 when unknown; 0 for an indentless list).
func childIndent(l like, k string) int {
	kn, vn := entryOf(l, k)
	if kn == nil || vn.Kind == yaml.AliasNode || yamlsrc.IsFlow(vn) {
		return 2
	}
	first := vn // a block sequence's node is its first dash
	if vn.Kind == yaml.MappingNode && len(vn.Content) > 0 {
		first = vn.Content[0] // a block mapping's node may be its anchor
	}
	if first.Line == kn.Line {
		return 2
	}
	return max(l.f.Col(first)-l.f.Col(kn), 0)
}

// isQuotaMap reports a mapping that holds only quota fields.
func isQuotaMap(t *tnode) bool {
	if t.kind != yaml.MappingNode || len(t.keys) == 0 {
		return false
	}
	for _, k := range t.keys {
		if !equivalent(k, "deserved") {
			return false
		}
	}
	return true
}

// wantsFlow decides flow or block for a new collection: the neighbour's
// style, else flow for quota maps and lists of scalars.
func wantsFlow(t *tnode, l like) bool {
	if n := l.node(); n != nil && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
		return yamlsrc.IsFlow(n)
	}
	if isQuotaMap(t) {
		return true
	}
	if t.kind == yaml.SequenceNode {
		for _, it := range t.items {
			if it != nil && it.kind != yaml.ScalarNode {
				return false
			}
		}
		return true
	}
	return false
}

// childLike is the style of the value of key k of a mapping styled like l.
func childLike(l like, k string) like {
	_, vn := entryOf(l, k)
	if vn == nil {
		return like{}
	}
	return like{f: l.f, n: vn}
}

// itemLike is the style of a sequence item: the neighbour's last item.
func itemLike(l like) like {
	n := l.node()
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return like{}
	}
	return like{f: l.f, n: n.Content[len(n.Content)-1]}
}

// blockMap writes mapping t in block style, keys at indent.
func blockMap(t *tnode, l like, indent int) []string {
	var lines []string
	for _, k := range sortKeys(t.keys, l) {
		lines = append(lines, entryLines(k, t.kids[k], l, indent)...)
	}
	return lines
}

// entryLines writes "k: value" of a block mapping styled like l at indent.
func entryLines(k string, v *tnode, l like, indent int) []string {
	pad := strings.Repeat(" ", indent)
	cl := childLike(l, k)
	switch {
	case v.kind == yaml.ScalarNode:
		return []string{pad + k + ":" + strings.Repeat(" ", valueGap(l, k)) + scalarText(v, cl)}
	case wantsFlow(v, cl):
		return []string{pad + k + ":" + strings.Repeat(" ", valueGap(l, k)) + flowText(v, cl)}
	case v.kind == yaml.MappingNode:
		return append([]string{pad + k + ":"}, blockMap(v, cl, indent+childIndent(l, k))...)
	default:
		return append([]string{pad + k + ":"}, blockSeq(v, cl, indent+childIndent(l, k))...)
	}
}

// blockSeq writes sequence t in block style, dashes at dashIndent.
func blockSeq(t *tnode, l like, dashIndent int) []string {
	il := itemLike(l)
	gap := 1
	if il.ok() {
		gap = dashGap(il)
	}
	var lines []string
	for _, it := range t.items {
		if it == nil {
			continue
		}
		dash := strings.Repeat(" ", dashIndent) + "-" + strings.Repeat(" ", gap)
		switch {
		case it.kind == yaml.ScalarNode:
			lines = append(lines, dash+scalarText(it, il))
		case wantsFlow(it, il):
			lines = append(lines, dash+flowText(it, il))
		case it.kind == yaml.MappingNode:
			sub := blockMap(it, il, dashIndent+1+gap)
			if len(sub) > 0 {
				sub[0] = dash + strings.TrimLeft(sub[0], " ")
			}
			lines = append(lines, sub...)
		default:
			sub := blockSeq(it, il, dashIndent+1+gap)
			if len(sub) > 0 {
				sub[0] = dash + strings.TrimLeft(sub[0], " ")
			}
			lines = append(lines, sub...)
		}
	}
	return lines
}

// dashGap is the number of spaces between an item's dash and its content
// in the neighbour item il (1 when it cannot tell).
func dashGap(il like) int {
	t := il.f.LineText(il.n.Line)
	c := min(max(il.f.Col(il.n), 0), len(t))
	i := strings.LastIndex(t[:c], "-")
	if i < 0 || strings.TrimSpace(t[i+1:c]) != "" {
		return 1
	}
	return max(c-i-1, 1)
}

// flowText writes t in flow style, copying the neighbour's inner spacing
// and, for mappings, the columns of its keys so that lines stay aligned.
func flowText(t *tnode, l like) string {
	n := l.node()
	var inner, trail string
	if n != nil && yamlsrc.IsFlow(n) && len(n.Content) > 0 {
		src := l.f.src
		o := l.f.Offset(n)
		first := l.f.Offset(n.Content[0])
		if first > o+1 && strings.Trim(string(src[o+1:first]), " ") == "" {
			inner = string(src[o+1 : first])
		}
		if end, err := l.f.FlowEnd(n); err == nil {
			if lastEnd, err := l.f.NodeEnd(n.Content[len(n.Content)-1]); err == nil && lastEnd < end-1 && strings.Trim(string(src[lastEnd:end-1]), " ") == "" {
				trail = string(src[lastEnd : end-1])
			}
		}
	}
	if t.kind == yaml.SequenceNode {
		il := itemLike(l)
		parts := []string{}
		for _, it := range t.items {
			if it == nil {
				continue
			}
			if it.kind == yaml.ScalarNode {
				parts = append(parts, scalarText(it, il))
			} else {
				parts = append(parts, flowText(it, il))
			}
		}
		return "[" + inner + strings.Join(parts, ", ") + trail + "]"
	}
	var b strings.Builder
	b.WriteString("{" + inner)
	mapLike := l
	if n == nil || n.Kind != yaml.MappingNode {
		mapLike = like{}
	}
	for i, k := range sortKeys(t.keys, mapLike) {
		if i > 0 {
			b.WriteString(",")
			spaces := 1
			if kn, _ := exactKey(mapLike, k); kn != nil && kn.Line == n.Line {
				want := l.f.Offset(kn) - l.f.Offset(n) // the key's column from the brace
				spaces = max(1, want-b.Len())
			}
			b.WriteString(strings.Repeat(" ", spaces))
		}
		v := t.kids[k]
		cl := childLike(mapLike, k)
		gap := 1 // in a flow map only the same key's spacing carries over
		if kn, vn := exactKey(mapLike, k); kn != nil && vn.Line == kn.Line {
			gap = max(1, mapLike.f.Offset(vn)-mapLike.f.Offset(kn)-len(k)-1)
		}
		b.WriteString(k + ":" + strings.Repeat(" ", gap))
		if v.kind == yaml.ScalarNode {
			b.WriteString(scalarText(v, cl))
		} else {
			b.WriteString(flowText(v, cl))
		}
	}
	b.WriteString(trail + "}")
	return b.String()
}

// exactKey finds key k itself (not an equivalent) in mapping l.
func exactKey(l like, k string) (*yaml.Node, *yaml.Node) {
	keys, kn, vn := mapKeys(l.node())
	for i, x := range keys {
		if x == k {
			return kn[i], vn[i]
		}
	}
	return nil, nil
}

// scalarText writes a scalar: a number as planned, a string plain when YAML
// reads it back as the same string (quoted like the neighbour when the
// neighbour is quoted), text copied from a neighbour as it is.
func scalarText(t *tnode, l like) string {
	if t.raw != "" {
		return t.raw
	}
	js := bytes.TrimSpace(t.js)
	if len(js) == 0 || js[0] != '"' {
		return string(js)
	}
	var s string
	if err := json.Unmarshal(js, &s); err != nil {
		return string(js)
	}
	style := yaml.Style(0)
	if n := l.node(); n != nil && n.Kind == yaml.ScalarNode {
		style = n.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	}
	switch {
	case style == yaml.SingleQuotedStyle:
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	case style == yaml.DoubleQuotedStyle || !plainSafe(s):
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return strings.TrimSuffix(b.String(), "\n")
	}
	return s
}

// plainSafe reports whether s may be written unquoted: YAML reads the
// plain text back as the string s, in block and flow context alike, and
// kubectl (YAML 1.1) and YAML 1.2 read it alike (a queue named on or 010
// is quoted).
func plainSafe(s string) bool {
	if s == "" || strings.ContainsAny(s, ",[]{}#\"'\n\r\t") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || !kubeyaml.StringAlike(s) {
		return false
	}
	out, err := yaml.Marshal(s)
	return err == nil && string(out) == s+"\n"
}
