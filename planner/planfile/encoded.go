package planfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// Encoded is a plan.json file kept in its parts: the members Marshal
// writes (the plan_id written in), then each embedded snapshot's
// state.json bytes, which WriteTo indents as it writes them. A plan of
// 10,000 projects is 25 MB, nearly all its snapshot: the file is written
// (and summed for its plan_id) without being copied into a buffer of its
// own, which on a machine whose memory is slow to map cost a tenth of
// plan's time.
type Encoded struct {
	head     []byte // the members, without the closing brace
	embedded []part
}

// part is an embedded snapshot: the member's name ("head", "snapshot")
// and its state.json bytes (ending in a newline).
type part struct {
	name  string
	state []byte
}

// Len is the number of bytes WriteTo writes.
func (e *Encoded) Len() int {
	n := len(e.head) + len("\n}\n")
	for _, p := range e.embedded {
		n += len(",\n  \"\": ") + len(p.name) + len(p.state) - 1 + bytes.Count(p.state[:len(p.state)-1], []byte("\n"))*len(indent)
	}
	return n
}

// WriteTo writes the file to w, through a buffer: the embedded lines are
// written a line at a time. n counts the bytes w took.
func (e *Encoded) WriteTo(w io.Writer) (n int64, err error) {
	return jsonfile.WriteBuffered(w, e.write)
}

// Bytes is the file's bytes.
func (e *Encoded) Bytes() []byte {
	b := make([]byte, 0, e.Len()) // not a bytes.Buffer: its Grow clears the memory first
	e.write(func(p []byte) { b = append(b, p...) })
	return b
}

// write puts the file's bytes: the head, then the tail.
func (e *Encoded) write(put func([]byte)) {
	put(e.head)
	e.writeTail(put)
}

// sum is the file's plan_id: the hex sha256 of its bytes with plan_id
// empty (jsonfile.SumEmpty's rule), the head summed by jsonfile.SumEmptyTo
// and the tail written to the same hash.
func (e *Encoded) sum() (string, []string, error) {
	h := sha256.New()
	values, err := jsonfile.SumEmptyTo(h, e.head, "plan_id")
	if err != nil {
		return "", nil, err
	}
	e.writeTail(func(p []byte) { h.Write(p) })
	return hex.EncodeToString(h.Sum(nil)), values, nil
}

// writeTail writes what follows the head: each embedded snapshot as a
// member, then the closing brace.
func (e *Encoded) writeTail(put func([]byte)) {
	for _, p := range e.embedded {
		put([]byte(",\n  \"" + p.name + "\": "))
		writeEmbedded(put, p.state)
	}
	put([]byte("\n}\n"))
}

// writeEmbedded writes state, the bytes of a state.json file (ending in a
// newline), as the value of a top-level member of plan.json: without its
// final newline, each line after the first indented two spaces more. A
// JSON file holds a raw newline only between tokens, never in a string,
// so the indentation is exact and is undone by embeddedState.
func writeEmbedded(put func([]byte), state []byte) {
	state = bytes.TrimSuffix(state, []byte("\n"))
	for {
		i := bytes.IndexByte(state, '\n')
		if i < 0 {
			put(state)
			return
		}
		put(state[:i+1])
		put(indentBytes)
		state = state[i+1:]
	}
}

// indentBytes is indent, made once rather than at each embedded line.
var indentBytes = []byte(indent)
