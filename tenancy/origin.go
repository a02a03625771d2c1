package tenancy

import "github.com/krmplan/krmplan/tenancy/position"

// Origin is where an object is written in a git snapshot, and where each of
// its values is.
type Origin struct {
	File string `json:"file"` // repository-relative path
	Line int    `json:"line"` // 1-based line of the document's first key
	// Values are the positions of the object's values by JSON pointer
	// into the object ("/spec/queues/0/name",
	// "/spec/queues/0/resources/gpu/deserved"). A plan file's snapshot
	// keeps them all (it is state.json's bytes).
	Values Positions `json:"values,omitempty"`
}

// Shift moves o, read from a part of a file that starts lines lines and
// off bytes into it, to the file's positions; a nil o stays nil.
func (o *Origin) Shift(lines, off int) {
	if o == nil {
		return
	}
	o.Line += lines
	o.Values.Shift(lines, off)
}

// Pos is the position of one scalar value in a file (package position).
type Pos = position.Pos

// Positions are an object's positions by JSON pointer (package position).
type Positions = position.Set

// PositionsOf is the positions of m, which they keep (not a copy).
func PositionsOf(m map[string]Pos) Positions { return position.SetOf(m) }
