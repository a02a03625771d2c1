// Package jsonfile writes and reads krmplan's JSON files (state.json,
// plan.json, cluster data) with encoding/json, the same way everywhere.
package jsonfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Marshal returns the file's bytes for v: what a json.Encoder with
// SetEscapeHTML(false) and SetIndent("", "  ") writes (two-space indents,
// HTML characters as they are, a final newline). It is that encoder's
// output made in two steps, so that the indented bytes go into a buffer of
// about their final size at once: a state of 50,000 projects is hundreds of
// megabytes, and growing a buffer to that size by doubling costs more than
// the encoding.
func Marshal(v any) ([]byte, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(2*compact.Len() + 1024) // the indents about double krmplan's JSON
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// DecodeStrict decodes the JSON value at the start of b into v, as
// encoding/json's Decoder with DisallowUnknownFields does: a misspelt key
// is an error, not a silently empty value. A syntax or type error starts
// with the line it is on ("line 7: json: cannot unmarshal ...").
//
// It decodes with go-json-experiment's v1 package: encoding/json's
// behaviour and messages on the engine of encoding/json/v2 (the standard
// library's from Go 1.27), which reads krmplan's tens-of-megabytes files
// markedly faster.
func DecodeStrict(b []byte, v any) error {
	dec := jsonv1.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var off int64 = -1
	var syn *jsonv1.SyntaxError
	var typ *jsonv1.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 {
		return err
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}

// Member is a top-level string member of a file written by Marshal:
// "plan_id", "digest", "taken_at". Marshal writes a struct's first fields
// on the first lines, where Fill and SumEmpty look for them.
type Member struct{ Name, Value string }

// Fill returns a copy of b, a file written by Marshal with the members
// empty, with the members set to their values. The members are given in
// the order of the file; a file whose head lacks one is an error.
func Fill(b []byte, members ...Member) ([]byte, error) {
	parts, err := replaceTop(b, emptied(members), members)
	if err != nil {
		return nil, err
	}
	return bytes.Join(parts, nil), nil
}

// SumEmpty is the hex sha256 of b, a file written by Marshal, with the
// members (holding the values given, in the order of the file) empty:
// the sum that b's own fingerprint was computed over. b is not copied: a
// state of 10,000 projects is tens of megabytes.
//
// krmplan's files carry their own fingerprint as a sum of the very bytes
// written, with the fingerprint's member empty: neither writing nor
// reading a file then marshals it a second time to fingerprint it.
func SumEmpty(b []byte, members ...Member) (string, error) {
	parts, err := replaceTop(b, members, emptied(members))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// replaceTop returns the pieces of b with the line of each member of from
// replaced by the line of the member of to at the same index.
func replaceTop(b []byte, from, to []Member) ([][]byte, error) {
	parts := make([][]byte, 0, 2*len(from)+1)
	rest := b
	for i, m := range from {
		line := member(m.Name, m.Value)
		j := bytes.Index(rest[:min(len(rest), headBytes+len(line))], line)
		if j < 0 {
			return nil, fmt.Errorf("the file does not begin with the member %s", bytes.TrimSpace(line))
		}
		parts = append(parts, rest[:j], member(to[i].Name, to[i].Value))
		rest = rest[j+len(line):]
	}
	return append(parts, rest), nil
}

// emptied is members with empty values.
func emptied(members []Member) []Member {
	out := make([]Member, len(members))
	for i, m := range members {
		out[i] = Member{Name: m.Name}
	}
	return out
}

// Sum is the hex sha256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// headBytes is how far into a file (past the previous member) Fill and
// SumEmpty look for a member: past the few short members krmplan's files
// start with.
const headBytes = 256

// member is the line of a top-level string member as Marshal writes it:
// after a newline two spaces, the quoted name and value and a comma.
func member(name, value string) []byte {
	b := AppendString([]byte("\n  "), name)
	b = append(b, ": "...)
	b = AppendString(b, value)
	return append(b, ',')
}

// plain reports whether s can stand between two quotes in JSON as it
// is: printable ASCII without a quote or a backslash, as JSON pointers
// and most quota texts are.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// AppendString appends s to b as a JSON string the way Marshal writes it
// (HTML characters as they are), for a type that writes its own JSON.
func AppendString(b []byte, s string) []byte {
	if plain(s) {
		return append(append(append(b, '"'), s...), '"')
	}
	var w bytes.Buffer
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(w.Bytes(), []byte("\n"))...)
}
