package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/internal/yamlsrc"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
	"go.yaml.in/yaml/v3"
)

// Parsed is what one or more tenancy YAML files declare: the objects, and
// the documents of other kinds.
type Parsed struct {
	tenancy.Tenancy
	Other []OtherDocument
}

// ParseError is a problem in a tenancy file, at a line.
type ParseError struct {
	File string
	Line int // 1-based; 0 when the whole file is concerned
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ParseTenancy reads every document of one tenancy file (name is the
// repository-relative path used in positions and errors) into t. NodePool,
// Department, Project, ManagedNodesConfig and KRMConfig documents of
// kai.resources/v1alpha1 are read; other kinds go to t.Other. Errors are
// *ParseError: a YAML syntax error, a quota value that is not a number (a
// quoted "4" is a string, which KRM rejects), a wrong shape.
func (t *Parsed) ParseTenancy(name string, src []byte) error {
	lines := yamlsrc.NewLineIndex(src)
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var read []readDoc
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return syntaxError(name, lines, err)
		}
		if len(doc.Content) == 0 || emptyDocument(doc.Content[0]) {
			continue // a document with nothing in it: "---" alone, or comments only
		}
		r := &docReader{file: name, lines: lines}
		if err := r.read(t, doc.Content[0]); err != nil {
			return err
		}
		read = markSharedAcross(read, readDoc{root: doc.Content[0], values: r.values}, lines)
	}
}

// readDoc is a document ParseTenancy has read and the positions of its
// values.
type readDoc struct {
	root   *yaml.Node
	values map[string]tenancy.Pos
}

// markSharedAcross marks the values of the earlier documents (anchored:
// those that hold an anchor) that lie inside an anchor (&name) which an
// alias of doc names: yaml.v3 resolves an alias to an anchor of an earlier
// document of the stream, so editing such a value would change doc too.
// yamlsrc.SharedAnchors sees aliases within one document only. It returns
// anchored with doc added when doc holds an anchor; the others are not
// kept, so a tenancy's parsed documents are not all held at once.
func markSharedAcross(anchored []readDoc, doc readDoc, lines *yamlsrc.LineIndex) []readDoc {
	var targets []*yaml.Node
	hasAnchor := false
	walkNodes(doc.root, 0, func(n *yaml.Node) {
		hasAnchor = hasAnchor || n.Anchor != ""
		if n.Kind == yaml.AliasNode && n.Alias != nil && n.Alias.Line < doc.root.Line {
			targets = append(targets, n.Alias)
		}
	})
	for _, a := range targets {
		// The document that holds the anchor: the last to start before it.
		i := len(anchored) - 1
		for i >= 0 && anchored[i].root.Line > a.Line {
			i--
		}
		if i < 0 {
			continue
		}
		starts := map[int]bool{}
		walkNodes(a, 0, func(n *yaml.Node) {
			if off := lines.Offset(n.Line, n.Column); n.Kind == yaml.ScalarNode && off >= 0 {
				starts[skipProperties(lines.Src(), off)] = true
			}
		})
		for path, p := range anchored[i].values {
			if starts[p.Start] && !p.Alias && p.Anchor == "" {
				p.Anchor, p.AnchorLine = a.Anchor, a.Line
				anchored[i].values[path] = p
			}
		}
	}
	if hasAnchor {
		anchored = append(anchored, doc)
	}
	return anchored
}

// walkNodes calls fn for n and every node inside it, not following
// aliases (nor deeper than yamlsrc.SharedAnchors goes).
func walkNodes(n *yaml.Node, depth int, fn func(*yaml.Node)) {
	if n == nil || depth > 512 {
		return
	}
	fn(n)
	for _, c := range n.Content {
		walkNodes(c, depth+1, fn)
	}
}

// emptyDocument reports whether a document's root is yaml.v3's null
// scalar for a document with no content (a leading or trailing "---",
// "---" twice, a document of comments only); kubectl and kustomize skip
// these. A document that says null (null, ~) is not empty: it is not a
// mapping.
func emptyDocument(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" && n.Anchor == "" && n.Style&yaml.TaggedStyle == 0
}

// yamlErrorPrefix is yaml.v3's "line N: " before a syntax error's problem.
var yamlErrorPrefix = regexp.MustCompile(`^line ([0-9]+): `)

// syntaxError is the ParseError for a yaml.v3 syntax error, at the line of
// the problem. yaml.v3's own line is often not that line: for a parser
// error it is the 0-based line where the enclosing collection starts (one
// line early, and the collection's line, not the problem's), and some
// errors have no line at all (a problem on the first line, a character
// the reader refuses, an unknown alias). problemLine finds the line.
func syntaxError(name string, lines *yamlsrc.LineIndex, err error) *ParseError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	reported := 0
	if m := yamlErrorPrefix.FindStringSubmatch(msg); m != nil {
		reported, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	line := problemLine(lines, msg, reported)
	if line == 0 {
		return &ParseError{File: name, Msg: "invalid YAML (line unknown): " + msg}
	}
	return &ParseError{File: name, Line: line, Msg: "invalid YAML: " + msg}
}

// problemLine returns the first line k from which the file read up to the
// end of line k fails with the same problem msg, searching from line from
// (yaml.v3's line, which is never after the problem). yaml.v3 reads the
// stream front to back, so the text up to the problem's line fails there
// as the whole file does, and text that ends before it does not meet that
// token. The search gallops from line from (the problem is usually a few
// lines further) and then halves the last stretch: the file's start is
// decoded a few times, and only after an error. It returns 0 when no text
// up to the file's end fails with msg (the whole file always does).
func problemLine(lines *yamlsrc.LineIndex, msg string, from int) int {
	src := lines.Src()
	last := lines.Starts()
	if last > 1 && lines.StartOf(last) == len(src) {
		last-- // the file ends with a line break: no line after it
	}
	fails := func(k int) bool { // the text up to the end of line k fails with msg
		text := src
		if k < lines.Starts() {
			text = src[:lines.StartOf(k+1)]
		}
		dec := yaml.NewDecoder(bytes.NewReader(text))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			switch {
			case err == nil:
				continue
			case errors.Is(err, io.EOF):
				return false
			}
			got := strings.TrimPrefix(err.Error(), "yaml: ")
			if m := yamlErrorPrefix.FindString(got); m != "" {
				got = got[len(m):]
			}
			return got == msg
		}
	}
	// Gallop: ok is a line up to which the text does not fail (0: none
	// known), k the next one tried.
	ok, k := min(max(from, 1), last)-1, min(max(from, 1), last)
	for step := 1; !fails(k); step *= 2 {
		if k == last {
			return 0
		}
		ok, k = k, min(k+step, last)
	}
	// The text up to line ok does not fail, up to line k it does.
	lo, hi := ok+1, k
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}

type docReader struct {
	file  string
	lines *yamlsrc.LineIndex
	// values collects the positions of the document's scalars by JSON pointer.
	values map[string]tenancy.Pos
	// anchorLine maps the alias nodes made for values reached through an
	// aliased mapping or a merge key to the line of the anchor they name.
	anchorLine map[*yaml.Node]int
	// shared maps the nodes inside an anchor that an alias uses to it.
	shared map[*yaml.Node]*yaml.Node
}

func (r *docReader) errf(n *yaml.Node, format string, args ...any) error {
	return &ParseError{File: r.file, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// fields returns a mapping's keys and values, erroring on another shape.
// Merge keys (<<: *anchor, <<: [*a, *b]) are expanded as YAML defines
// them: the mapping's own keys win, then the merged mappings in order. A
// value that comes from an aliased mapping or a merged one is handed out
// as an alias node at the alias, so that its position is marked as not
// spliceable: editing it would edit the anchor, and every user of it.
func (r *docReader) fields(n *yaml.Node, what string) ([][2]*yaml.Node, error) {
	return r.fieldsDepth(n, what, 0)
}

func (r *docReader) fieldsDepth(n *yaml.Node, what string, depth int) ([][2]*yaml.Node, error) {
	m := deref(n)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, r.errf(n, "%s must be a mapping", what)
	}
	if depth > 16 {
		return nil, r.errf(n, "%s: merge keys nested too deep", what)
	}
	out := make([][2]*yaml.Node, 0, len(m.Content)/2)
	var merges []*yaml.Node
	own := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		own[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	for _, mv := range merges {
		srcs := []*yaml.Node{mv}
		if mv.Kind == yaml.SequenceNode {
			srcs = mv.Content
		}
		for _, src := range srcs {
			kvs, err := r.fieldsDepth(src, "the merged value of "+what, depth+1)
			if err != nil {
				return nil, err
			}
			for _, kv := range kvs {
				if own[kv[0].Value] {
					continue
				}
				own[kv[0].Value] = true
				out = append(out, [2]*yaml.Node{kv[0], r.via(src, kv[1])})
			}
		}
	}
	if n.Kind == yaml.AliasNode {
		for i := range out {
			out[i][1] = r.via(n, out[i][1])
		}
	}
	return out, nil
}

// via returns v as reached through the alias a: an alias node at a's
// position that resolves to v. A value not reached through an alias is
// returned as it is.
func (r *docReader) via(a, v *yaml.Node) *yaml.Node {
	if a.Kind != yaml.AliasNode {
		return v
	}
	w := &yaml.Node{Kind: yaml.AliasNode, Value: a.Value, Alias: v, Line: a.Line, Column: a.Column}
	if r.anchorLine == nil {
		r.anchorLine = map[*yaml.Node]int{}
	}
	if l, ok := r.anchorLine[a]; ok {
		r.anchorLine[w] = l
	} else if a.Alias != nil {
		r.anchorLine[w] = a.Alias.Line
	}
	return w
}

func (r *docReader) str(n *yaml.Node, what string) (string, error) {
	v := deref(n)
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", r.errf(n, "%s must be a string", what)
	}
	return v.Value, nil
}

func (r *docReader) strList(n *yaml.Node, what string) ([]string, error) {
	v := deref(n)
	if v.Kind != yaml.SequenceNode {
		return nil, r.errf(n, "%s must be a list", what)
	}
	out := make([]string, 0, len(v.Content))
	for _, it := range v.Content {
		s, err := r.str(it, what+" entry")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// skipProperties moves past a node's anchor (&name) and tag (!tag), which
// yaml.v3 counts as the start of the node, to the value's first byte.
func skipProperties(src []byte, start int) int {
	for i := 0; i < 2 && start >= 0 && start < len(src) && (src[start] == '&' || src[start] == '!'); i++ {
		for start < len(src) && src[start] != ' ' && src[start] != '\t' && src[start] != '\n' && src[start] != '\r' {
			start++
		}
		for start < len(src) && (src[start] == ' ' || src[start] == '\t') {
			start++
		}
	}
	return start
}

// pos records where scalar n is written, under the JSON pointer path.
func (r *docReader) pos(path string, n *yaml.Node) {
	start := r.lines.Offset(n.Line, n.Column)
	if start < 0 {
		return
	}
	v := deref(n)
	if n.Kind != yaml.AliasNode && (n.Anchor != "" || (n.Tag != "" && n.Style&yaml.TaggedStyle != 0)) {
		start = skipProperties(r.lines.Src(), start)
	}
	text := v.Value
	if n.Kind == yaml.AliasNode {
		text = "*" + n.Value
	} else if v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		q := r.lines.Src()[start]
		if end := bytes.IndexByte(r.lines.Src()[start+1:], q); end >= 0 {
			text = string(r.lines.Src()[start : start+end+2])
		}
	}
	if start >= 0 && start+len(text) <= len(r.lines.Src()) && string(r.lines.Src()[start:start+len(text)]) != text {
		// A multi-line or escaped scalar: its written form is not its value.
		// Keep the value; an edit will find the bytes differ and refuse.
		text = v.Value
	}
	line := r.lines.LineOf(start)
	p := tenancy.Pos{Line: line, Column: n.Column + (start - r.lines.Offset(n.Line, n.Column)), Start: start, End: start + len(text), Text: text, Alias: n.Kind == yaml.AliasNode}
	if p.Alias {
		p.Line, p.Column = n.Line, n.Column
		if l, ok := r.anchorLine[n]; ok {
			p.AnchorLine = l
		} else if n.Alias != nil {
			p.AnchorLine = n.Alias.Line
		}
	} else if a, ok := r.shared[n]; ok {
		p.Anchor, p.AnchorLine = a.Anchor, a.Line
	}
	r.values[path] = p
}

// number reads a quota value; a string, even "4", is refused as KRM does.
func (r *docReader) number(path string, n *yaml.Node) (*quota.Value, error) {
	v := deref(n)
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") {
		if v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
			var re *quota.RangeError
			if _, err := quota.Parse(v.Value); err == nil || errors.As(err, &re) {
				return nil, r.errf(n, "%s is the string %q; KRM rejects a string there, write the number unquoted", path, v.Value)
			}
			return nil, r.errf(n, "%s: %q is not a number", path, v.Value)
		}
		return nil, r.errf(n, "%s must be a number", path)
	}
	q, err := quota.Parse(v.Value)
	if err != nil {
		return nil, r.errf(n, "%s: %v", path, err)
	}
	r.pos(path, n)
	return &q, nil
}

func (r *docReader) read(t *Parsed, root *yaml.Node) error {
	r.values = map[string]tenancy.Pos{}
	r.shared = yamlsrc.SharedAnchors(root)
	top, err := r.fields(root, "a document")
	if err != nil {
		return err
	}
	var apiVersion, kind string
	var meta, spec *yaml.Node
	versionAt, kindAt := root, root
	for _, kv := range top {
		switch kv[0].Value {
		case "apiVersion":
			apiVersion, _ = r.str(kv[1], "apiVersion")
			versionAt = kv[1]
		case "kind":
			kind, _ = r.str(kv[1], "kind")
			kindAt = kv[1]
		case "metadata":
			meta = kv[1]
		case "spec":
			spec = kv[1]
		}
	}
	known := apiVersion == tenancy.APIVersion
	if !known && krmKind(kind) && meantForKRM(apiVersion) {
		if apiVersion == "" {
			return r.errf(versionAt, "%s has no apiVersion; krmplan reads %s (KRM's only version)", kind, tenancy.APIVersion)
		}
		return r.errf(versionAt, "%s has apiVersion %s; krmplan reads %s (KRM's only version)", kind, apiVersion, tenancy.APIVersion)
	}
	if group, _, _ := strings.Cut(apiVersion, "/"); strings.EqualFold(group, tenancy.Group) && !krmKind(kind) {
		if near := nearKRMKind(kind); near != "" {
			return r.errf(kindAt, "%s has no kind %s (did you mean %s?); krmplan reads %s", apiVersion, kind, near, strings.Join(krmKinds, ", "))
		}
	}
	if !known || !krmKind(kind) {
		// Another kind (a Kustomization, a ConfigMap, another group's
		// NodePool) is kept aside, with whatever name it has.
		t.Other = append(t.Other, OtherDocument{APIVersion: apiVersion, Kind: kind, Name: otherName(meta), File: r.file, Line: root.Line})
		return nil
	}
	m, err := r.meta(meta, root)
	if err != nil {
		return err
	}
	origin := &tenancy.Origin{File: r.file, Line: root.Line, Values: r.values}
	switch {
	case kind == tenancy.KindNodePool.String():
		p := tenancy.NodePool{Metadata: m, Origin: origin}
		if err := r.nodePoolSpec(spec, &p.Spec); err != nil {
			return err
		}
		t.NodePools = append(t.NodePools, p)
	case kind == tenancy.KindDepartment.String():
		d := tenancy.Department{Metadata: m, Origin: origin}
		if err := r.specQueues(spec, root, func(k string, v *yaml.Node) (bool, error) { return false, nil }, &d.Spec.Queues); err != nil {
			return err
		}
		t.Departments = append(t.Departments, d)
	case kind == tenancy.KindProject.String():
		p := tenancy.Project{Metadata: m, Origin: origin}
		err := r.specQueues(spec, root, func(k string, v *yaml.Node) (bool, error) {
			var err error
			switch k {
			case "parent":
				p.Spec.Parent, err = r.str(v, "spec.parent")
				r.pos("/spec/parent", v)
			case "namespace":
				p.Spec.Namespace, err = r.str(v, "spec.namespace")
				r.pos("/spec/namespace", v)
			case "defaultNodePools":
				p.Spec.DefaultNodePools, err = r.strList(v, "spec.defaultNodePools")
			default:
				return false, nil
			}
			return true, err
		}, &p.Spec.Queues)
		if err != nil {
			return err
		}
		if p.Spec.Parent == "" {
			return r.errf(root, "project %s has no spec.parent", m.Name)
		}
		t.Projects = append(t.Projects, p)
	case kind == tenancy.KindManagedNodesConfig.String():
		c := &tenancy.ManagedNodesConfig{Metadata: m, Origin: origin}
		if err := r.managedNodes(spec, c); err != nil {
			return err
		}
		t.ManagedNodes = c
	case kind == tenancy.KindKRMConfig.String():
		c := &tenancy.KRMConfig{Metadata: m}
		if spec != nil {
			kvs, err := r.fields(spec, "spec")
			if err != nil {
				return err
			}
			for _, kv := range kvs {
				if kv[0].Value != "global" {
					continue
				}
				global, err := r.fields(kv[1], "spec.global")
				if err != nil {
					return err
				}
				for _, g := range global {
					if g[0].Value == "namespaceProjectLabelKey" {
						if c.ProjectLabelKey, err = r.str(g[1], "spec.global.namespaceProjectLabelKey"); err != nil {
							return err
						}
					}
				}
			}
		}
		t.KRMConfig = c
	}
	return nil
}

// krmKinds are the kinds of tenancy.APIVersion that krmplan reads.
var krmKinds = kindNames()

func krmKind(kind string) bool { return slices.Contains(krmKinds, kind) }

// meantForKRM reports whether a document of one of KRM's kinds whose
// apiVersion is not tenancy.APIVersion was meant for KRM: an apiVersion that is
// missing or has no group (core Kubernetes has none of these kinds), the
// group kai.resources at another version, or a group a few letters away
// from it (kai.resource, kai-resources). A NodePool of another group
// (Karpenter's karpenter.sh, say) is not KRM's.
func meantForKRM(apiVersion string) bool {
	group, _, hasGroup := strings.Cut(apiVersion, "/")
	if !hasGroup {
		return true
	}
	g := strings.ToLower(group)
	return strings.HasPrefix(g, "kai.") || nearname.Distance(g, tenancy.Group) <= 3
}

// nearKRMKind returns the KRM kind that kind is a misspelling of (a
// different case, or one or two letters off), or "".
func nearKRMKind(kind string) string { return nearname.Nearest(kind, krmKinds) }

// otherName is metadata.name of a document krmplan does not read, or ""
// when it has none (a kustomization.yaml has no metadata).
func otherName(meta *yaml.Node) string {
	m := deref(meta)
	if m == nil || m.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if v := deref(m.Content[i+1]); m.Content[i].Value == "name" && v != nil && v.Kind == yaml.ScalarNode {
			return v.Value
		}
	}
	return ""
}

func (r *docReader) meta(n, doc *yaml.Node) (tenancy.Meta, error) {
	var m tenancy.Meta
	if n == nil {
		return m, r.errf(doc, "the document has no metadata")
	}
	kvs, err := r.fields(n, "metadata")
	if err != nil {
		return m, err
	}
	for _, kv := range kvs {
		switch kv[0].Value {
		case "name":
			if m.Name, err = r.str(kv[1], "metadata.name"); err != nil {
				return m, err
			}
		case "uid":
			m.UID, _ = r.str(kv[1], "metadata.uid")
		case "annotations", "labels":
			pairs, err := r.fields(kv[1], "metadata."+kv[0].Value)
			if err != nil {
				return m, err
			}
			for _, p := range pairs {
				for _, k := range tenancy.GitOpsKeys {
					if p[0].Value == k {
						if m.GitOps == nil {
							m.GitOps = map[string]string{}
						}
						m.GitOps[k] = deref(p[1]).Value
					}
				}
			}
		}
	}
	return m, nil
}

func (r *docReader) nodePoolSpec(n *yaml.Node, s *tenancy.NodePoolSpec) error {
	if n == nil {
		return nil
	}
	kvs, err := r.fields(n, "spec")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		switch kv[0].Value {
		case "labelKey":
			s.LabelKey, err = r.str(kv[1], "spec.labelKey")
			r.pos("/spec/labelKey", kv[1])
		case "labelValue":
			s.LabelValue, err = r.str(kv[1], "spec.labelValue")
			r.pos("/spec/labelValue", kv[1])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// specQueues reads spec.queues, handing every other spec key to other
// (which reports whether it used the key).
func (r *docReader) specQueues(n, doc *yaml.Node, other func(string, *yaml.Node) (bool, error), out *[]tenancy.Queue) error {
	if n == nil {
		return r.errf(doc, "the document has no spec")
	}
	kvs, err := r.fields(n, "spec")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if kv[0].Value != "queues" {
			if _, err := other(kv[0].Value, kv[1]); err != nil {
				return err
			}
			continue
		}
		list := deref(kv[1])
		if list.Kind != yaml.SequenceNode {
			return r.errf(kv[1], "spec.queues must be a list")
		}
		for i, qn := range list.Content {
			q, err := r.queue(fmt.Sprintf("/spec/queues/%d", i), qn)
			if err != nil {
				return err
			}
			*out = append(*out, q)
		}
	}
	return nil
}

func (r *docReader) queue(path string, n *yaml.Node) (tenancy.Queue, error) {
	var q tenancy.Queue
	kvs, err := r.fields(n, "a queue")
	if err != nil {
		return q, err
	}
	for _, kv := range kvs {
		k, v := kv[0].Value, kv[1]
		switch k {
		case "name":
			q.Name, err = r.str(v, path+"/name")
			r.pos(path+"/name", v)
		case "nodepool":
			q.NodePool, err = r.str(v, path+"/nodepool")
			r.pos(path+"/nodepool", v)
		case "priority":
			d := deref(v)
			p, perr := strconv.ParseInt(d.Value, 10, 32)
			if d.Kind != yaml.ScalarNode || d.Tag != "!!int" || perr != nil {
				return q, r.errf(v, "%s/priority: %q is not a whole number (int32)", path, d.Value)
			}
			p32 := int32(p)
			q.Priority = &p32
			r.pos(path+"/priority", v)
		case "resources":
			err = r.resources(path+"/resources", v, &q.Resources)
		}
		if err != nil {
			return q, err
		}
	}
	if q.Name == "" {
		return q, r.errf(n, "%s: the queue has no name", path)
	}
	return q, nil
}

func (r *docReader) resources(path string, n *yaml.Node, rs *tenancy.Resources) error {
	kvs, err := r.fields(n, path)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		res := quota.Resource(kv[0].Value)
		if res != quota.GPU && res != quota.CPU && res != quota.Memory {
			continue
		}
		block := rs.Ensure(res)
		fields, err := r.fields(kv[1], path+"/"+string(res))
		if err != nil {
			return err
		}
		for _, f := range fields {
			slot := block.SlotNamed(f[0].Value)
			if slot == nil {
				continue
			}
			if *slot, err = r.number(path+"/"+string(res)+"/"+f[0].Value, f[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *docReader) managedNodes(n *yaml.Node, c *tenancy.ManagedNodesConfig) error {
	if n == nil {
		return nil
	}
	kvs, err := r.fields(n, "spec")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if kv[0].Value != "inclusion_criteria" {
			continue
		}
		crit, err := r.fields(kv[1], "spec.inclusion_criteria")
		if err != nil {
			return err
		}
		for _, ckv := range crit {
			if ckv[0].Value != "nodeSelectorTerms" {
				continue
			}
			if err := deref(ckv[1]).Decode(&c.Terms); err != nil {
				return r.errf(ckv[1], "spec.inclusion_criteria.nodeSelectorTerms: %v", err)
			}
		}
	}
	return nil
}
