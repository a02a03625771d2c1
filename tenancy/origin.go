package tenancy

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// Origin is where an object is written in a git snapshot, and where each of
// its values is.
type Origin struct {
	File string `json:"file"` // repository-relative path
	Line int    `json:"line"` // 1-based line of the document's first key
	// Values maps a JSON pointer into the object ("/spec/queues/0/name",
	// "/spec/queues/0/resources/gpu/deserved") to the position of the value.
	// A plan file's snapshot keeps them all (it is state.json's bytes).
	Values map[string]Pos `json:"values,omitempty"`
}

// Shift moves o, read from a part of a file that starts lines lines and
// off bytes into it, to the file's positions; a nil o stays nil.
func (o *Origin) Shift(lines, off int) {
	if o == nil {
		return
	}
	o.Line += lines
	for k, v := range o.Values {
		v.Line += lines
		v.Start += off
		v.End += off
		o.Values[k] = v
	}
}

// Pos is the position of one scalar value in a file. state.json writes it
// as the string "LINE:COLUMN START TEXT" (MarshalJSON).
type Pos struct {
	Line   int `json:"line"`   // 1-based
	Column int `json:"column"` // 1-based, in bytes
	Start  int `json:"start"`  // byte offset of the value's first byte
	End    int `json:"end"`    // byte offset just past the value
	// Text is the value exactly as written ("4", "4.0", `"4"`).
	Text string `json:"text"`
	// Alias marks a value reached through a YAML alias (*name), directly,
	// through an aliased mapping or through a merge key (<<: *name): the
	// bytes at Start..End are the alias, not the number, so it cannot be
	// spliced. AnchorLine is the line of the anchor (&name) it names, or
	// that holds it.
	Alias bool `json:"alias,omitempty"`
	// Anchor is set on a value that lies inside an anchored node (&name)
	// that an alias elsewhere in the document shares: editing its bytes
	// would change the aliases too, so it cannot be spliced either.
	Anchor     string `json:"anchor,omitempty"`
	AnchorLine int    `json:"anchor_line,omitempty"`
}

// A Pos is written in state.json as one string, "LINE:COLUMN START TEXT"
// ("31:15 1214 4": line 31, column 15, from byte 1214, written as 4; it
// ends at START plus the length of TEXT). A git snapshot holds a position
// for every value of the tenancy (about 19 per project), so as an object of
// five members these were most of state.json's bytes and of the time spent
// writing and reading it. A position reached through a YAML alias or inside
// a shared anchor, rare, keeps the object form with all its members
// (posObject). Snapshots of format 2 wrote "LINE:COLUMN START-END TEXT";
// that form is still read.

// posObject is the object form of Pos: the same members, no methods.
type posObject Pos

// MarshalJSON writes p as "LINE:COLUMN START TEXT", or as an object when
// it is an alias, lies inside an anchor or does not end where its text
// does.
func (p Pos) MarshalJSON() ([]byte, error) {
	if !p.textForm() {
		return json.Marshal(posObject(p))
	}
	return jsonfile.AppendString(nil, string(p.appendText(make([]byte, 0, 32+len(p.Text))))), nil
}

// UnmarshalJSON reads either form MarshalJSON writes, and the string of
// format 2, "LINE:COLUMN START-END TEXT". A string that is neither, or
// whose END is not START + the length of TEXT, is an error quoting it.
func (p *Pos) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		var o posObject
		if err := jsonfile.UnmarshalStrict(b, &o); err != nil {
			return err
		}
		*p = Pos(o)
		return nil
	}
	var s string
	if len(b) >= 2 && !strings.ContainsAny(string(b[1:len(b)-1]), `\"`) {
		s = string(b[1 : len(b)-1]) // no escapes: the bytes between the quotes are the string
	} else if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	q, err := parsePos(s)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// parsePos reads "LINE:COLUMN START TEXT" or "LINE:COLUMN START-END TEXT".
func parsePos(s string) (Pos, error) {
	bad := func() (Pos, error) {
		return Pos{}, fmt.Errorf("position %q is not \"LINE:COLUMN START TEXT\"", s)
	}
	lc, rest, ok1 := strings.Cut(s, " ")
	se, text, ok2 := strings.Cut(rest, " ")
	l, c, ok3 := strings.Cut(lc, ":")
	st, en, dash := strings.Cut(se, "-")
	if !ok1 || !ok2 || !ok3 {
		return bad()
	}
	fields := []string{l, c, st}
	if dash {
		fields = append(fields, en)
	}
	var n [4]int
	for i, f := range fields {
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 || (f != "0" && f[0] == '0') || f[0] == '+' {
			return bad()
		}
		n[i] = v
	}
	if !dash {
		n[3] = n[2] + len(text)
	} else if n[3]-n[2] != len(text) {
		return Pos{}, fmt.Errorf("position %q: END-START is %d, but TEXT is %d bytes long", s, n[3]-n[2], len(text))
	}
	return Pos{Line: n[0], Column: n[1], Start: n[2], End: n[3], Text: text}, nil
}
