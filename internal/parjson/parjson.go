// Package parjson encodes large values as encoding/json does, byte for
// byte, on every core. krmplan's state.json and plan.json hold one element
// per object of the tenancy, with the position of every value; at tens of
// thousands of projects encoding them is most of a snapshot's time. Here
// the long slices inside structs are cut into chunks that encoding/json
// marshals at the same time, and the pieces are joined in order, into one
// buffer of the exact size (Marshal) or straight into a hash (Sum256).
//
// Only what encoding/json does the same way piece by piece is cut: structs
// whose fields are plain (named by a json tag or their Go name, options
// only "omitempty", nothing embedded, no marshaling methods), and slices of
// structs. Everything else is handed to encoding/json whole.
package parjson

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/json"
	"hash"
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// minSplit is the length from which a slice is cut into chunks.
const minSplit = 512

// Marshal returns the JSON of v. Compact, it is json.Marshal(v): HTML
// characters escaped. Pretty, it is what a json.Encoder with
// SetEscapeHTML(false) and SetIndent("", "  ") writes: two-space indents,
// HTML characters as they are, and a final newline.
func Marshal(v any, pretty bool) ([]byte, error) {
	p, err := plan(v, pretty)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, p.size())
	for _, b := range p.parts {
		out = append(out, b...)
	}
	return out, nil
}

// Sum256 returns the sha256 of json.Marshal(v), without holding those
// bytes in one piece.
func Sum256(v any) ([32]byte, error) {
	var sum [32]byte
	p, err := plan(v, false)
	if err != nil {
		return sum, err
	}
	h := sha256.New()
	p.write(h)
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// encoder is the JSON of one value as a list of parts: literal text, and
// the output of jobs that run on all cores before the parts are joined.
type encoder struct {
	pretty bool
	parts  [][]byte
	jobs   []job
}

// job marshals one value (or a chunk of a slice) into parts[slot].
type job struct {
	slot  int
	v     reflect.Value
	depth int  // nesting depth of the value, for the indentation
	inner bool // a chunk of a slice: keep only the elements, without [ ]
}

func plan(v any, pretty bool) (*encoder, error) {
	e := &encoder{pretty: pretty}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		e.value(rv.Elem(), 0) // addressable, as encoding/json sees it
	} else {
		e.later(rv, 0, false) // not addressable anywhere: encoding/json does it whole
	}
	if pretty {
		e.lit("\n")
	}
	if err := e.run(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *encoder) size() int {
	n := 0
	for _, b := range e.parts {
		n += len(b)
	}
	return n
}

func (e *encoder) write(h hash.Hash) {
	for _, b := range e.parts {
		h.Write(b)
	}
}

func (e *encoder) lit(s string) { e.parts = append(e.parts, []byte(s)) }

func (e *encoder) later(v reflect.Value, depth int, inner bool) {
	e.jobs = append(e.jobs, job{slot: len(e.parts), v: v, depth: depth, inner: inner})
	e.parts = append(e.parts, nil)
}

func indent(depth int) string { return strings.Repeat("  ", depth) }

// value lays out the addressable v at the given depth.
func (e *encoder) value(v reflect.Value, depth int) {
	switch {
	case v.Kind() == reflect.Struct && plainStruct(v.Type()):
		e.structFields(v, depth)
	case v.Kind() == reflect.Slice && v.Len() >= minSplit && plainElem(v.Type().Elem()):
		e.slice(v, depth)
	default:
		e.later(v, depth, false)
	}
}

func (e *encoder) structFields(v reflect.Value, depth int) {
	fields := plainFields(v.Type())
	n := 0
	for _, f := range fields {
		fv := v.Field(f.index)
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		switch {
		case n == 0 && e.pretty:
			e.lit("{\n" + indent(depth+1) + `"` + f.name + `": `)
		case n == 0:
			e.lit(`{"` + f.name + `":`)
		case e.pretty:
			e.lit(",\n" + indent(depth+1) + `"` + f.name + `": `)
		default:
			e.lit(`,"` + f.name + `":`)
		}
		e.value(fv, depth+1)
		n++
	}
	switch {
	case n == 0:
		e.lit("{}")
	case e.pretty:
		e.lit("\n" + indent(depth) + "}")
	default:
		e.lit("}")
	}
}

// slice lays out a long slice as chunks marshaled on their own: the JSON
// of a slice is its elements' JSON, joined.
func (e *encoder) slice(v reflect.Value, depth int) {
	n := v.Len()
	chunks := max(1, min(4*runtime.GOMAXPROCS(0), n/(minSplit/4)))
	if e.pretty {
		e.lit("[\n")
	} else {
		e.lit("[")
	}
	for c := 0; c < chunks; c++ {
		if c > 0 {
			if e.pretty {
				e.lit(",\n")
			} else {
				e.lit(",")
			}
		}
		e.later(v.Slice(c*n/chunks, (c+1)*n/chunks), depth, true)
	}
	if e.pretty {
		e.lit("\n" + indent(depth) + "]")
	} else {
		e.lit("]")
	}
}

// run does the jobs on every core.
func (e *encoder) run() error {
	var (
		wg    sync.WaitGroup
		next  = make(chan int)
		mu    sync.Mutex
		first error
	)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(e.jobs)); w++ {
		wg.Go(func() {
			for i := range next {
				b, err := e.do(e.jobs[i])
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					continue
				}
				e.parts[e.jobs[i].slot] = b
			}
		})
	}
	for i := range e.jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

func (e *encoder) do(j job) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(!e.pretty)
	// A value is encoded through its address when it has one, as encoding/json
	// does inside its parent (methods on pointer receivers count only then).
	// A chunk is a slice: its elements are addressable, as in the whole.
	var x any
	switch v := j.v; {
	case !v.IsValid():
		x = nil
	case !j.inner && v.CanAddr():
		x = v.Addr().Interface()
	default:
		x = v.Interface()
	}
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if e.pretty {
		var ind bytes.Buffer
		ind.Grow(len(out) + len(out)/2)
		if err := json.Indent(&ind, out, indent(j.depth), "  "); err != nil {
			return nil, err
		}
		out = ind.Bytes()
		if j.inner { // "[\n<elements>\n<indent>]" → "<elements>"
			out = out[2 : len(out)-len(indent(j.depth))-2]
		}
		return out, nil
	}
	if j.inner { // "[<elements>]" → "<elements>"
		out = out[1 : len(out)-1]
	}
	return out, nil
}

// field is a struct field as encoding/json writes it.
type field struct {
	index     int
	name      string
	omitEmpty bool
}

var (
	cacheMu sync.Mutex
	cache   = map[reflect.Type][]field{} // nil value: not plain
)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// plainStruct reports whether encoding/json writes t's fields one after
// the other, each as its own value would be written: no embedded field,
// no marshaling method, tags with a plain name and at most "omitempty".
func plainStruct(t reflect.Type) bool { return plainFields(t) != nil }

func plainFields(t reflect.Type) []field {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if fs, ok := cache[t]; ok {
		return fs
	}
	fs := []field{}
	pt := reflect.PointerTo(t)
	if t.Implements(marshalerType) || pt.Implements(marshalerType) || t.Implements(textMarshalerType) || pt.Implements(textMarshalerType) {
		fs = nil
	}
	seen := map[string]bool{}
	for i := 0; fs != nil && i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			fs = nil
			break
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) || (opts != "" && opts != "omitempty") || seen[name] {
			fs = nil
			break
		}
		seen[name] = true
		fs = append(fs, field{index: i, name: name, omitEmpty: opts == "omitempty"})
	}
	cache[t] = fs
	return fs
}

// plainElem reports whether a slice of t may be cut into chunks: its
// elements are structs (or pointers to them), written independently.
func plainElem(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// plainName is a key that encoding/json writes as it is.
func plainName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
