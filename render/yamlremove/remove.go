// Package yamlremove takes objects and queue entries out of tenancy YAML
// files, bytes in, bytes out: a document or an entry of spec.queues goes
// with the comments that are its own, and every other byte stays. It
// works on the files of a yamledit.Set, as read at the snapshot's commit,
// and answers with yamledit Edits, which splice together with the Set's
// value edits and insertions.
package yamlremove

import (
	"fmt"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/render/yamledit"
	"go.yaml.in/yaml/v3"
)

// NoQueue is Removal.Queue for the removal of a whole document.
const NoQueue = -1

// Removal takes an object out of the tenancy files: its whole document
// (Queue is NoQueue), or the entry of its spec.queues at index Queue.
type Removal struct {
	yamledit.ID
	// Origin is where the reader found the object: its file and the line
	// of its document's first key (tenancy.Origin).
	Origin yamledit.Origin
	// Queue is the index of the entry in spec.queues as the file has it
	// (the snapshot's index, before any removal: tenancy.QueueAddr.Index),
	// or NoQueue.
	Queue int
	// QueueName is the entry's name as read: the entry at Queue must
	// still have it.
	QueueName string
}

// What names the removal in messages: "project legacy", "queue h100 of
// department x".
func (r Removal) What() string {
	obj := strings.ToLower(r.Kind) + " " + r.Name
	if r.Queue == NoQueue {
		return obj
	}
	if r.QueueName == "" {
		return fmt.Sprintf("queue entry %d (no name) of %s", r.Queue, obj)
	}
	return "queue " + r.QueueName + " of " + obj
}

// Removed is what Removals does to the tenancy files: byte edits by file
// (to splice with Splice, together with the Edits of the same Set), and
// the files left without any document, which the splice deletes.
type Removed struct {
	Edits   map[string][]yamledit.Edit
	Deleted []string // sorted
}

// Removals computes the byte edits that take the removals out of the files
// of ts as read. A document goes with its own lines: its "---" marker, the
// comment lines directly above it (above its marker; for a document without
// one, above its first key — except a file's head above its first marker,
// which stays), and the comment lines that follow it up to a blank line
// (not those directly above the next marker, which are the next
// document's). A queue entry goes with the comment lines directly above its
// "- " (at most as indented as the dash), its own lines with their
// same-line comments, and the comment lines indented under it that follow.
// The blank lines that separated the removed from its next sibling go too
// (from its previous one, for the last), so none pile up; a file that
// started with a document keeps starting with one (the next document's bare
// "---" goes). The last entry of a list leaves `queues: []` behind: KRM's
// Project and Department CRDs require spec.queues, so a missing key is
// rejected by the API server where an empty list is stored as one. The last
// document of a file deletes the file (Deleted). A queue removal of an
// object removed whole is part of that removal.
//
// Indices and origins are those of the files as read: removals and the
// Edits of one Set splice together (Set.Remove records the removals, for
// Set.Touched). Refusals are *yamledit.Error naming the file and
// line: an object not where the reader found it or an entry not named as
// read (the file changed since the snapshot), spec.queues reached through a
// YAML alias or inside a shared anchor, an entry that holds or lies in an
// anchor an alias shares, a file with a directive (%YAML), a layout the
// splice cannot cut cleanly.
func Removals(ts *yamledit.Set, rs []Removal) (*Removed, error) {
	out := &Removed{Edits: map[string][]yamledit.Edit{}}
	whole := map[yamledit.ID]bool{}
	for _, r := range rs {
		if r.Queue == NoQueue {
			whole[r.ID] = true
		}
	}
	files := map[string]text{}
	docs := map[string][]*yaml.Node{} // the roots of the documents that go, by file
	queues := map[*yaml.Node][]Removal{}
	var queued []*yamledit.Doc
	for _, r := range rs {
		if r.Queue != NoQueue && whole[r.ID] {
			continue
		}
		f, d, err := removedDoc(ts, r)
		if err != nil {
			return nil, err
		}
		files[f.Path()] = f
		switch {
		case r.Queue == NoQueue:
			docs[f.Path()] = append(docs[f.Path()], d.Root)
		case queues[d.Root] == nil:
			queued = append(queued, d)
			fallthrough
		default:
			queues[d.Root] = append(queues[d.Root], r)
		}
	}
	for _, d := range queued {
		f := files[queues[d.Root][0].Origin.File]
		es, err := f.removeQueues(d, queues[d.Root])
		if err != nil {
			return nil, err
		}
		out.Edits[f.Path()] = append(out.Edits[f.Path()], es...)
	}
	paths := make([]string, 0, len(docs))
	for p := range docs {
		paths = append(paths, p)
	}
	sort.Strings(paths) // the first refusal in file order
	for _, p := range paths {
		es, deleted, err := files[p].removeDocs(docs[p])
		if err != nil {
			return nil, err
		}
		if deleted {
			out.Deleted = append(out.Deleted, p)
			delete(out.Edits, p)
			continue
		}
		out.Edits[p] = append(out.Edits[p], es...)
	}
	for p, es := range out.Edits {
		out.Edits[p] = files[p].finishCuts(es)
	}
	ids := make([]yamledit.ID, 0, len(whole))
	for id := range whole {
		ids = append(ids, id)
	}
	sort.Strings(out.Deleted)
	ts.Remove(ids, out.Deleted)
	return out, nil
}

// text is a file of the Set, for the line arithmetic of removals.
type text struct{ *yamledit.File }

// removedDoc is the document of the object a removal names, checked to be
// where the reader found it.
func removedDoc(ts *yamledit.Set, r Removal) (text, *yamledit.Doc, error) {
	f, d, err := ts.Locate(r.ID, r.Origin)
	if err != nil {
		return text{}, nil, err
	}
	if d == nil {
		return text{}, nil, &yamledit.Error{File: r.Origin.File, Line: r.Origin.Line, Msg: fmt.Sprintf("%s %s is not in this file at the snapshot's commit any more: the file changed since the snapshot; take a new snapshot and plan again", r.Kind, r.Name)}
	}
	if yamledit.HasDirective(f.Src()) {
		return text{}, nil, &yamledit.Error{File: f.Path(), Msg: fmt.Sprintf("cannot remove %s: the file has a YAML directive (%%YAML, %%TAG); remove it by hand, or render with --format patch", r.What())}
	}
	return text{f}, d, nil
}

// lineSpan is a run of whole lines, first through last (1-based).
type lineSpan struct{ first, last int }

// cut is the edit that removes lines s of f (see finishCuts).
func (f text) cut(s lineSpan, what string) yamledit.Edit {
	start, end := f.LineStart(s.first), f.LineNext(s.last)
	return yamledit.Edit{File: f.Path(), Line: s.first, Start: start, End: end, Old: string(f.Src()[start:end]), What: what, Cut: true}
}

// finishCuts orders the edits of one file by offset and joins removals
// that touch. When the last removal runs to the end of a file without a
// final newline, it takes the end of line before it instead, so that the
// file still ends without one.
func (f text) finishCuts(edits []yamledit.Edit) []yamledit.Edit {
	pure := func(e yamledit.Edit) bool { return e.Cut && e.New == "" }
	var out []yamledit.Edit
	for _, e := range yamledit.SortEdits(edits) {
		if n := len(out); n > 0 && pure(out[n-1]) && pure(e) && out[n-1].End >= e.Start {
			p := &out[n-1]
			p.End = max(p.End, e.End)
			p.Old = string(f.Src()[p.Start:p.End])
			if !strings.Contains(p.What, e.What) {
				p.What += ", " + e.What
			}
			continue
		}
		out = append(out, e)
	}
	n := len(out)
	if n == 0 || len(f.Src()) == 0 || f.Src()[len(f.Src())-1] == '\n' {
		return out
	}
	last := &out[n-1]
	if !pure(*last) || last.End != len(f.Src()) || last.Start == 0 || f.Src()[last.Start-1] != '\n' {
		return out
	}
	l := f.LineOf(last.Start)
	start := f.LineStart(l-1) + len(f.LineText(l-1))
	if n > 1 && out[n-2].End > start {
		return out
	}
	last.Start, last.Line, last.Old = start, l-1, string(f.Src()[start:last.End])
	return out
}

// runs groups the marked siblings into runs of neighbours: [i, j] pairs.
func runs(gone []bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(gone); i++ {
		if !gone[i] {
			continue
		}
		j := i
		for j+1 < len(gone) && gone[j+1] {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// runCut is the lines that remove siblings i..j of own (the lines each
// owns; not all of them): with the blank lines after them when a sibling
// follows, else with the blank lines before them.
func (f text) runCut(own []lineSpan, i, j int) lineSpan {
	s := lineSpan{own[i].first, own[j].last}
	if j+1 < len(own) {
		for s.last+1 < own[j+1].first && f.isBlank(s.last+1) {
			s.last++
		}
		return s
	}
	for s.first-1 > own[i-1].last && f.isBlank(s.first-1) {
		s.first--
	}
	return s
}

func (f text) isBlank(l int) bool { return strings.TrimLeft(f.LineText(l), " \t") == "" }

func (f text) isComment(l int) bool {
	return strings.HasPrefix(strings.TrimLeft(f.LineText(l), " \t"), "#")
}

// isStart reports a "---" line (a document's start, perhaps with content
// after it); isBareStart one that holds nothing else.
func (f text) isStart(l int) bool { return f.IsMarker(l) && strings.HasPrefix(f.LineText(l), "---") }

func (f text) isBareStart(l int) bool {
	return strings.TrimRight(f.LineText(l), " \t") == "---"
}

func (f text) isEnd(l int) bool { return f.IsMarker(l) && strings.HasPrefix(f.LineText(l), "...") }

// removeDocs removes the documents of f whose roots are gone. deleted is
// true when no document is left.
func (f text) removeDocs(gone []*yaml.Node) (edits []yamledit.Edit, deleted bool, err error) {
	docs, err := f.AllDocs()
	if err != nil {
		return nil, false, err
	}
	mark := make([]bool, len(docs))
	left := len(docs)
	for _, g := range gone {
		for k, d := range docs {
			if d.Root == g && !mark[k] {
				mark[k] = true
				left--
			}
		}
	}
	if left == 0 {
		return nil, true, nil
	}
	own, marker := f.docsOwn(docs)
	for _, r := range runs(mark) {
		i, j := r[0], r[1]
		s := f.runCut(own, i, j)
		// A file that began with a document (no "---") keeps doing so.
		if i == 0 && !marker[0] && j+1 < len(docs) && s.last+1 == own[j+1].first && f.isBareStart(s.last+1) {
			s.last++
			for s.last+1 < docs[j+1].FirstLine && f.isBlank(s.last+1) {
				s.last++
			}
		}
		edits = append(edits, f.cut(s, docWhat(docs[i:j+1])))
	}
	return edits, false, nil
}

// docWhat names removed documents in messages: "project a, project b".
func docWhat(docs []yamledit.Doc) string {
	var names []string
	for _, d := range docs {
		names = append(names, strings.ToLower(d.Kind)+" "+d.Name)
	}
	return strings.Join(names, ", ")
}

// docsOwn is the lines each document of f owns (see Removals), and whether
// it has a "---" marker of its own.
func (f text) docsOwn(docs []yamledit.Doc) ([]lineSpan, []bool) {
	own := make([]lineSpan, len(docs))
	marker := make([]bool, len(docs))
	for k, d := range docs {
		lo := 1
		if k > 0 {
			lo = docs[k-1].LastLine + 1
		}
		first := d.FirstLine
		for l := d.FirstLine; l >= lo; l-- {
			if f.isStart(l) {
				first, marker[k] = l, true
				break
			}
		}
		// The column-0 comments directly above (a file's head above its
		// first marker stays the file's).
		if k > 0 || !marker[k] {
			for first-1 >= lo && strings.HasPrefix(f.LineText(first-1), "#") {
				first--
			}
		}
		own[k].first = first
	}
	for k, d := range docs {
		limit := f.Lines()
		if k+1 < len(docs) {
			limit = own[k+1].first - 1
		}
		last := d.LastLine
		for last+1 <= limit && (f.isComment(last+1) || f.isEnd(last+1)) {
			last++
		}
		own[k].last = last
	}
	return own, marker
}

// removeQueues removes entries of spec.queues of document d.
func (f text) removeQueues(d *yamledit.Doc, rs []Removal) ([]yamledit.Edit, error) {
	r0 := rs[0]
	what := "spec.queues of " + strings.ToLower(r0.Kind) + " " + r0.Name
	spec, via := valueOf(d.Root, "spec")
	var seq *yaml.Node
	if spec != nil && via == nil {
		seq, via = valueOf(spec, "queues")
	}
	switch {
	case via != nil && via.Kind == yaml.AliasNode:
		return nil, yamledit.AliasRefusal(f.Path(), via, what, "remove an entry from")
	case via != nil:
		return nil, &yamledit.Error{File: f.Path(), Line: via.Line, Msg: fmt.Sprintf("cannot remove %s: %s comes from a merge key (<<); remove it by hand, or render with --format patch", r0.What(), what)}
	case seq == nil:
		return nil, &yamledit.Error{File: f.Path(), Line: d.FirstLine, Msg: fmt.Sprintf("cannot remove %s: %s %s has no spec.queues in the file: the file changed since the snapshot; take a new snapshot and plan again", r0.What(), r0.Kind, r0.Name)}
	case seq.Kind != yaml.SequenceNode:
		return nil, &yamledit.Error{File: f.Path(), Line: seq.Line, Msg: fmt.Sprintf("cannot remove %s: spec.queues is not a list", r0.What())}
	}
	if a, shared := d.Shared[seq]; shared {
		return nil, yamledit.AnchorRefusal(f.Path(), seq.Line, a, what, "remove an entry from")
	}
	var idx []int
	var names []string
	for _, r := range rs {
		if err := f.checkEntry(d, seq, r); err != nil {
			return nil, err
		}
		idx = append(idx, r.Queue)
		names = append(names, r.What())
	}
	return f.removeItems(spec, "queues", idx, strings.Join(names, ", "))
}

// checkEntry checks that entry r.Queue of seq is there, named as read, and
// shares nothing through an anchor.
func (f text) checkEntry(d *yamledit.Doc, seq *yaml.Node, r Removal) error {
	if r.Queue < 0 || r.Queue >= len(seq.Content) {
		return &yamledit.Error{File: f.Path(), Line: seq.Line, Msg: fmt.Sprintf("cannot remove %s: spec.queues has %d entries in the file, not an entry %d: the file changed since the snapshot; take a new snapshot and plan again", r.What(), len(seq.Content), r.Queue)}
	}
	it := seq.Content[r.Queue]
	if got := nameOf(it); got != r.QueueName {
		return &yamledit.Error{File: f.Path(), Line: it.Line, Msg: fmt.Sprintf("cannot remove %s: entry %d of spec.queues is named %q in the file: the file changed since the snapshot; take a new snapshot and plan again", r.What(), r.Queue, got)}
	}
	if n, a := sharedIn(d.Shared, it, 0); n != nil {
		return yamledit.AnchorRefusal(f.Path(), n.Line, a, r.What(), "remove")
	}
	return nil
}

// sharedIn finds a node below n (n too) that lies in an anchor an alias
// shares, and that anchor.
func sharedIn(shared map[*yaml.Node]*yaml.Node, n *yaml.Node, depth int) (*yaml.Node, *yaml.Node) {
	if n == nil || depth > 512 {
		return nil, nil
	}
	if a, ok := shared[n]; ok {
		return n, a
	}
	for _, c := range n.Content {
		if m, a := sharedIn(shared, c, depth+1); m != nil {
			return m, a
		}
	}
	return nil, nil
}

// valueOf is the value of key k of mapping m as written, and what it is
// reached through when that is shared text: the value itself when it is an
// alias, or the merge key's value (<<: *x) that m takes k from.
func valueOf(m *yaml.Node, k string) (v, via *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag != "!!merge" && m.Content[i].Value == k {
			if v = m.Content[i+1]; v.Kind == yaml.AliasNode {
				return v, v
			}
			return v, nil
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag != "!!merge" {
			continue
		}
		srcs := []*yaml.Node{m.Content[i+1]}
		if srcs[0].Kind == yaml.SequenceNode {
			srcs = srcs[0].Content
		}
		for _, s := range srcs {
			if v := yamledit.MapGet(s, k); v != nil {
				return v, s
			}
		}
	}
	return nil, nil
}

// nameOf is the name of queue entry it, "" when it has none.
func nameOf(it *yaml.Node) string {
	n := yamledit.MapGet(it, "name")
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}
