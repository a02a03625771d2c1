package yamledit

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/yamlsrc"
	"go.yaml.in/yaml/v3"
)

// AliasRefusal refuses to change (verb) or add to what (a value) below the
// YAML alias node alias of file, naming its line and the anchor's.
func AliasRefusal(file string, alias *yaml.Node, what, verb string) error {
	anchor := ""
	if alias.Alias != nil {
		anchor = fmt.Sprintf(" (anchor &%s on line %d)", alias.Value, alias.Alias.Line)
	}
	return &Error{File: file, Line: alias.Line, Msg: fmt.Sprintf("%s is reached through the YAML alias *%s%s; splice does not %s a value shared through an anchor: edit it by hand, or render with --format patch", what, alias.Value, anchor, verb)}
}

// AnchorRefusal refuses to edit (verb) or add inside an anchored node that an
// alias shares: the aliases would change too.
func AnchorRefusal(file string, line int, anchor *yaml.Node, what, verb string) error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf("%s lies inside the YAML anchor &%s (line %d), which an alias shares: splice does not %s it, as every alias of it would change too; edit it by hand, or render with --format patch", what, anchor.Anchor, anchor.Line, verb)}
}

// insertion collects the changes that add one missing key to a mapping,
// or new items to a sequence.
type insertion struct {
	doc     *yamlDoc
	file    *File
	steps   []pathStep
	segs    []string // the pointer of the existing parent
	key     string   // the missing key ("" for items appended to a sequence)
	tree    *tnode   // the value of key, or a sequence whose new items to append
	what    string
	changes []Change
}

// Edits computes the byte edits, by file, that make the files hold every
// change: value edits in place, missing keys and new queues inserted in
// the style of their neighbours, new objects (changes without Origin; the
// changes of one object together) as new documents after the last object
// of their kind. Refusals are *Error naming the file and line: a number
// that no spelling gives to kubectl and YAML 1.2 alike, a fraction for a
// value written with the tag !!int, a value reached through a YAML alias or inside an anchor that an alias shares,
// an object not where the reader found it (the file changed since), a new
// object already in the files.
func (ts *Set) Edits(changes []Change) (map[string][]Edit, error) {
	r := &editRun{ts: ts, out: map[string][]Edit{}, byKey: map[string]*insertion{}, newChanges: map[ID][]Change{}}
	for _, c := range changes {
		if err := checkSpellings(c); err != nil {
			return nil, err
		}
	}
	// Values edited where the reader found them need no parse; the
	// documents of the other changes are parsed on every core at once.
	direct := make([]*Edit, len(changes))
	var parse []Change
	for i, c := range changes {
		if e, ok := ts.directEdit(c); ok {
			direct[i] = &e
		} else {
			parse = append(parse, c)
		}
	}
	ts.prefetch(parse)
	for i, c := range changes {
		var err error
		switch {
		case direct[i] != nil:
			r.out[c.Origin.File] = append(r.out[c.Origin.File], *direct[i])
		case c.Origin == nil:
			err = r.addNew(c)
		default:
			err = r.add(c)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, in := range r.inserts {
		e, err := ts.insert(in)
		if err != nil {
			return nil, err
		}
		r.out[in.file.path] = append(r.out[in.file.path], e...)
	}
	for _, k := range r.newObjects {
		file, e, err := ts.newDocument(k, r.newChanges[k])
		if err != nil {
			return nil, err
		}
		r.out[file] = append(r.out[file], e)
		ts.placed[file] = append(ts.placed[file], k)
	}
	return r.out, nil
}

// editRun collects the edits of Edits: value edits as the changes come,
// insertions into existing documents (one per missing key or sequence,
// in the order they are first needed), and new objects.
type editRun struct {
	ts         *Set
	out        map[string][]Edit
	inserts    []*insertion
	byKey      map[string]*insertion
	newObjects []ID
	newChanges map[ID][]Change
}

// addNew takes a change of a new object.
func (r *editRun) addNew(c Change) error {
	k := c.ID
	if _, exists := r.ts.byKey[k]; exists {
		return fmt.Errorf("%s %s is new in the plan but already in the tenancy files; take a new snapshot and plan again", c.Kind, c.Name)
	}
	if r.newChanges[k] == nil {
		r.newObjects = append(r.newObjects, k)
	}
	r.newChanges[k] = append(r.newChanges[k], c)
	return nil
}

// add takes a change of an existing object: a value edit when the
// document has the whole path, else a part of an insertion.
func (r *editRun) add(c Change) error {
	k, o := c.ID, c.Origin
	e, ok := r.ts.byKey[k]
	var file *File
	var doc *yamlDoc
	if ok && e.file == o.File {
		var err error
		if file, doc, err = r.ts.object(e); err != nil {
			return err
		}
	}
	if doc == nil {
		return &Error{File: o.File, Line: o.Line, Msg: fmt.Sprintf("%s %s is not in this file at the snapshot's commit any more: the file changed since the snapshot; take a new snapshot and plan again", c.Kind, c.Name)}
	}
	segs := SplitPointer(c.Pointer)
	steps, miss := walk(doc.root, segs)
	if miss == len(segs) {
		e, err := valueEdit(c, o, file, doc, steps[len(steps)-1])
		if err != nil {
			return err
		}
		r.out[o.File] = append(r.out[o.File], e)
		return nil
	}
	parent := deref(steps[miss].node)
	key := strings.Join(segs[:miss], "/")
	mkey := ""
	if parent.Kind != yaml.SequenceNode {
		mkey = segs[miss]
	}
	ik := k.Kind + "/" + k.Name + "|" + key + "|" + mkey
	in := r.byKey[ik]
	if in == nil {
		in = &insertion{doc: doc, file: file, steps: steps[:miss+1], segs: segs[:miss], key: mkey, what: insertWhat(c, segs, miss, parent)}
		if mkey == "" {
			in.tree = &tnode{kind: yaml.SequenceNode}
		} else {
			in.tree = newMap()
		}
		r.byKey[ik] = in
		r.inserts = append(r.inserts, in)
	}
	rel := segs[miss:]
	if mkey != "" {
		rel = rel[1:]
	}
	if err := in.tree.set(rel, c.Value); err != nil {
		return fmt.Errorf("%s: %w", c.What, err)
	}
	in.changes = append(in.changes, c)
	return nil
}

// insertWhat describes what an insertion adds, for messages.
func insertWhat(c Change, segs []string, miss int, parent *yaml.Node) string {
	obj := strings.ToLower(c.Kind) + " " + c.Name
	switch {
	case parent.Kind == yaml.SequenceNode && miss == 2 && segs[1] == "queues":
		return "queue " + c.Queue + " of " + obj
	case c.Queue != "":
		return segs[miss] + " of queue " + c.Queue
	}
	return segs[miss] + " of " + obj
}

// valueEdit replaces the value of an existing field: the bytes the snapshot
// recorded (checked again by Splice), or for a list its whole text.
func valueEdit(c Change, o *Origin, f *File, d *yamlDoc, last pathStep) (Edit, error) {
	what := c.What
	var pos Pos
	ok := c.Pos != nil
	if ok {
		pos = *c.Pos
	}
	if ok && pos.Anchor != "" && !pos.Alias {
		return Edit{}, &Error{File: o.File, Line: pos.Line, Msg: fmt.Sprintf("%s lies inside the YAML anchor &%s (line %d), which an alias shares: splice does not change it, as every alias of it would change too; edit it by hand, or render with --format patch", what, pos.Anchor, pos.AnchorLine)}
	}
	if a, shared := d.shared[deref(last.node)]; shared && last.alias == nil && !(ok && pos.Alias) {
		return Edit{}, AnchorRefusal(f.path, last.node.Line, a, what, "change")
	}
	if ok && pos.Alias {
		msg := fmt.Sprintf("%s is reached through the YAML alias %s", what, pos.Text)
		if pos.AnchorLine > 0 {
			msg += fmt.Sprintf(" (anchor &%s on line %d)", strings.TrimPrefix(pos.Text, "*"), pos.AnchorLine)
		}
		return Edit{}, &Error{File: o.File, Line: pos.Line, Msg: msg + "; splice does not change a value shared through an anchor: edit it by hand, or render with --format patch"}
	}
	if last.alias != nil {
		return Edit{}, AliasRefusal(f.path, last.alias, what, "change")
	}
	n := deref(last.node)
	switch {
	case n.Kind == yaml.ScalarNode:
		if !ok {
			start := f.Offset(n)
			end, err := f.TokenEnd(n)
			if err != nil || start < 0 {
				return Edit{}, &Error{File: f.path, Line: n.Line, Msg: fmt.Sprintf("%s: cannot find the value's text; edit it by hand", what)}
			}
			pos = Pos{Line: n.Line, Start: start, End: end, Text: string(f.src[start:end])}
		}
		if err := checkTag(c, o.File, pos.Line, n); err != nil {
			return Edit{}, err
		}
		t, err := fromJSON(c.Value)
		if err != nil {
			return Edit{}, err
		}
		return Edit{File: o.File, Line: pos.Line, Start: pos.Start, End: pos.End, Old: pos.Text, New: scalarText(t, like{f: f, n: n}), What: what}, nil
	case n.Kind == yaml.SequenceNode:
		t, err := fromJSON(c.Value)
		if err != nil {
			return Edit{}, err
		}
		start := f.Offset(n)
		if yamlsrc.IsFlow(n) {
			end, err := f.FlowEnd(n)
			if err != nil {
				return Edit{}, err
			}
			return Edit{File: o.File, Line: n.Line, Start: start, End: end, Old: string(f.src[start:end]), New: flowText(t, like{f: f, n: n}), What: what}, nil
		}
		if len(t.items) == 0 || len(n.Content) == 0 {
			return Edit{}, &Error{File: o.File, Line: n.Line, Msg: fmt.Sprintf("%s: splice does not empty a block list; edit it by hand", what)}
		}
		last, err := f.ItemLastLine(n, len(n.Content)-1)
		if err != nil {
			return Edit{}, err
		}
		start = f.LineStart(n.Line)
		end := f.LineNext(last)
		text := strings.Join(blockSeq(t, like{f: f, n: n}, f.Col(n)), f.eol)
		if end > 0 && f.src[end-1] == '\n' {
			text += f.eol
		}
		return Edit{File: o.File, Line: n.Line, Start: start, End: end, Old: string(f.src[start:end]), New: text, What: what}, nil
	}
	return Edit{}, &Error{File: o.File, Line: n.Line, Msg: fmt.Sprintf("%s is not a single value in the file; edit it by hand", what)}
}

// role names the kind of mapping or sequence a pointer leads to, so that a
// neighbour of the same role lends its style.
func role(segs []string) string {
	n := len(segs)
	switch {
	case n == 0:
		return "root"
	case n >= 1 && segs[n-1] == "resources":
		return "resources"
	case n >= 2 && segs[n-2] == "resources":
		return "resource"
	case n >= 2 && segs[n-2] == "queues":
		return "queue"
	case segs[n-1] == "queues":
		return "queues"
	}
	return strings.Join(segs, "/")
}

// roleNodes finds the nodes of role r in a document (aliases not followed:
// a neighbour's style is what is written there).
func roleNodes(root *yaml.Node, r string) []*yaml.Node {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	var out []*yaml.Node
	queues := func() []*yaml.Node {
		s := MapGet(root, "spec")
		if s == nil || s.Kind != yaml.MappingNode {
			return nil
		}
		q := MapGet(s, "queues")
		if q == nil || q.Kind != yaml.SequenceNode {
			return nil
		}
		return []*yaml.Node{q}
	}
	switch r {
	case "root":
		return []*yaml.Node{root}
	case "queues":
		return queues()
	case "queue", "resources", "resource":
		for _, q := range queues() {
			for _, it := range q.Content {
				if it.Kind != yaml.MappingNode {
					continue
				}
				if r == "queue" {
					out = append(out, it)
					continue
				}
				rs := MapGet(it, "resources")
				if rs == nil || rs.Kind != yaml.MappingNode {
					continue
				}
				if r == "resources" {
					out = append(out, rs)
					continue
				}
				for i := 1; i < len(rs.Content); i += 2 {
					if rs.Content[i].Kind == yaml.MappingNode {
						out = append(out, rs.Content[i])
					}
				}
			}
		}
		return out
	}
	n := root
	for _, s := range strings.Split(r, "/") {
		n = MapGet(n, s)
		if n == nil || n.Kind == yaml.AliasNode {
			return nil
		}
	}
	return []*yaml.Node{n}
}

// styleFor picks the mapping whose entries style a new key k of mapping m:
// m itself when it has k or an equivalent key, else the first neighbour of
// the same role that has one (in f first, in file order), else m.
func (ts *Set) styleFor(f *File, m *yaml.Node, segs []string, k string) (like, error) {
	own := like{f: f, n: m}
	if kn, _ := entryOf(own, k); kn != nil {
		return own, nil
	}
	l, err := ts.findNeighbour(role(segs), f, func(l like) bool {
		kn, _ := entryOf(l, k)
		return l.n != m && kn != nil
	})
	if err != nil || !l.ok() {
		return own, err
	}
	return l, nil
}

// insertAfterLine is an insertion of lines after line l of f (at the end
// of the file, the file's missing final newline stays missing).
func insertAfterLine(f *File, l int, lines []string, what string) Edit {
	at := f.LineNext(l)
	text := strings.Join(lines, f.eol) + f.eol
	if at == len(f.src) && len(f.src) > 0 && f.src[len(f.src)-1] != '\n' {
		text = f.eol + strings.Join(lines, f.eol)
	}
	return Edit{File: f.path, Line: l + 1, Start: at, End: at, New: text, What: what}
}

// insert writes one insertion: a missing key into its mapping, or new items
// at the end of a sequence.
func (ts *Set) insert(in *insertion) ([]Edit, error) {
	f := in.file
	parent := in.steps[len(in.steps)-1]
	if parent.alias != nil {
		return nil, AliasRefusal(f.path, parent.alias, "/"+strings.Join(in.segs, "/"), "add "+in.what+" to")
	}
	if a, shared := in.doc.shared[parent.node]; shared {
		return nil, AnchorRefusal(f.path, parent.node.Line, a, "/"+strings.Join(in.segs, "/"), "add "+in.what+" to")
	}
	n := parent.node
	switch n.Kind {
	case yaml.SequenceNode:
		return ts.appendItems(f, n, in)
	case yaml.MappingNode:
		return ts.insertKey(f, n, in)
	}
	return nil, &Error{File: f.path, Line: n.Line, Msg: fmt.Sprintf("cannot add %s: /%s is empty or not a mapping in the file; write it by hand, or render with --format patch", in.what, strings.Join(in.segs, "/"))}
}

// appendItems adds the new items of in.tree at the end of sequence s, in
// the sequence's own style.
func (ts *Set) appendItems(f *File, s *yaml.Node, in *insertion) ([]Edit, error) {
	items := &tnode{kind: yaml.SequenceNode}
	for i, it := range in.tree.items {
		if i >= len(s.Content) && it != nil {
			items.items = append(items.items, it)
		}
	}
	l := like{f: f, n: s}
	if len(s.Content) == 0 {
		nb, err := ts.findNeighbour(role(in.segs), f, func(l like) bool { return len(l.n.Content) > 0 })
		if err != nil {
			return nil, err
		}
		if nb.ok() {
			l = nb
		}
	}
	if yamlsrc.IsFlow(s) {
		fl := l
		if !yamlsrc.IsFlow(fl.n) {
			fl = like{f: f, n: s}
		}
		parts := make([]string, 0, len(items.items))
		for _, it := range items.items {
			parts = append(parts, flowText(it, itemLike(fl)))
		}
		if len(s.Content) == 0 {
			at := f.Offset(s) + 1
			return []Edit{{File: f.path, Line: s.Line, Start: at, End: at, New: strings.Join(parts, ", "), What: in.what}}, nil
		}
		last := s.Content[len(s.Content)-1]
		at, err := f.NodeEnd(last)
		if err != nil {
			return nil, err
		}
		end, err := f.FlowEnd(s)
		if err != nil {
			return nil, err
		}
		sep := ", "
		if f.LineOf(end-1) != f.LineOf(at) {
			sep = "," + f.eol + strings.Repeat(" ", f.Indent(f.LineOf(at)))
		}
		return []Edit{{File: f.path, Line: f.LineOf(at), Start: at, End: at, New: sep + strings.Join(parts, sep), What: in.what}}, nil
	}
	lastLine, err := f.ItemLastLine(s, len(s.Content)-1)
	if err != nil {
		return nil, err
	}
	lines := blockSeq(items, l, f.Col(s))
	return []Edit{insertAfterLine(f, lastLine, lines, in.what)}, nil
}

// insertKey adds key in.key with value in.tree to mapping m: after the
// last key that conventionally precedes it (name, nodepool, priority,
// resources; gpu, cpu, memory; deserved, limit, overQuotaWeight), in the
// mapping's own style.
func (ts *Set) insertKey(f *File, m *yaml.Node, in *insertion) ([]Edit, error) {
	k, v := in.key, in.tree
	keys, knodes, vnodes := mapKeys(m)
	pred := -1
	for i, x := range keys {
		if rank(x) < rank(k) && (pred < 0 || knodes[i].Line >= knodes[pred].Line) {
			pred = i
		}
	}
	style, err := ts.styleFor(f, m, in.segs, k)
	if err != nil {
		return nil, err
	}
	if yamlsrc.IsFlow(m) {
		fl := style
		if !yamlsrc.IsFlow(fl.n) {
			fl = like{f: f, n: m}
		}
		var val string
		if v.kind == yaml.ScalarNode {
			val = scalarText(v, childLike(fl, k))
		} else {
			val = flowText(v, childLike(fl, k))
		}
		entry := k + ": " + val
		switch {
		case len(keys) == 0:
			at := f.Offset(m) + 1
			return []Edit{{File: f.path, Line: m.Line, Start: at, End: at, New: entry, What: in.what}}, nil
		case pred >= 0:
			at, err := f.NodeEnd(vnodes[pred])
			if err != nil {
				return nil, err
			}
			return []Edit{{File: f.path, Line: f.LineOf(at), Start: at, End: at, New: ", " + entry, What: in.what}}, nil
		default:
			at := f.Offset(knodes[0])
			return []Edit{{File: f.path, Line: knodes[0].Line, Start: at, End: at, New: entry + ", ", What: in.what}}, nil
		}
	}
	if len(keys) == 0 {
		return nil, &Error{File: f.path, Line: m.Line, Msg: fmt.Sprintf("cannot add %s to an empty mapping; write it by hand", in.what)}
	}
	indent := f.Col(knodes[0])
	lines := entryLines(k, v, style, indent)
	first := knodes[0]
	lt := f.LineText(first.Line)
	onDash := strings.TrimSpace(lt[:min(max(f.Col(first), 0), len(lt))]) != ""
	if pred < 0 && onDash {
		pred = 0 // never in front of the key that shares the line with "- "
	}
	if pred >= 0 {
		l, err := f.EntryLastLine(deref(m), indexOfKey(deref(m), knodes[pred]))
		if err != nil {
			return nil, err
		}
		return []Edit{insertAfterLine(f, l, lines, in.what)}, nil
	}
	// In front of the first key that follows it, above that key's comments.
	succ := knodes[0]
	for i := range knodes {
		if rank(keys[i]) > rank(k) && knodes[i].Line < succ.Line {
			succ = knodes[i]
		}
	}
	l := succ.Line
	for l > 1 && strings.HasPrefix(strings.TrimLeft(f.LineText(l-1), " \t"), "#") && f.Indent(l-1) == indent {
		l--
	}
	at := f.LineStart(l)
	return []Edit{{File: f.path, Line: l, Start: at, End: at, New: strings.Join(lines, f.eol) + f.eol, What: in.what}}, nil
}

func indexOfKey(m *yaml.Node, k *yaml.Node) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i] == k {
			return i / 2
		}
	}
	return len(m.Content)/2 - 1
}

func strconvQuote(s string) string { return strconv.Quote(s) }

// fileFor chooses the file for a new object of kind: the placement file;
// else the file of the last object of the kind (for a
// project, the last one with the same parent department first); else, with
// a single tenancy file, that file; else the file holding the parent
// department. When every object of the kind has a file of its own named
// after it, the new object gets one too.
func (ts *Set) fileFor(kind, name, parent string) (string, error) {
	if pf := ts.placement[kind]; pf != "" {
		if ts.files[pf] == nil {
			ts.addCreated(pf)
		}
		return pf, nil
	}
	var holders []string
	perFile := true
	sibling := ""
	dir, ext := "", ""
	for _, p := range ts.order {
		n := 0
		for _, e := range ts.entriesOf(kind, p) {
			n++
			if ts.schema.Parent[kind] != "" && parent != "" && e.parent == parent {
				sibling = p
			}
			base := path.Base(p)
			x := path.Ext(base)
			if strings.TrimSuffix(base, x) != e.name || (dir != "" && (path.Dir(p) != dir || x != ext)) {
				perFile = false
			}
			dir, ext = path.Dir(p), x
		}
		if n > 0 {
			holders = append(holders, p)
		}
		if n > 1 {
			perFile = false
		} else if n == 1 && perFile {
			// A file of its own holds no other document.
			docs, err := ts.files[p].allDocs()
			if err != nil {
				return "", err
			}
			perFile = len(docs) == 1
		}
	}
	switch {
	case len(holders) >= 2 && perFile:
		p := path.Join(dir, name+ext)
		if ts.files[p] == nil {
			ts.addCreated(p)
		}
		return p, nil
	case sibling != "":
		return sibling, nil
	case len(holders) > 0:
		return holders[len(holders)-1], nil
	case len(ts.order) == 1:
		return ts.order[0], nil
	}
	if pk := ts.schema.Parent[kind]; pk != "" && parent != "" {
		if e, ok := ts.byKey[ID{pk, parent}]; ok {
			return e.file, nil
		}
	}
	return "", &NoFileError{ID: ID{kind, name}, Files: len(ts.order)}
}

// addCreated registers a file that the splice creates, with the line
// endings of the other tenancy files.
func (ts *Set) addCreated(p string) {
	eol := "\n"
	if len(ts.order) > 0 {
		eol = ts.files[ts.order[0]].eol
	}
	ts.files[p] = &File{path: p, Text: yamlsrc.NewText(p, nil), eol: eol, chunks: []chunk{{line: 1, parsed: true}}}
	ts.created[p] = true
	ts.order = append(ts.order, p)
	sort.Strings(ts.order)
}
