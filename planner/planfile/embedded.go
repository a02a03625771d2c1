package planfile

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/snapshot"
)

// Sources are the state.json bytes of a plan's snapshots as plan read
// them: Snapshot's of Plan.Snapshot and Head's of Plan.Head (a plan
// between two git refs). Encode copies them into plan.json as they are
// (they passed the digest check when they were read); a nil one is
// encoded from its state (snapshot.State.Marshal).
type Sources struct {
	Snapshot, Head []byte
}

// indent is how much deeper a snapshot's lines sit in plan.json than in
// state.json: it is the value of a top-level member.
const indent = "  "

// appendEmbedded appends state, the bytes of a state.json file (ending
// in a newline), to b as the value of a top-level member of plan.json:
// without its final newline, each line after the first indented two
// spaces more. A JSON file holds a raw newline only between tokens, never
// in a string, so the indentation is exact and is undone by embeddedState.
func appendEmbedded(b, state []byte) []byte {
	state = bytes.TrimSuffix(state, []byte("\n"))
	for {
		i := bytes.IndexByte(state, '\n')
		if i < 0 {
			return append(b, state...)
		}
		b = append(append(b, state[:i+1]...), indent...)
		state = state[i+1:]
	}
}

// embeddedState is the state.json bytes of v, the value of a snapshot
// member of plan.json as appendEmbedded writes it: each newline's
// indentation taken off, and the final newline put back. It refuses a
// line that is not indented so.
func embeddedState(v []byte) ([]byte, error) {
	out := make([]byte, 0, len(v)+1)
	for line := 1; ; line++ {
		i := bytes.IndexByte(v, '\n')
		if i < 0 {
			return append(append(out, v...), '\n'), nil
		}
		out = append(out, v[:i+1]...)
		if !bytes.HasPrefix(v[i+1:], []byte(indent)) {
			return nil, fmt.Errorf("its line %d is not indented as plan.json embeds state.json (two spaces more than the file's own lines)", line+1)
		}
		v = v[i+1+len(indent):]
	}
}

// embedded is a snapshot member of plan.json as decoded: the state.json
// bytes it holds (embeddedState), decoded later by snapshot.Decode, the
// reader of state.json, once the plan's id is checked.
type embedded struct {
	state []byte
}

// UnmarshalJSONFrom takes the member's value as the file holds it; the
// engine has checked that it is one JSON value.
func (e *embedded) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if v.Kind() != '{' {
		return errors.New("the snapshot is not a JSON object")
	}
	e.state, err = embeddedState(v)
	return err
}

// decodeEmbedded decodes the snapshot member of plan.json that what
// names ("snapshot", "head") with snapshot.Decode, as state.json is
// decoded: its format version, its digest and the checks on what it
// holds.
func decodeEmbedded(name, what string, e *embedded) (*snapshot.State, error) {
	st, err := snapshot.Decode(what, e.state)
	if err != nil {
		// snapshot.Decode names its input what: the plan file is named
		// first instead, and the advice is the plan's.
		msg := strings.TrimPrefix(err.Error(), what+": ")
		msg = strings.TrimPrefix(msg, "not a krmplan snapshot: ")
		msg = strings.TrimSuffix(msg, "; take a new snapshot")
		return nil, fmt.Errorf("%s: the plan's %s is not one krmplan takes: %s; make a new plan", name, what, msg)
	}
	return st, nil
}

// stateBytes is the state.json bytes of st to embed: given (as plan read
// them; their digest must be st's), or st's own encoding, whose digest
// must be st's too, so that Encode never writes a file Decode refuses.
func stateBytes(what string, st *snapshot.State, given []byte) ([]byte, error) {
	if given != nil {
		if d := digestMember(given); d != st.Digest {
			return nil, fmt.Errorf("the state.json bytes given for the %s have the digest %q, not the snapshot's %q", what, d, st.Digest)
		}
		return given, nil
	}
	b := st.Marshal()
	sum, _, err := jsonfile.SumEmpty(b, "taken_at", "digest")
	if err != nil {
		return nil, fmt.Errorf("the %s: %w", what, err)
	}
	if "sha256:"+sum != st.Digest {
		return nil, errors.New("the " + what + " is not sealed: its digest is not that of its content (snapshot.State.Seal gives it one)")
	}
	return b, nil
}

// digestMember is the digest member of state.json bytes as their head
// holds it, "" when it has none.
func digestMember(b []byte) string {
	key := []byte("\n  \"digest\": ")
	i := bytes.Index(b[:min(len(b), 512)], key)
	if i < 0 {
		return ""
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b[i+len(key) : min(len(b), i+len(key)+256)]))
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '"' {
		return ""
	}
	return tok.String()
}
