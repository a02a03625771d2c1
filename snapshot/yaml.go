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

	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/internal/kubeyaml"
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
	// singletons are the declarations of ManagedNodes and KRMConfig, for
	// Duplicates.
	singletons []singletonDecl
}

// ParseError is a problem in a tenancy file, at a line. Msg starts with
// the object and queue it is about ("Department eng, queue eng-h100: …")
// when there is one; Object ("Kind/name") and Queue name them apart.
type ParseError struct {
	File   string
	Line   int // 1-based; 0 when the whole file is concerned
	Msg    string
	Object tenancy.ObjectAddr
	Queue  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ParseTenancy reads every document of one tenancy file (name is the
// repository-relative path used in positions and errors) into t, as
// kubectl reads the file: NodePool, Department, Project, ManagedNodesConfig
// and KRMConfig documents of kai.resources/v1alpha1 are read (only the
// ManagedNodesConfig named kai-managed-nodes-config and the KRMConfig named
// krm-config count; another is kept in t.Other, which KRM ignores); other
// kinds go to t.Other. Errors are *ParseError: a YAML syntax error; a
// spelling that kubectl (sigs.k8s.io/yaml, YAML 1.1) and YAML 1.2 tools
// read differently; a value kubectl sends that KRM's schema refuses (a
// quoted "4" is a string, which KRM rejects); an unknown field or a key
// set twice in a KRM object; a document kubectl reads otherwise than
// yaml.v3 (an alias of an earlier document's anchor, a second document
// after "..." without "---"); aliases and merge keys that expand beyond
// kubectl's bound; a file over MaxTenancyFileSize.
func (t *Parsed) ParseTenancy(name string, src []byte) error {
	if len(src) > MaxTenancyFileSize {
		return &ParseError{File: name, Msg: strings.TrimPrefix(inputfile.Tenancy.TooLarge(name, int64(len(src))).Error(), name+": ")}
	}
	lines := yamlsrc.NewLineIndex(src)
	separators, err := streamCheck(name, lines)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	lastChunk := -1
	check := &docCheck{file: name, lines: lines, bangs: bytes.IndexByte(src, '!') >= 0, values: map[string]int{}}
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return checkTabs(name, src, separators)
		}
		if err != nil {
			return firstOf(syntaxError(name, lines, err), checkTabs(name, src, separators))
		}
		if len(doc.Content) == 0 || (emptyDocument(doc.Content[0]) && !check.tagged(doc.Content[0])) {
			continue // a document with nothing in it: "---" alone, or comments only
		}
		root := doc.Content[0]
		// kubectl cuts the file at its "---" lines and reads the first
		// document of each piece.
		chunk, _ := slices.BinarySearch(separators, root.Line)
		if chunk == lastChunk {
			return &ParseError{File: name, Line: root.Line, Msg: "this document follows the end marker ... of the one before without a --- line: kubectl reads only the first document between two --- lines and drops this one; put --- before it"}
		}
		lastChunk = chunk
		r := &docReader{file: name, lines: lines, check: check}
		if err := r.read(t, root); err != nil {
			return err
		}
	}
}

// streamCheck refuses what kubectl's document splitter
// (k8s.io/apimachinery's YAMLReader) reads otherwise than a YAML parser: a
// line that starts with "---" and has more than a comment after it (kubectl
// stops: invalid Yaml document separator), a directive (%YAML, %TAG),
// which the splitter cuts from its document, and a carriage return alone
// or one of Unicode's line breaks (U+0085, U+2028, U+2029), which YAML
// reads as a line break and the splitter, reading lines to "\n", does not. It returns the lines of the
// separators, in order.
func streamCheck(name string, lines *yamlsrc.LineIndex) ([]int, error) {
	src := lines.Src()
	if bytes.HasPrefix(src, []byte("\xfe\xff")) || bytes.HasPrefix(src, []byte("\xff\xfe")) {
		return nil, &ParseError{File: name, Line: 1, Msg: "the file is UTF-16 (it starts with a UTF-16 byte order mark); kubectl's document splitter cuts it at bytes that are not its line breaks: save it as UTF-8"}
	}
	for _, lb := range []struct{ bytes, name string }{{"\u0085", "U+0085 (next line)"}, {"\u2028", "U+2028 (line separator)"}, {"\u2029", "U+2029 (paragraph separator)"}} {
		if i := bytes.Index(src, []byte(lb.bytes)); i >= 0 {
			return nil, &ParseError{File: name, Line: lines.LineOf(i), Msg: "the character " + lb.name + " is a line break to YAML, not to kubectl's document splitter nor to krmplan's positions; remove it or write it escaped in a double-quoted string"}
		}
	}
	for i := 0; i < len(src); i++ {
		j := bytes.IndexByte(src[i:], '\r')
		if j < 0 {
			break
		}
		if i += j; i+1 == len(src) || src[i+1] != '\n' {
			return nil, &ParseError{File: name, Line: lines.LineOf(i), Msg: "a carriage return without a line feed after it: YAML reads it as a line break, kubectl's document splitter does not; end lines with \\n or \\r\\n"}
		}
	}
	var seps []int
	for l := range lines.Starts() {
		start := lines.StartOf(l + 1)
		if start >= len(src) || (src[start] != '-' && src[start] != '%') {
			continue
		}
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src) - start
		}
		line := src[start : start+end]
		switch {
		case bytes.HasPrefix(line, []byte("---")):
			rest := bytes.TrimSpace(line[3:])
			if len(rest) > 0 && rest[0] != '#' {
				return nil, &ParseError{File: name, Line: l + 1, Msg: fmt.Sprintf("kubectl reads a line that starts with --- as a document separator and refuses text after it (%q): put the text on the next line", clip(string(rest), 40))}
			}
			seps = append(seps, l+1)
		case bytes.HasPrefix(line, []byte("%YAML ")) || bytes.HasPrefix(line, []byte("%TAG ")):
			return nil, &ParseError{File: name, Line: l + 1, Msg: "kubectl does not read YAML directives (%YAML, %TAG): its document splitter cuts them from their document; remove the line"}
		}
	}
	return seps, nil
}

// clip shortens s to n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
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
	// obj is the KRM object being read, queueName the queue, for
	// messages.
	obj       objRef
	queueName string
	// check is the file's docCheck, reused from document to document.
	check *docCheck
}

// errf is a ParseError at n's line that names the object and queue.
func (r *docReader) errf(n *yaml.Node, format string, args ...any) error {
	return parseError(r.file, n.Line, r.obj, r.queueName, fmt.Sprintf(format, args...))
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
	if n.Kind != yaml.AliasNode && !slices.ContainsFunc(m.Content, func(k *yaml.Node) bool { return k.Tag == "!!merge" }) {
		return r.check.pairsOf(m), nil // nearly every mapping: its own keys, nothing merged
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

// pairsOf is the keys and values of mapping m, in order, cut from a slab
// the file's documents share: a mapping's pairs cost no allocation of
// their own. A full slab is left to the pairs cut from it.
func (c *docCheck) pairsOf(m *yaml.Node) [][2]*yaml.Node {
	k := len(m.Content) / 2
	if cap(c.slab)-len(c.slab) < k {
		c.slab = make([][2]*yaml.Node, 0, max(128, k))
	}
	start := len(c.slab)
	for i := 0; i+1 < len(m.Content); i += 2 {
		c.slab = append(c.slab, [2]*yaml.Node{m.Content[i], m.Content[i+1]})
	}
	return c.slab[start:len(c.slab):len(c.slab)]
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

// number reads a quota value as kubectl sends it. docCheck has refused
// what is not a number to kubectl or is another one to YAML 1.2 (a string,
// even "4", as KRM does); what is left is the range of quota.Parse.
func (r *docReader) number(path string, n *yaml.Node) (*quota.Value, error) {
	v := deref(n)
	if v.Kind == yaml.ScalarNode && v.Style == 0 && kubeyaml.PlainDecimal(v.Value) {
		q, err := quota.Parse(v.Value) // the spelling of nearly every value: kubectl sends it as written
		if err != nil {
			return nil, r.errf(n, "%s: %v", path, err)
		}
		r.pos(path, n)
		return &q, nil
	}
	k := kubeyaml.Kubectl(kubeyaml.ScalarOf(v, r.lines.Src(), r.check.start(v)))
	if v.Kind != yaml.ScalarNode || (k.Kind != kubeyaml.Int && k.Kind != kubeyaml.Float) {
		if k.Kind == kubeyaml.Null && v.Kind == yaml.ScalarNode {
			return nil, r.errf(n, "%s is empty (null): the API server drops it and KRM reads 0; write 0, or remove the key", path)
		}
		return nil, r.errf(n, "%s must be a number", path)
	}
	q, err := quota.Parse(k.Text)
	if err != nil {
		var re *quota.RangeError
		if errors.As(err, &re) {
			re.Text = v.Value
		}
		return nil, r.errf(n, "%s: %v", path, err)
	}
	r.pos(path, n)
	return &q, nil
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

// nameOf is the name key of a mapping (the metadata of a document
// krmplan does not read, a queue entry), or "" when it has none (a
// kustomization.yaml has no metadata).
func nameOf(meta *yaml.Node) string {
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
	if v := deref(n); v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") { // absent, or metadata: with nothing under it
		return m, r.errf(doc, "the document has no metadata; kubectl refuses an object without metadata.name")
	}
	kvs, err := r.fields(n, "/metadata")
	if err != nil {
		return m, err
	}
	for _, kv := range kvs {
		switch kv[0].Value {
		case "name":
			if m.Name, err = r.str(kv[1], "/metadata/name"); err != nil {
				return m, err
			}
		case "uid":
			m.UID, _ = r.str(kv[1], "/metadata/uid")
		case "annotations", "labels":
			pairs, err := r.fields(kv[1], "/metadata/"+kv[0].Value)
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
	kvs, err := r.fields(n, "/spec")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		switch kv[0].Value {
		case "labelKey":
			s.LabelKey, err = r.str(kv[1], "/spec/labelKey")
			r.pos("/spec/labelKey", kv[1])
		case "labelValue":
			s.LabelValue, err = r.str(kv[1], "/spec/labelValue")
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
	kvs, err := r.fields(n, "/spec")
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
			return r.errf(kv[1], "/spec/queues must be a list")
		}
		*out = slices.Grow(*out, len(list.Content))
		for i, qn := range list.Content {
			q, err := r.queue("/spec/queues/"+strconv.Itoa(i), qn)
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
	r.queueName = ""
	kvs, err := r.fields(n, "a queue")
	if err != nil {
		return q, err
	}
	named, pool := false, ""
	for _, kv := range kvs {
		v := deref(kv[1])
		switch {
		case kv[0].Value == "name" && v.Kind == yaml.ScalarNode:
			r.queueName, named = v.Value, true
		case kv[0].Value == "nodepool" && v.Kind == yaml.ScalarNode:
			pool = v.Value
		}
	}
	if r.queueName == "" && named {
		// name: "" is valid: KRM names the Queue after the owner.
		r.queueName = tenancy.QueueName(r.obj.name, "", pool)
	}
	defer func() { r.queueName = "" }()
	for _, kv := range kvs {
		k, v := kv[0].Value, kv[1]
		switch k {
		case "name", "nodepool":
			at := path + "/" + k
			if k == "name" {
				q.Name, err = r.str(v, at)
			} else {
				q.NodePool, err = r.str(v, at)
			}
			r.pos(at, v)
		case "priority":
			d := deref(v)
			k := kubeyaml.Kubectl(kubeyaml.ScalarOf(d, r.lines.Src(), r.check.start(d)))
			p, perr := strconv.ParseInt(k.Text, 10, 32)
			if d.Kind != yaml.ScalarNode || k.Kind != kubeyaml.Int || perr != nil {
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
	if !named {
		return q, r.errf(n, `%s: the queue has no name key, which KRM's CRD requires: write name: "" to have KRM name its Queue %s, or give it a name`,
			path, tenancy.QueueName(r.obj.name, "", q.NodePool))
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
	kvs, err := r.fields(n, "/spec")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if kv[0].Value != "inclusion_criteria" {
			continue
		}
		crit, err := r.fields(kv[1], "/spec/inclusion_criteria")
		if err != nil {
			return err
		}
		for _, ckv := range crit {
			if ckv[0].Value != "nodeSelectorTerms" {
				continue
			}
			if err := deref(ckv[1]).Decode(&c.Terms); err != nil {
				return r.errf(ckv[1], "/spec/inclusion_criteria/nodeSelectorTerms: %v", err)
			}
		}
	}
	return nil
}
