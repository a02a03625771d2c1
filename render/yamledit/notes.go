package yamledit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/yamlsrc"
)

// CommentNotes finds the comments that sit on a changed line or just above
// it (the run of comment lines directly above, no blank line between): the
// number changed but the wording beside it did not, so a reviewer should
// read it again. One note per changed line, e.g.
//
//	tenancy.yaml:82: gpu.deserved of queue workspace-rtx changed from 3 to 2, but the comment on line 81 was not reworded: # three of the four cards; the fourth is benchmark's
//
// Only value edits count (insertions are new lines without comments).
func CommentNotes(file string, src []byte, edits []Edit) []string {
	return commentNotes(newYAMLFile(file, src), edits)
}

// CommentNotes is the package's CommentNotes of file (its bytes src at
// the snapshot's commit) with the lines the Set indexed when it holds
// those bytes: a large tenancy file's lines are not indexed twice.
func (ts *Set) CommentNotes(file string, src []byte, edits []Edit) []string {
	if f := ts.files[file]; f != nil && len(f.src) == len(src) && (len(src) == 0 || &f.src[0] == &src[0]) {
		return commentNotes(f, edits)
	}
	return CommentNotes(file, src, edits)
}

// changedLines groups the value edits that commentNotes reads again by
// line, with the lines in order (insertions are new lines without
// comments, and a multi-line value has no one line).
func changedLines(edits []Edit) (byLine map[int][]Edit, lines []int) {
	byLine = map[int][]Edit{}
	for _, e := range edits {
		if e.Start == e.End || e.Old == e.New || strings.Contains(e.Old, "\n") {
			continue
		}
		if byLine[e.Line] == nil {
			lines = append(lines, e.Line)
		}
		byLine[e.Line] = append(byLine[e.Line], e)
	}
	sort.Ints(lines)
	return byLine, lines
}

// commentOf finds the comment that sits beside line l: its trailing
// comment (top == l, same), else the run of comment lines directly above
// it (lines top to l-1; top == l when there is none).
func commentOf(f *File, l int) (top int, same bool, comment string) {
	if c := lineComment(f.LineText(l)); c != "" {
		return l, true, c
	}
	if top = runAbove(f, l); top == l {
		return l, false, ""
	}
	return top, false, strings.TrimSpace(f.LineText(l - 1))
}

// lineComment is the comment of a line, from its "#": the whole line's
// when it is a comment line, else the one after its content (a value
// line's trailing comment); "" when it has none.
func lineComment(text string) string {
	if trimmed := strings.TrimLeft(text, " \t"); strings.HasPrefix(trimmed, "#") {
		return strings.TrimSpace(trimmed)
	}
	if trail := yamlsrc.ContentTrail(text); trail > 0 {
		if c := strings.TrimSpace(text[len(text)-trail:]); strings.HasPrefix(c, "#") {
			return c
		}
	}
	return ""
}

// runAbove is the first of the comment lines directly above line l (l
// when there is none).
func runAbove(f *File, l int) int {
	for l > 1 && strings.HasPrefix(strings.TrimLeft(f.LineText(l-1), " \t"), "#") {
		l--
	}
	return l
}

func commentNotes(f *File, edits []Edit) []string {
	file := f.path
	byLine, lines := changedLines(edits)
	var notes []string
	for _, l := range lines {
		es := byLine[l]
		sort.Slice(es, func(i, j int) bool { return es[i].Start < es[j].Start })
		var where string
		verb := "was"
		top, same, comment := commentOf(f, l)
		switch {
		case same:
			where = "the comment on the same line"
		case top == l:
			continue
		case top == l-1:
			where = fmt.Sprintf("the comment on line %d", l-1)
		default:
			where, verb = fmt.Sprintf("the comments on lines %d-%d", top, l-1), "were"
		}
		parts := make([]string, 0, len(es))
		for i, e := range es {
			if i == 0 {
				parts = append(parts, fmt.Sprintf("%s changed from %s to %s", e.What, e.Old, e.New))
			} else {
				parts = append(parts, fmt.Sprintf("%s from %s to %s", e.What, e.Old, e.New))
			}
		}
		notes = append(notes, fmt.Sprintf("%s:%d: %s, but %s %s not reworded: %s", file, l, strings.Join(parts, ", "), where, verb, comment))
	}
	return notes
}

// Comment is one comment of a file: its line and its text from the "#".
type Comment struct {
	Line int
	Text string
}

// CommentsNaming lists the comments of object id's document, where o says
// the reader found it, that hold word as a name (not inside a longer name:
// "nlp" in "nlp-h100" but not in "nlp2" or "team-nlp"): those on the
// document's lines, and the run of comment lines directly above it (no
// blank line between), in line order. A project renamed in place keeps
// them, so a reviewer should read them again. The comments that
// CommentNotes reports beside a value the edits (of this file) change are
// left out, to be said once. Nil when the file holds no such object there
// any more.
func (ts *Set) CommentsNaming(id ID, o Origin, word string, edits []Edit) ([]Comment, error) {
	f, d, err := ts.Locate(id, o)
	if err != nil || d == nil || word == "" {
		return nil, err
	}
	said := map[int]bool{}
	_, lines := changedLines(edits)
	for _, l := range lines {
		top, same, _ := commentOf(f, l)
		for c := top; c < l || same && c == l; c++ {
			said[c] = true
		}
	}
	var out []Comment
	for l := runAbove(f, d.FirstLine); l <= d.LastLine; l++ {
		if said[l] {
			continue
		}
		if c := lineComment(f.LineText(l)); c != "" && namesWord(c, word) {
			out = append(out, Comment{Line: l, Text: c})
		}
	}
	return out, nil
}

// namesWord reports whether s holds word with no name character (a
// letter, digit or "_") on either side, nor a "-" before it: a derived
// queue name ("nlp-h100") names its project, "team-nlp" does not.
func namesWord(s, word string) bool {
	nameByte := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for i := 0; i+len(word) <= len(s); {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(word)
		if (at == 0 || !nameByte(s[at-1]) && s[at-1] != '-') && (end == len(s) || !nameByte(s[end])) {
			return true
		}
		i = at + 1
	}
	return false
}
