package position

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

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

// The methods below write and read a Pos on the encoder and decoder of
// go-json-experiment's v2 engine, which internal/jsonfile reads and
// writes state.json and plan.json with: the same bytes as MarshalJSON and
// UnmarshalJSON (which encoding/json still calls), without the engine
// calling a method per value and checking the bytes it returns. A git
// snapshot of 10,000 projects holds about 190,000 positions; writing them
// was about a third of writing its state.json.

// MarshalJSONTo writes p as MarshalJSON does.
func (p Pos) MarshalJSONTo(enc *jsontext.Encoder) error {
	_, err := p.write(enc, nil)
	return err
}

// write writes p as MarshalJSON does, building the string form in buf,
// which it returns for the next position.
func (p Pos) write(enc *jsontext.Encoder, buf []byte) ([]byte, error) {
	if !p.textForm() {
		// Rare (an alias, an anchor): the bytes of MarshalJSON, which
		// encoding/json escapes as it always has (HTML characters too).
		v, err := p.MarshalJSON()
		if err != nil {
			return buf, err
		}
		return buf, enc.WriteValue(v)
	}
	b := append(buf, '"')
	b = p.appendText(b)
	if jsonfile.Plain(b[1:]) {
		return b, enc.WriteValue(append(b, '"'))
	}
	return b, enc.WriteValue(jsonfile.AppendString(nil, string(b[1:])))
}

// UnmarshalJSONFrom reads either form MarshalJSON writes, and the string
// of format 2, as UnmarshalJSON does.
func (p *Pos) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '"' {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return p.UnmarshalJSON(v)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	q, err := parsePos(tok.String())
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// textForm reports whether p is written as the string "LINE:COLUMN START
// TEXT": it is not an alias, lies inside no anchor and ends where its text
// does.
func (p Pos) textForm() bool {
	return !p.Alias && p.Anchor == "" && p.AnchorLine == 0 && p.End == p.Start+len(p.Text)
}

// appendText appends "LINE:COLUMN START TEXT", unquoted, to b.
func (p Pos) appendText(b []byte) []byte {
	b = strconv.AppendInt(b, int64(p.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(p.Column), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.Start), 10)
	b = append(b, ' ')
	return append(b, p.Text...)
}
