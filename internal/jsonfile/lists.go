package jsonfile

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/krmplan/krmplan/internal/cores"
)

// The top-level lists of a file (a state's projects, departments, nodes,
// live Queues, namespaces) hold nearly all of its bytes. MarshalLines and
// DecodeLines work on their elements on every core, in pieces, and on the
// rest of the file (the skeleton: the file with those lists cut down) as
// encoding/json does: the same bytes, the same values, the same errors.

// parallelMin is the size in bytes from which a top-level list is worked
// on in pieces on every core: below it, starting the workers costs more
// than they save. A variable so that the tests reach the parallel path
// with small files.
var parallelMin = 64 << 10

// topList is an exported field of a struct type that encoding/json writes
// as a top-level member holding a list: an unnamed slice type (a named
// one may have its own JSON methods) with a name in its json tag,
// directly or through embedded structs, which encoding/json inlines.
type topList struct {
	name  string
	index []int // reflect's field index path
}

var topListsOf sync.Map // reflect.Type → []topList

// topLists lists the top-level list members of struct type t, in field
// order; none when t or *t reads or writes itself (its own JSON methods
// decide its members, not its fields). A name that two fields could
// have (at different depths of embedding, where encoding/json's rules
// pick one) is left out.
func topLists(t reflect.Type) []topList {
	if l, ok := topListsOf.Load(t); ok {
		return l.([]topList)
	}
	var out []topList
	if !ownJSON(t) {
		names := map[string]int{}
		for _, l := range appendTopLists(nil, names, t, nil) {
			if names[l.name] == 1 {
				out = append(out, l)
			}
		}
	}
	topListsOf.Store(t, out)
	return out
}

// appendTopLists appends the list fields of t (at path) to out, and counts
// the names of all its members in names.
func appendTopLists(out []topList, names map[string]int, t reflect.Type, path []int) []topList {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), path...), i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && !hasTag && ft.Kind() == reflect.Struct {
			inner := appendTopLists(nil, names, ft, idx)
			if f.Type.Kind() == reflect.Struct && !ownJSON(ft) {
				out = append(out, inner...)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		names[name]++
		if hasTag && Plain(name) && f.Type.Kind() == reflect.Slice && f.Type.Name() == "" && f.Type.Elem().Kind() != reflect.Uint8 {
			out = append(out, topList{name: name, index: idx})
		}
	}
	return out
}

// ownJSON reports whether values of t (or *t) marshal or unmarshal
// themselves.
func ownJSON(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	for _, m := range []string{"MarshalJSON", "MarshalJSONTo", "MarshalText", "UnmarshalJSON", "UnmarshalJSONFrom", "UnmarshalText"} {
		if _, ok := p.MethodByName(m); ok {
			return true
		}
	}
	return false
}

// structOf is the struct that v is or points to, whether v points to it,
// and whether there is one.
func structOf(v any) (rv reflect.Value, ptr, ok bool) {
	rv = reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv, ptr = rv.Elem(), true
	}
	return rv, ptr, rv.Kind() == reflect.Struct
}

// eachPiece runs work(k) for k in [0, n) on every core (cores.Each); once
// a piece fails, the pieces not yet started are skipped. It reports
// whether every piece ran and returned true.
func eachPiece(n int, work func(k int) bool) bool {
	var failed atomic.Bool
	cores.Each(n, func(k int) {
		if !failed.Load() && !work(k) {
			failed.Store(true)
		}
	})
	return !failed.Load()
}

// piecesPerCore is how many pieces each core gets of a file's lists, so
// that a core that finishes early (or shares the machine) takes more.
const piecesPerCore = 4
