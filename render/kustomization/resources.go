// Package kustomization edits the resources list of a kustomization
// file, bytes in, bytes out, in the list's own style: a new tenancy file
// joins the kustomization of its folder (kustomize, and Argo CD or Flux
// building the folder with it, reads only the resources a kustomization
// lists, so a new file that is not listed would be committed and never
// applied), a deleted one leaves every kustomization that lists it
// (kustomize refuses to build one that lists a missing file), and a
// renamed one is listed under its new name where the old one was.
package kustomization

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/render/yamlremove"
	"go.yaml.in/yaml/v3"
)

// Names are the names kustomize reads as a folder's kustomization, in
// the order it looks for them.
var Names = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Add is the insertions that add names to the resources
// list of the kustomization file (bytes src): in sorted place when the list
// is sorted, else at its end; a block list gets a line like its items
// (indentation, dash, quotes), a flow list an item after a comma; a file
// without resources gets a block list at its end. A name it lists already
// is skipped. The result is checked by parsing it. An error (a *yamledit.
// Error naming the file and line) says why the list cannot be edited: a
// file that does not parse, resources that is not a list of strings, an
// alias.
func Add(file string, src []byte, names []string) ([]yamledit.Edit, error) {
	f, root, err := root(file, src)
	if err != nil {
		return nil, err
	}
	ins := &listInsert{file: file, src: src, f: f, eol: eolOf(src)}
	key, list := resourcesEntry(root)
	if list == nil {
		edits := ins.newList(names)
		ins.have = names
		return edits, ins.check(edits)
	}
	if err := ins.read(key, list); err != nil {
		return nil, err
	}
	var edits []yamledit.Edit
	for _, n := range names {
		e, ok, err := ins.add(n)
		if err != nil {
			return nil, err
		}
		if ok {
			edits = append(edits, e)
		}
	}
	return edits, ins.check(edits)
}

// root parses the kustomization file (bytes src): one block
// mapping, its root.
func root(file string, src []byte) (*yamledit.File, *yaml.Node, error) {
	f, err := yamledit.Parse(file, src)
	if err != nil {
		return nil, nil, err
	}
	docs := f.Docs()
	if len(docs) != 1 || docs[0].Root.Kind != yaml.MappingNode || docs[0].Root.Style&yaml.FlowStyle != 0 {
		return nil, nil, &yamledit.Error{File: file, Msg: "not one block mapping, as a kustomization is"}
	}
	return f, docs[0].Root, nil
}

// Remove is the edits that take the files names (deleted
// by a splice) out of the resources list of the kustomization file (bytes
// src), the way Add adds them: each item that names one (as
// "x" or "./x") goes with its own comments (yamlremove.RemoveItems), the
// last leaving `resources: []`. A name it does not list is skipped; no
// edit when it lists none. The result is checked by parsing it. Errors are
// those of Add.
func Remove(file string, src []byte, names []string) ([]yamledit.Edit, error) {
	l, err := readList(file, src)
	if l == nil || err != nil {
		return nil, err
	}
	var idx []int
	var gone, kept []string
	for i, h := range l.have {
		if slices.Contains(names, path.Clean(h)) {
			idx, gone = append(idx, i), append(gone, h)
		} else {
			kept = append(kept, h)
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	edits, err := yamlremove.RemoveItems(l.f, l.root, "resources", idx, strings.Join(gone, ", "))
	if err != nil {
		return nil, err
	}
	return edits, checkResources(file, src, edits, kept)
}

// readList parses the kustomization file (bytes src) and reads its
// resources list for editing; nil without an error when it has none.
func readList(file string, src []byte) (*listInsert, error) {
	f, root, err := root(file, src)
	if err != nil {
		return nil, err
	}
	key, list := resourcesEntry(root)
	if list == nil {
		return nil, nil
	}
	l := &listInsert{file: file, src: src, f: f, root: root, eol: eolOf(src)}
	if err := l.read(key, list); err != nil {
		return nil, err
	}
	return l, nil
}

// resourcesEntry is the key and value of the root's resources entry.
func resourcesEntry(root *yaml.Node) (key, value *yaml.Node) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "resources" {
			return root.Content[i], root.Content[i+1]
		}
	}
	return nil, nil
}

// listInsert is the resources list of one kustomization being added to.
type listInsert struct {
	file  string
	src   []byte
	f     *yamledit.File
	root  *yaml.Node // the kustomization's mapping
	eol   string
	list  *yaml.Node
	items []*yaml.Node
	have  []string // the items' values, then the names added, in list order
	open  int      // a flow list: the offset just past its "["
}

// read takes the list's items; it refuses what it cannot edit safely.
func (l *listInsert) read(key, list *yaml.Node) error {
	refuse := func(msg string) error { return &yamledit.Error{File: l.file, Line: list.Line, Msg: msg} }
	if list.Kind == yaml.AliasNode || list.Anchor != "" {
		return refuse("resources is behind a YAML alias or anchor")
	}
	if list.Kind != yaml.SequenceNode {
		return refuse("resources is not a list")
	}
	l.list = list
	for _, it := range list.Content {
		if it.Kind != yaml.ScalarNode || it.Anchor != "" {
			return &yamledit.Error{File: l.file, Line: it.Line, Msg: "a resources entry that is not a plain string"}
		}
		l.items = append(l.items, it)
		l.have = append(l.have, it.Value)
	}
	if list.Style&yaml.FlowStyle != 0 {
		_, end, err := l.f.Token(key)
		if err != nil {
			return err
		}
		i := end
		for i < len(l.src) && (l.src[i] == ' ' || l.src[i] == ':' || l.src[i] == '\t') {
			i++
		}
		if i >= len(l.src) || l.src[i] != '[' {
			return refuse("cannot find the [ of resources")
		}
		l.open = i + 1
	} else if len(l.items) == 0 {
		return refuse("an empty block list")
	}
	return nil
}

// sorted reports whether the list's own items are sorted: new names then
// go in sorted place, else at the end.
func (l *listInsert) sorted() bool { return slices.IsSorted(l.have[:len(l.items)]) }

// add inserts name, unless the list has it (as "x" or "./x").
func (l *listInsert) add(name string) (yamledit.Edit, bool, error) {
	for _, h := range l.have {
		if path.Clean(h) == name {
			return yamledit.Edit{}, false, nil
		}
	}
	at := len(l.items) // insert before the item at this index
	if l.sorted() {
		at, _ = slices.BinarySearch(l.have[:len(l.items)], name)
	}
	var e yamledit.Edit
	var err error
	if l.list.Style&yaml.FlowStyle != 0 {
		e = l.flowItem(at, name)
	} else if e, err = l.blockItem(at, name); err != nil {
		return e, false, err
	}
	e.File, e.What = l.file, name
	l.have = append(l.have, name)
	return e, true, nil
}

// dashPrefix is what a block list's item line holds before the item.
var dashPrefix = regexp.MustCompile(`^ *- +$`)

// blockItem is a line like its neighbour's, after item at-1 (before the
// first item when at is 0).
func (l *listInsert) blockItem(at int, name string) (yamledit.Edit, error) {
	nb := l.items[max(at-1, 0)]
	start, end, err := l.f.Token(nb)
	if err != nil {
		return yamledit.Edit{}, err
	}
	ls := bytes.LastIndexByte(l.src[:start], '\n') + 1
	prefix := string(l.src[ls:start])
	if !dashPrefix.MatchString(prefix) {
		return yamledit.Edit{}, &yamledit.Error{File: l.file, Line: nb.Line, Msg: "a resources entry not on a line of its own"}
	}
	line := prefix + l.scalar(name, nb) + l.eol
	if at == 0 {
		return yamledit.Edit{Line: nb.Line, Start: ls, End: ls, New: line}, nil
	}
	next := bytes.IndexByte(l.src[end:], '\n')
	if next < 0 { // the last line, without an end of line
		return yamledit.Edit{Line: nb.Line, Start: len(l.src), End: len(l.src), New: l.eol + strings.TrimSuffix(line, l.eol)}, nil
	}
	off := end + next + 1
	return yamledit.Edit{Line: nb.Line + 1, Start: off, End: off, New: line}, nil
}

// flowItem is ", name" after item at-1, "name, " before the first, or the
// only item of an empty list. A list whose items stand on lines of their
// own gets the new item on a line of its own.
func (l *listInsert) flowItem(at int, name string) yamledit.Edit {
	if len(l.items) == 0 {
		return yamledit.Edit{Line: l.list.Line, Start: l.open, End: l.open, New: l.scalar(name, nil)}
	}
	nb := l.items[max(at-1, 0)]
	start, end, _ := l.f.Token(nb)
	sep := ", "
	if l.items[0].Line != l.items[len(l.items)-1].Line {
		sep = "," + l.eol + strings.Repeat(" ", nb.Column-1)
	}
	if at == 0 {
		return yamledit.Edit{Line: nb.Line, Start: start, End: start, New: l.scalar(name, nb) + sep}
	}
	return yamledit.Edit{Line: nb.Line, Start: end, End: end, New: sep + l.scalar(name, nb)}
}

// newList is a block list at the end of a kustomization without
// resources, as `kustomize edit add resource` writes one.
func (l *listInsert) newList(names []string) []yamledit.Edit {
	text := ""
	if len(l.src) > 0 && l.src[len(l.src)-1] != '\n' {
		text = l.eol
	}
	text += "resources:" + l.eol
	sorted := slices.Sorted(slices.Values(names))
	for _, n := range sorted {
		text += "- " + l.scalar(n, nil) + l.eol
	}
	return []yamledit.Edit{{File: l.file, Line: bytes.Count(l.src, []byte("\n")) + 1, Start: len(l.src), End: len(l.src), New: text, What: strings.Join(sorted, ", ")}}
}

// plainName is a file name that YAML reads as the same string without
// quotes, in every version (no indicator, no boolean or number spelling).
var plainName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]*\.(yaml|yml|json)$`)

// scalar is name as a YAML scalar in the quoting of the neighbour nb:
// single or double quotes as it has, else plain when that reads the same,
// else double quotes (a JSON string is a YAML double-quoted scalar).
func (l *listInsert) scalar(name string, nb *yaml.Node) string {
	switch {
	case nb != nil && nb.Style&yaml.SingleQuotedStyle != 0:
		return "'" + strings.ReplaceAll(name, "'", "''") + "'"
	case nb != nil && nb.Style&yaml.DoubleQuotedStyle != 0, !plainName.MatchString(name):
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(name) // a string always encodes
		return strings.TrimSuffix(b.String(), "\n")
	}
	return name
}

// check splices the edits and parses the result: its resources must be
// the list as it was with the names added, in place.
func (l *listInsert) check(edits []yamledit.Edit) error {
	want := slices.Clone(l.have)
	if l.sorted() {
		slices.Sort(want)
	}
	return checkResources(l.file, l.src, edits, want)
}

// checkResources splices the edits into the kustomization file (bytes
// src) and parses the result: its resources must be want.
func checkResources(file string, src []byte, edits []yamledit.Edit, want []string) error {
	out, err := yamledit.Splice(src, edits)
	if err != nil {
		return err
	}
	var got struct {
		Resources []string `yaml:"resources"`
	}
	if err := yaml.Unmarshal(out, &got); err != nil || !slices.Equal(got.Resources, want) {
		return &yamledit.Error{File: file, Msg: fmt.Sprintf("the edited resources would read %q, not %q", got.Resources, want)}
	}
	return nil
}

// eolOf is the end of line of src: "\r\n" when its first line ends so.
func eolOf(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// Rename is the edits that list the files renames names (old → new, each
// by its path from the kustomization's folder) under their new names in
// the resources list of the kustomization file (bytes src): each item that
// names an old one (as "x" or "./x") gets the new name in its place, with
// its "./", its quoting and its comments (Edit.What is "resources
// entry"). A name it does not list is skipped; no edit when it lists
// none. The result is checked by parsing it. Errors are those of Add.
func Rename(file string, src []byte, names map[string]string) ([]yamledit.Edit, error) {
	l, err := readList(file, src)
	if l == nil || err != nil {
		return nil, err
	}
	var edits []yamledit.Edit
	want := slices.Clone(l.have)
	for i, it := range l.items {
		to, ok := names[path.Clean(it.Value)]
		if !ok {
			continue
		}
		text := l.scalar(to, it)
		if strings.HasPrefix(it.Value, "./") {
			// "./" needs no quotes, nor escapes inside them.
			to = "./" + to
			if q := text[0]; q == '"' || q == '\'' {
				text = string(q) + "./" + text[1:]
			} else {
				text = "./" + text
			}
		}
		start, end, err := l.f.Token(it)
		if err != nil {
			return nil, err
		}
		want[i] = to
		edits = append(edits, yamledit.Edit{File: file, Line: it.Line, Start: start, End: end, Old: string(src[start:end]), New: text, What: "resources entry"})
	}
	if len(edits) == 0 {
		return nil, nil
	}
	return edits, checkResources(file, src, edits, want)
}
