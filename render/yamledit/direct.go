package yamledit

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// directEdit is the edit of change c to a number made from the position
// the reader recorded (c.Pos), without parsing c's document: the Edit
// valueEdit would make, on evidence that makes the parse redundant.
//
//   - The file is trusted (NewSet): the very bytes the reader indexed, as
//     their git blob id proves, so the object starts at c.Origin and the
//     value lies at c.Pos, written as c.Pos.Text; both are checked again
//     against the bytes.
//   - The chunk that holds the object and the value has no '&', '*' or '!'
//     byte: no anchor, alias, merge key or tag anywhere in its documents,
//     so none of valueEdit's refusals (a value shared through an anchor or
//     reached through an alias, a fraction under !!int) can apply.
//   - The new value is a number (or another scalar but a string), which
//     valueEdit writes as its JSON text whatever the node's style
//     (scalarText).
//
// ok is false when any of this does not hold: the change then takes
// valueEdit's way, through the parsed document. What the splice writes is
// checked as always (the touched documents parsed again, Touched).
func (ts *Set) directEdit(c Change) (Edit, bool) {
	o, pos := c.Origin, c.Pos
	if o == nil || pos == nil || pos.Alias || pos.Anchor != "" || pos.AnchorLine != 0 {
		return Edit{}, false
	}
	f := ts.files[o.File]
	e, known := ts.byKey[c.ID]
	if f == nil || !f.trusted || !known || e.file != o.File || e.line != o.Line {
		return Edit{}, false
	}
	if pos.Start < 0 || pos.End > len(f.src) || pos.Start >= pos.End || string(f.src[pos.Start:pos.End]) != pos.Text {
		return Edit{}, false
	}
	i := f.chunkOfLine(e.line)
	if f.chunkAt(pos.Start) != i || f.chunkAt(pos.End-1) != i {
		return Edit{}, false
	}
	if ch := f.chunks[i]; bytes.ContainsAny(f.src[ch.start:ch.end], "&*!") {
		return Edit{}, false
	}
	t, err := fromJSON(c.Value)
	if err != nil || t.kind != yaml.ScalarNode || t.raw != "" || len(t.js) == 0 || t.js[0] == '"' {
		return Edit{}, false
	}
	return Edit{File: o.File, Line: pos.Line, Start: pos.Start, End: pos.End, Old: pos.Text, New: scalarText(t, like{}), What: c.What}, true
}
