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

func commentNotes(f *File, edits []Edit) []string {
	file := f.path
	byLine := map[int][]Edit{}
	var lines []int
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
	var notes []string
	for _, l := range lines {
		es := byLine[l]
		sort.Slice(es, func(i, j int) bool { return es[i].Start < es[j].Start })
		text := f.LineText(l)
		var where, comment string
		verb := "was"
		if trail := yamlsrc.ContentTrail(text); trail > 0 {
			if c := strings.TrimSpace(text[len(text)-trail:]); strings.HasPrefix(c, "#") {
				where, comment = "the comment on the same line", c
			}
		}
		if where == "" {
			top := l
			for top > 1 && strings.HasPrefix(strings.TrimLeft(f.LineText(top-1), " \t"), "#") {
				top--
			}
			switch {
			case top == l:
				continue
			case top == l-1:
				where = fmt.Sprintf("the comment on line %d", l-1)
			default:
				where, verb = fmt.Sprintf("the comments on lines %d-%d", top, l-1), "were"
			}
			comment = strings.TrimSpace(f.LineText(l - 1))
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
