// Package jsonfile writes and reads krmplan's JSON files (state.json,
// plan.json, cluster data) the same way everywhere: with encoding/json's
// behaviour and bytes, on the faster engine of encoding/json/v2 (from
// go-json-experiment/json), and with the fingerprint of a file (a state's
// digest, a plan's id) taken over its own bytes.
package jsonfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Marshal returns the file's bytes for v: what encoding/json's Encoder
// with SetEscapeHTML(false) and SetIndent("", "  ") writes (two-space
// indents, HTML characters as they are, a final newline).
//
// It encodes with go-json-experiment's v2 engine under encoding/json's
// options (jsonv1.DefaultOptionsV1), which writes the indented bytes in one
// pass, into chunks joined once at the end: a state of 10,000 projects is
// 40 MB, and a buffer grown to that by doubling is copied and faulted in
// again at each step. About half of encoding/json's time, same bytes.
func Marshal(v any) ([]byte, error) {
	var c chunks
	if err := jsonv2.MarshalWrite(&c, v, jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false), jsontext.WithIndent("  ")); err != nil {
		return nil, err
	}
	c.Write([]byte{'\n'})
	return bytes.Join(c, nil), nil
}

// chunks is an io.Writer that keeps what is written in chunks, never
// copying what it already holds: the first of firstChunk bytes, each next
// one twice as large up to chunkSize. (A small file, as the tests marshal
// by the thousand, then costs a few kB rather than a cleared megabyte.)
type chunks [][]byte

const (
	firstChunk = 4 << 10
	chunkSize  = 1 << 20
)

func (c *chunks) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(*c) == 0 {
			*c = append(*c, make([]byte, 0, firstChunk))
		} else if last := (*c)[len(*c)-1]; len(last) == cap(last) {
			*c = append(*c, make([]byte, 0, min(chunkSize, 2*cap(last))))
		}
		last := &(*c)[len(*c)-1]
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// DecodeStrict decodes the JSON document b into v, as encoding/json's
// Decoder with DisallowUnknownFields does: a misspelt key is an error, not
// a silently empty value; anything after the document is an error too.
// An error names the line and, within the document, the JSON pointer of
// the value: `line 7: /projects/3/spec/queues/0/name: a JSON number, but
// it must be a string`, `line 9: /nodes/0: unknown key "gpuCapcity"`.
//
// It decodes with go-json-experiment's v2 engine under encoding/json's
// options (jsonv1.DefaultOptionsV1): the engine of the standard library's
// encoding/json/v2 from Go 1.27, which reads krmplan's tens-of-megabytes
// files in about half of encoding/json's time, and whose errors carry the
// offset and the pointer.
func DecodeStrict(b []byte, v any) error {
	return decodeStrict(b, v, strictOptions)
}

// decodeStrict is DecodeStrict with the options opts.
func decodeStrict(b []byte, v any, opts jsonv2.Options) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("the file is empty")
	}
	if string(bytes.TrimSpace(b)) == "null" {
		return errors.New("line 1: /: a JSON null where an object belongs")
	}
	return explain(decodeBounded(b, v, nil, opts), "/", func(off int64) string {
		return fmt.Sprintf("line %d: ", 1+bytes.Count(b[:min(int(off), len(b))], []byte("\n")))
	})
}

// UnmarshalStrict is DecodeStrict for a value inside a file (a type's
// UnmarshalJSON): its errors name the pointer within the value and no
// line, as the value's offsets are not the file's; the file's reader
// puts the value's own line and pointer in front.
func UnmarshalStrict(b []byte, v any) error {
	return explain(unmarshal(b, v), "", func(int64) string { return "" })
}

// unmarshal decodes with encoding/json's options but strict about keys:
// an unknown key, a key in another case ("GPUCapacity") and a key given
// twice are errors, not a silently ignored or overwritten value; and the
// elements of lists whose type reads itself through Element are counted
// against the bytes read (decodeBounded).
func unmarshal(b []byte, v any) error {
	return decodeBounded(b, v, nil, strictOptions)
}

// strictOptions are unmarshal's options, joined once: engineOptions, and
// the lists and maps of Go's types read through List and Map.
var strictOptions = jsonv2.JoinOptions(engineOptions, boundedLists)

// engineOptions are encoding/json's options, strict about keys.
var engineOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.RejectUnknownMembers(true),
	jsonv2.MatchCaseInsensitiveNames(false), jsontext.AllowDuplicateNames(false), jsonv1.ReportErrorsWithLegacySemantics(false))

// explain words a decoding error for a person: where (at names the
// place of a byte offset), the JSON pointer (root is how the whole
// document is named), and what is wrong.
func explain(err error, root string, at func(off int64) string) error {
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn):
		what := err.Error()
		if syn.Err != nil {
			what = syn.Err.Error()
		}
		return fmt.Errorf("%s%s%s", at(syn.ByteOffset), place(syn.JSONPointer, ""), what)
	case errors.As(err, &sem):
		ptr := sem.JSONPointer
		if sem.Err == jsonv2.ErrUnknownName {
			return fmt.Errorf("%s%sunknown key %q", at(sem.ByteOffset), place(ptr.Parent(), root), ptr.LastToken())
		}
		what := sem.Err
		if what == nil {
			what = fmt.Errorf("a JSON %s where %s belongs", kindName(sem.JSONKind), goKindName(sem.GoType))
		}
		return fmt.Errorf("%s%s%w", at(sem.ByteOffset), place(ptr, root), what)
	}
	return err
}

// place is "p: ", with root for the whole document ("" for nothing).
func place(p jsontext.Pointer, root string) string {
	if p == "" {
		p = jsontext.Pointer(root)
	}
	if p == "" {
		return ""
	}
	return string(p) + ": "
}

// goKindName names the JSON a Go type is read from.
func goKindName(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another value"
}

// kindName names a JSON kind as a person does.
func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// Member is a top-level string member of a file written by Marshal:
// "plan_id", "digest", "taken_at". Marshal writes a struct's first fields
// on the first lines, where Overwrite looks for them.
type Member struct{ Name, Value string }

// Overwrite writes value over the value of the member m in b, a file
// written by Marshal, in place. value must be as long as m.Value once
// quoted: a file's fingerprint is written over a placeholder of its
// length, so that a file of tens of megabytes is not copied for it.
func Overwrite(b []byte, m Member, value string) error {
	from, to := member(m.Name, m.Value), member(m.Name, value)
	if len(from) != len(to) {
		return fmt.Errorf("%s: the value %q is not as long as %q", m.Name, value, m.Value)
	}
	i := bytes.Index(b[:min(len(b), headBytes+len(from))], from)
	if i < 0 {
		return fmt.Errorf("the file does not begin with the member %s", bytes.TrimSpace(from))
	}
	copy(b[i:], to)
	return nil
}

// SumEmpty is the hex sha256 of b, a file written by Marshal, with the
// string values of the named top-level members (in the order of the file)
// empty: the sum that b's own fingerprint is. It also returns those
// values as b holds them, for the caller to compare with what it decoded.
// b is not copied: a state of 10,000 projects is tens of megabytes.
//
// krmplan's files carry their own fingerprint as a sum of the very bytes
// written, with the fingerprint's member empty: neither writing nor
// reading a file then marshals it a second time to fingerprint it, and a
// reader can sum the file while it decodes it.
func SumEmpty(b []byte, names ...string) (sum string, values []string, err error) {
	h := sha256.New()
	if values, err = SumEmptyTo(h, b, names...); err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(h.Sum(nil)), values, nil
}

// SumEmptyTo writes to h what SumEmpty sums of b: b with the named
// members' values empty. A file whose tail is not in one buffer (plan.json,
// its embedded snapshot written as it is indented) is summed by its head
// through SumEmptyTo, then its tail written to the same h.
func SumEmptyTo(h io.Writer, b []byte, names ...string) (values []string, err error) {
	return margin.sumEmptyTo(h, b, names)
}

// sumEmptyTo is SumEmptyTo of a file laid out at l: each member is looked
// for where it would be found in the file at the left margin (headBytes
// past the previous one there).
func (l layout) sumEmptyTo(h io.Writer, b []byte, names []string) (values []string, err error) {
	rest := b
	for k, name := range names {
		key := append(AppendString([]byte("\n"+l.indent+"  "), name), ": "...)
		// At most headBytes newlines precede the member, each followed by
		// l.indent more.
		i := bytes.Index(rest[:min(len(rest), headBytes*(1+len(l.indent))+len(key))], key)
		if i >= 0 && l.indent != "" && i-len(l.indent)*bytes.Count(rest[:i], []byte("\n")) > headBytes {
			i = -1
		}
		if i < 0 {
			return nil, notInHead(names, k)
		}
		start := i + len(key)
		dec := jsontext.NewDecoder(bytes.NewReader(rest[start:]))
		raw, err := dec.ReadValue()
		var v string
		if err != nil || raw.Kind() != '"' || jsonv2.Unmarshal(raw, &v) != nil {
			return nil, fmt.Errorf("the member %q is not a string", name)
		}
		// Only the spelling Marshal writes: the same value written another
		// way ("\u0073ha256:…") is a change of the file.
		if int(dec.InputOffset()) != len(raw) || !bytes.Equal(raw, AppendString(nil, v)) {
			return nil, fmt.Errorf("the member %q is not written as krmplan writes it", name)
		}
		h.Write(rest[:start])
		h.Write([]byte(`""`))
		rest = rest[start+len(raw):]
		values = append(values, v)
	}
	h.Write(rest)
	return values, nil
}

// notInHead is sumEmptyTo's refusal of a file where the member names[k]
// is not within headBytes of the file's start or of the member before it,
// where Marshal writes it: `the member "plan_id" is not in the file's
// first 256 bytes, where krmplan writes it`.
func notInHead(names []string, k int) error {
	if k == 0 {
		return fmt.Errorf("the member %q is not in the file's first %d bytes, where krmplan writes it", names[0], headBytes)
	}
	return fmt.Errorf("the member %q is not in the %d bytes after the member %q, where krmplan writes it", names[k], headBytes, names[k-1])
}

// Fingerprint is what SumEmpty found in a file: the sum, and the values of
// the fingerprint's members as the file holds them.
type Fingerprint struct {
	Sum    string
	Values []string
	Err    error // the file's head is not as Marshal writes it
}

// Holds reports whether the file's members hold exactly values (what the
// decoder read), so that the sum is of the very bytes decoded.
func (f Fingerprint) Holds(values ...string) bool {
	return f.Err == nil && slices.Equal(f.Values, values)
}

// DecodeSummed is DecodeStrict of b into v, and SumEmpty of b over the
// named members, worked out on another core meanwhile: checking a file's
// fingerprint then costs no time of its own.
func DecodeSummed(b []byte, v any, names ...string) (Fingerprint, error) {
	return decodeSummed(func() error { return DecodeStrict(b, v) }, func() (string, []string, error) { return SumEmpty(b, names...) })
}

// DecodeLinesSummed is DecodeSummed with DecodeLines: for a file of
// MarshalLines, whose big lists are decoded on every core.
func DecodeLinesSummed(b []byte, v any, names ...string) (Fingerprint, error) {
	return decodeSummed(func() error { return DecodeLines(b, v) }, func() (string, []string, error) { return SumEmpty(b, names...) })
}

// decodeSummed runs decode, and sum on another core meanwhile: the
// fingerprint sum gives, and decode's error.
func decodeSummed(decode func() error, sum func() (string, []string, error)) (Fingerprint, error) {
	var f Fingerprint
	summed := make(chan struct{})
	go func() {
		defer close(summed)
		f.Sum, f.Values, f.Err = sum()
	}()
	err := decode()
	<-summed
	return f, err
}

// Sum is the hex sha256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// headBytes is how far into a file (past the previous member) Overwrite
// and SumEmpty look for a member: past the few short members krmplan's files
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

// Plain reports whether s can stand between two quotes in JSON as it
// is: printable ASCII without a quote or a backslash, as JSON pointers
// and most quota texts are.
func Plain[T string | []byte](s T) bool {
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
	if Plain(s) {
		return append(append(append(b, '"'), s...), '"')
	}
	var w bytes.Buffer
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(w.Bytes(), []byte("\n"))...)
}
