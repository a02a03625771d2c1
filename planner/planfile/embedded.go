package planfile

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
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

// embeddedState is the state.json bytes of v, the value of a snapshot
// member of plan.json as writeEmbedded writes it: each newline's
// indentation taken off, and the final newline put back. bad is the first
// line of v (from 1) that is not indented so, 0 when every line is.
func embeddedState(v []byte) (state []byte, bad int) {
	out := make([]byte, 0, len(v)+1)
	for line := 1; ; line++ {
		i := bytes.IndexByte(v, '\n')
		if i < 0 {
			return append(append(out, v...), '\n'), 0
		}
		out = append(out, v[:i+1]...)
		if !bytes.HasPrefix(v[i+1:], []byte(indent)) {
			return nil, line + 1
		}
		v = v[i+1+len(indent):]
	}
}

// notIndented says that a snapshot's line is not indented as plan.json
// embeds state.json.
const notIndented = "not indented as plan.json embeds state.json (two spaces more than state.json's own lines)"

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
	var bad int
	if e.state, bad = embeddedState(v); bad > 0 {
		return fmt.Errorf("its line %d is %s", bad, notIndented)
	}
	return nil
}

// decodeEmbedded decodes the state.json bytes of the snapshot member of
// plan.json that what names ("snapshot", "head") with snapshot.Decode, as
// state.json is decoded: its format version, its digest and the checks on
// what it holds. line is the file's line the member starts on, 0 when it
// is not known: an error about the snapshot's line N then names the
// file's line and the member's pointer.
//
// state is the member's value as plan.json holds it, each line after the
// first indented by indent (snapshot.DecodeIndented; a line that is not
// is refused first, naming it), or, when indent is "", the state.json
// bytes themselves (embeddedState).
func decodeEmbedded(name, what string, state []byte, indent string, line int) (*snapshot.State, error) {
	var st *snapshot.State
	var err error
	if indent == "" {
		st, err = snapshot.Decode(what, state)
	} else {
		st, err = snapshot.DecodeIndented(what, state, indent)
	}
	if ie, ok := errors.AsType[*jsonfile.IndentError](err); ok {
		return nil, fmt.Errorf("%s: not a krmplan plan: line %d: /%s: %s", name, line+ie.Line-1, what, notIndented)
	}
	if err != nil {
		// snapshot.Decode names its input what: the plan file is named
		// first instead, and the advice is the plan's.
		msg := strings.TrimPrefix(err.Error(), what+": ")
		msg = strings.TrimPrefix(msg, "not a krmplan snapshot: ")
		msg = strings.TrimSuffix(msg, "; take a new snapshot")
		if m := stateLine.FindStringSubmatch(msg); m != nil && line > 0 {
			n, _ := strconv.Atoi(m[1])
			rest := msg[len(m[0]):]
			if !strings.HasPrefix(rest, "/") {
				rest = ": " + rest // no pointer: the member's
			}
			msg = fmt.Sprintf("line %d: /%s%s", line+n-1, what, rest)
		}
		return nil, fmt.Errorf("%s: the plan's %s is not one krmplan takes: %s; make a new plan", name, what, msg)
	}
	return st, nil
}

// stateLine is how a decoding error of state.json starts: its line, and
// the JSON pointer's slash.
var stateLine = regexp.MustCompile(`^line ([0-9]{1,9}): `)

// stateBytes is the state.json bytes of st to embed: given (as plan read
// them; their digest must be st's), or st's own encoding, whose digest
// must be st's too, so that Encode never writes a file Decode refuses.
func stateBytes(what string, st *snapshot.State, given []byte) ([]byte, error) {
	if given != nil {
		if d := digestMember(given); d != st.Digest {
			return nil, fmt.Errorf("the state.json bytes given for the %s have the digest %q, not the snapshot's %q", what, d, st.Digest)
		}
		// plan.json carries the bytes from the opening brace to the
		// closing one, and embeddedState puts back one newline: anything
		// else around them (no final newline, a second one, a space) would
		// come back otherwise and fail the digest on decoding.
		if len(given) == 0 || given[0] != '{' || !bytes.HasSuffix(given, []byte("}\n")) {
			return nil, fmt.Errorf("the %s's state.json does not start with { and end with }, then one newline, as krmplan writes it: plan.json cannot carry it unchanged; take the snapshot again", what)
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

// tail is the embedded snapshots of plan.json found by their place, as
// Encode writes them: the snapshot the last member, after a comma, its
// value running to the closing brace on the file's last line, and the
// head, when there is one, the member before it. Their state.json bytes
// are decoded by snapshot.Decode alone (not scanned once more by the
// file's decoder), each on a goroutine of its own while the other members
// (head: the file up to the embedded ones, closed) are decoded.
type tail struct {
	head    []byte
	members []*member // the snapshot, then the head when there is one
}

// member is a snapshot member of the tail, and its decoding.
type member struct {
	what  string // "snapshot" or "head"
	value []byte
	line  int // the file's line the member starts on
	done  chan struct{}
	st    *snapshot.State
	err   error
}

// splitTail is b's tail, nil when b does not end as Encode writes it.
func splitTail(b []byte) *tail {
	if !bytes.HasSuffix(b, []byte("\n}\n")) {
		return nil
	}
	t := &tail{}
	end := len(b) - len("\n}\n")
	for _, what := range []string{"snapshot", "head"} {
		// The first such line: a JSON file holds a raw newline only
		// between tokens, and Encode indents the embedded state's lines
		// past two spaces, so a legible file has one. (bytes.Index, not
		// LastIndex: it is many times faster over tens of megabytes.)
		key := []byte("\n  \"" + what + "\": ")
		i := bytes.Index(b[:end], key)
		if i >= 0 && bytes.Contains(b[i+1:end], key) {
			return nil // a member given twice: the whole file's decoding says so
		}
		if i < 1 || b[i-1] != ',' {
			break
		}
		t.members = append(t.members, &member{what: what, value: b[i+len(key) : end], line: 2 + bytes.Count(b[:i], []byte("\n"))})
		end = i - 1 // the comma before the member
	}
	if len(t.members) == 0 {
		return nil
	}
	t.head = append(append(make([]byte, 0, end+2), b[:end]...), "\n}"...)
	return t
}

// start decodes each member on a goroutine of its own.
func (t *tail) start(name string) {
	for _, m := range t.members {
		m.done = make(chan struct{})
		go func() {
			defer close(m.done)
			// Decoded where it is in the file, not copied out of it
			// unindented: the copy of a snapshot of 10,000 projects was
			// 24 MB of fresh memory, a tenth of render's.
			m.st, m.err = decodeEmbedded(name, m.what, m.value, indent, m.line)
			m.value = nil // the file's bytes are not kept for the snapshot
		}()
	}
}

// wait waits for every member's decoding.
func (t *tail) wait() {
	for _, m := range t.members {
		<-m.done
	}
}

// states are the tail's snapshot and head (nil when it has none), or the
// first error decoding them, the snapshot's first.
func (t *tail) states() (snap, head *snapshot.State, err error) {
	t.wait()
	for _, m := range t.members {
		if m.err != nil {
			return nil, nil, m.err
		}
	}
	if len(t.members) > 1 {
		head = t.members[1].st
	}
	return t.members[0].st, head, nil
}

// decodeSummed is jsonfile.DecodeSummed of plan.json b into f, over the
// plan_id: the embedded snapshots, when b ends as Encode writes it,
// decoded on their own meanwhile (the tail returned, to wait for; nil
// when the whole file was decoded into f).
func decodeSummed(name string, b []byte, f *file) (*tail, jsonfile.Fingerprint, error) {
	t := splitTail(b)
	if t == nil {
		fp, err := jsonfile.DecodeSummed(b, f, "plan_id")
		return nil, fp, err
	}
	t.start(name)
	var fp jsonfile.Fingerprint
	summed := make(chan struct{})
	go func() {
		defer close(summed)
		fp.Sum, fp.Values, fp.Err = jsonfile.SumEmpty(b, "plan_id")
	}()
	err := jsonfile.DecodeStrict(t.head, f)
	t.head = nil
	<-summed
	if err != nil || f.Snapshot != nil || (f.Head != nil && len(t.members) > 1) {
		// Not as Encode writes it after all (a member given twice, say):
		// the whole file is decoded, to say what is wrong.
		t.wait()
		*f = file{}
		err = jsonfile.DecodeStrict(b, f)
		return nil, fp, err
	}
	return t, fp, nil
}
