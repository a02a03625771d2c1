package yamledit

import (
	"fmt"
	"sort"
	"strings"
)

// Edit replaces the bytes of one value in one file, or inserts text: an
// insertion has Start == End and Old == "".
type Edit struct {
	File       string
	Line       int    // 1-based line of Start, for messages
	Start, End int    // byte offsets of the value as read
	Old        string // the bytes expected at Start..End
	New        string // the replacement
	What       string // for messages: "gpu.deserved of queue workspace-rtx"
	// Cut marks a removal (package yamlremove): the spaces after it are
	// not re-padded, as what followed the removed text moves up to its place.
	Cut bool
}

// Error is a refusal to splice, naming the file and line (Line 0
// when the whole file is concerned).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Splice applies edits to src and returns the new bytes; src is not
// changed. An edit with Start == End and Old == "" inserts New there
// (insertions at one offset keep their order, and come before a
// replacement that starts at that offset). Only the bytes of each value
// change, plus the run of spaces after a replaced value (past a closing
// ',', '}' or ']') when more text follows on the line, so that aligned
// columns and trailing comments stay where they were. It refuses, naming
// file and line, when the bytes at an edit's position are not what was read
// (the file changed since the snapshot) or when two edits overlap.
func Splice(src []byte, edits []Edit) ([]byte, error) {
	out, _, err := SpliceSpans(src, edits)
	return out, err
}

// Span is a range of the source that a splice replaced: an edit's value
// and the run of spaces re-padded after it, or an empty range for an
// insertion.
type Span struct {
	Start, End       int // in the source
	OutStart, OutEnd int // what replaced it in the output
	Edit             int // index into the edits as SortEdits orders them
}

// SortEdits returns edits ordered by offset (the order of Span.Edit); at
// one offset insertions come first, in their given order.
func SortEdits(edits []Edit) []Edit {
	es := append([]Edit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Start != es[j].Start {
			return es[i].Start < es[j].Start
		}
		return es[i].End == es[i].Start && es[j].End != es[j].Start
	})
	return es
}

// SpliceSpans is Splice that also returns the Span of every edit, in the
// order of the edits sorted by offset.
func SpliceSpans(src []byte, edits []Edit) ([]byte, []Span, error) {
	es := SortEdits(edits)
	for i, e := range es {
		if e.Start < 0 || e.End > len(src) || e.Start > e.End || string(src[e.Start:e.End]) != e.Old {
			found := ""
			if e.Start >= 0 && e.End <= len(src) && e.Start <= e.End {
				found = fmt.Sprintf(", found %q", src[e.Start:e.End])
			}
			return nil, nil, &Error{File: e.File, Line: e.Line, Msg: fmt.Sprintf("expected %q (%s) at bytes %d-%d%s: the file changed since the snapshot; take a new snapshot and plan again", e.Old, e.What, e.Start, e.End, found)}
		}
		if i > 0 && es[i-1].End > e.Start {
			return nil, nil, &Error{File: e.File, Line: e.Line, Msg: fmt.Sprintf("two edits overlap (%s and %s)", es[i-1].What, e.What)}
		}
	}
	out := make([]byte, 0, len(src)+16*len(es))
	spans := make([]Span, 0, len(es))
	at := 0
	for i, e := range es {
		out = append(out, src[at:e.Start]...)
		sp := Span{Start: e.Start, End: e.End, OutStart: len(out), Edit: i}
		out = append(out, e.New...)
		at = e.End
		sp.OutEnd = len(out)
		// Re-pad the run of spaces that follows, when it separates columns.
		delta := len(e.New) - len(e.Old)
		if delta == 0 || e.Start == e.End || e.Cut {
			spans = append(spans, sp)
			continue
		}
		p := at
		for p < len(src) && (src[p] == ',' || src[p] == '}' || src[p] == ']') {
			p++
		}
		q := p
		for q < len(src) && src[q] == ' ' {
			q++
		}
		spaces := q - p
		if spaces == 0 || q >= len(src) || src[q] == '\n' || src[q] == '\r' {
			spans = append(spans, sp)
			continue // nothing aligned after the value on this line
		}
		if i+1 < len(es) && es[i+1].Start < q {
			spans = append(spans, sp)
			continue // the next edit sits inside this run
		}
		keep := max(spaces-delta, 1)
		out = append(out, src[at:p]...)
		out = append(out, strings.Repeat(" ", keep)...)
		at = q
		sp.End, sp.OutEnd = q, len(out)
		spans = append(spans, sp)
	}
	return append(out, src[at:]...), spans, nil
}
