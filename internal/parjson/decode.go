package parjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"sync"
)

// minSplitBytes is the size from which the JSON of a slice is decoded in
// chunks.
var minSplitBytes = 1 << 20 // a variable for the tests

// errSlow sends Decode back to encoding/json: something the fast path does
// not handle exactly as it does.
var errSlow = errors.New("parjson: not on the fast path")

// Decode is what json.NewDecoder(bytes.NewReader(data)).Decode(v) does,
// with DisallowUnknownFields when strict, on every core: the first JSON
// value of data is decoded into v, a pointer to a zero value, and what
// follows it is not read. The top-level object, and the objects of plain struct fields in
// it, are read key by key; each value is decoded on its own, and a long
// array of structs in chunks, all at the same time. Any key that is not
// exactly a field's name, or any error, sends the whole decoding to
// encoding/json, so that errors (their text and offsets) and every rule of
// encoding/json are its own.
func Decode(data []byte, v any, strict bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && decodable(rv.Elem().Type()) {
		d := &decoder{data: data, strict: strict}
		i := skipSpace(data, 0)
		if _, err := d.object(i, rv.Elem()); err == nil {
			if err = d.run(); err == nil {
				return nil
			}
			rv.Elem().SetZero() // start again from the zero value
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	return dec.Decode(v)
}

type decoder struct {
	data   []byte
	strict bool
	jobs   []decodeJob
}

// decodeJob decodes data[from:to] into v; a chunk of a slice's elements
// is decoded into a new slice, which run appends to v in order.
type decodeJob struct {
	from, to int
	v        reflect.Value // where to decode (addressable)
	chunk    bool
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodable reports whether the object of a t is read key by key: a plain
// struct without methods of its own for decoding.
func decodable(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Kind() == reflect.Struct && plainStruct(t) && !pt.Implements(unmarshalerType) && !pt.Implements(textUnmarshalerType)
}

// object reads the object at data[i] into the plain struct v (which must
// be zero where it is not written) and returns the offset after it.
func (d *decoder) object(i int, v reflect.Value) (int, error) {
	data := d.data
	if i >= len(data) || data[i] != '{' {
		return 0, errSlow
	}
	fields := map[string]field{}
	for _, f := range plainFields(v.Type()) {
		fields[f.name] = f
	}
	seen := map[string]bool{}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		// A key: a string without escapes that is exactly one field's name.
		if i >= len(data) || data[i] != '"' {
			return 0, errSlow
		}
		end := bytes.IndexByte(data[i+1:], '"')
		if end < 0 {
			return 0, errSlow
		}
		key := string(data[i+1 : i+1+end])
		f, ok := fields[key]
		if !ok || seen[key] || bytes.IndexByte(data[i+1:i+1+end], '\\') >= 0 {
			return 0, errSlow
		}
		seen[key] = true
		i = skipSpace(data, i+end+2)
		if i >= len(data) || data[i] != ':' {
			return 0, errSlow
		}
		i = skipSpace(data, i+1)
		fv := v.Field(f.index)
		var err error
		if i, err = d.value(i, fv); err != nil {
			return 0, err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return 0, errSlow
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSlow
		}
	}
}

// value lays out the decoding of the value at data[i] into fv and returns
// the offset after it.
func (d *decoder) value(i int, fv reflect.Value) (int, error) {
	data := d.data
	if i < len(data) && data[i] == '{' && decodable(fv.Type()) {
		return d.object(i, fv)
	}
	end, err := skipValue(data, i)
	if err != nil {
		return 0, err
	}
	if data[i] == '[' && end-i >= minSplitBytes && fv.Kind() == reflect.Slice && plainElem(fv.Type().Elem()) {
		return end, d.array(i, end, fv)
	}
	d.jobs = append(d.jobs, decodeJob{from: i, to: end, v: fv})
	return end, nil
}

// array cuts the array data[from:to] into chunks of whole elements.
func (d *decoder) array(from, to int, fv reflect.Value) error {
	data := d.data
	var starts []int // offset of each element
	i := skipSpace(data, from+1)
	if data[i] != ']' {
		for {
			starts = append(starts, i)
			end, err := skipValue(data, i)
			if err != nil {
				return err
			}
			i = skipSpace(data, end)
			if data[i] == ']' {
				break
			}
			if data[i] != ',' {
				return errSlow
			}
			i = skipSpace(data, i+1)
		}
	}
	fv.Set(reflect.MakeSlice(fv.Type(), 0, len(starts)))
	chunks := max(1, min(4*runtime.GOMAXPROCS(0), len(starts)/64))
	for c := 0; c < chunks; c++ {
		a, b := c*len(starts)/chunks, (c+1)*len(starts)/chunks
		if a == b {
			continue
		}
		end := to - 1 // the closing ]
		if b < len(starts) {
			end = starts[b] // up to the next element (its comma is dropped below)
		}
		d.jobs = append(d.jobs, decodeJob{from: starts[a], to: end, v: fv, chunk: true})
	}
	return nil
}

// run does the jobs on every core, then appends the chunks of each slice
// in order.
func (d *decoder) run() error {
	out := make([]reflect.Value, len(d.jobs))
	errs := make([]error, len(d.jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(d.jobs)); w++ {
		wg.Go(func() {
			for k := range next {
				out[k], errs[k] = d.do(d.jobs[k])
			}
		})
	}
	for k := range d.jobs {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for k, j := range d.jobs {
		if out[k].IsValid() {
			j.v.Set(reflect.AppendSlice(j.v, out[k]))
		}
	}
	return nil
}

// do decodes one job: a whole value into its field, or a chunk of
// elements into a new slice, which it returns.
func (d *decoder) do(j decodeJob) (reflect.Value, error) {
	src := d.data[j.from:j.to]
	var into reflect.Value
	if j.chunk {
		// Elements a, b, c, (up to the next element or the closing bracket):
		// decode "[" + elements + "]" without the last comma.
		src = bytes.TrimRight(src, " \t\r\n")
		src = bytes.TrimSuffix(src, []byte(","))
		buf := make([]byte, 0, len(src)+2)
		buf = append(append(append(buf, '['), src...), ']')
		src = buf
		into = reflect.New(j.v.Type())
	} else {
		into = j.v.Addr()
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	if d.strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(into.Interface()); err != nil {
		return reflect.Value{}, err
	}
	if dec.More() || skipSpace(src, int(dec.InputOffset())) != len(src) {
		return reflect.Value{}, errSlow
	}
	if j.chunk {
		return into.Elem(), nil
	}
	return reflect.Value{}, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset after the JSON value at data[i]: a string,
// an object or array (matching brackets, strings skipped), or a literal.
// It does not validate; the decoding of the value does.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errSlow
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, err := skipString(data, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errSlow
	}
	start := i
	for i < len(data) && bytes.IndexByte([]byte(",]} \t\r\n"), data[i]) < 0 {
		i++
	}
	if i == start {
		return 0, errSlow
	}
	return i, nil
}

// skipString returns the offset after the string that starts at data[i].
func skipString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); {
		k := bytes.IndexAny(data[j:], `"\`)
		if k < 0 {
			return 0, errSlow
		}
		j += k
		if data[j] == '\\' {
			j += 2
			continue
		}
		return j + 1, nil
	}
	return 0, errSlow
}
