package jsonfile

import (
	"strconv"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Lists of strings or numbers and maps cost more than their text too: a
// "" of a list of paths is 3 bytes of text and a 16-byte string made (and
// the list grown for it); an entry "a":"" of a map of labels is 7 bytes
// and a slot of 32 in a Go map that doubles as it grows. A hostile state
// of a million such elements took 31 to 34 times its bytes, a list of
// short structs that the engine makes (an other document's patches, a
// profile's reminders, a managed-nodes term's expressions) 48 to 206. So
// they are decoded through List and Map, which count each element as
// Element does, in the same budget: List its size, Map its key's and
// value's (mapEntryBytes). The most a file may then allocate is about 5
// times its bytes for lists (of strings, or of structs through Element,
// at 1 byte of elements per byte of text, as before for the latter) and
// 9 to 12 for maps (measured on state.json: 64-entry maps of 16 bytes an
// entry, one map of 32 bytes an entry); a real state allocates 1.5.

// List decodes the JSON array that dec is at into *v one element at a
// time, counting each element's size against the bytes read (Element's
// budget): past it, the element is refused (*TooManyError, at the
// element's JSON pointer) before it is made. null, [] and anything else
// read as the engine reads a []E: nil, an empty list, the engine's error.
// For the UnmarshalJSONFrom of a list type, or the options of a decoding
// (boundedLists, for the lists of Go's own types, which have no methods).
func List[E any](dec *jsontext.Decoder, v *[]E) error {
	if dec.PeekKind() != '[' {
		return jsonv2.UnmarshalDecode(dec, (*plainList[E])(v))
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	bud := budgetOf(dec)
	size := int64(unsafe.Sizeof(*new(E)))
	s := []E{} // [] is an empty list, not nil, as the engine reads it
	for dec.PeekKind() != ']' {
		if err := bud.charge(dec, size); err != nil {
			return &jsonv2.SemanticError{JSONPointer: elementPointer(dec, len(s)), Err: err}
		}
		s = append(s, *new(E))
		if err := jsonv2.UnmarshalDecode(dec, &s[len(s)-1]); err != nil {
			*v = s // as far as read, as the engine leaves it
			return err
		}
	}
	*v = s
	_, err := dec.ReadToken()
	return err
}

// elementPointer is the JSON pointer of the i-th element of the list
// that dec is in: the list's own, past its last element read.
func elementPointer(dec *jsontext.Decoder, i int) jsontext.Pointer {
	p := dec.StackPointer() // the last element read, or the list
	if i > 0 {
		p = p.Parent()
	}
	return p.AppendToken(strconv.Itoa(i))
}

// Map decodes the JSON object that dec is at into *v (a new map when *v is
// nil) one entry at a time, counting each entry (mapEntryBytes) against
// the bytes read as List does: past the budget, the entry is refused
// (*TooManyError, at its JSON pointer) once its key is read. null and
// anything else read as the engine reads a map[K]V; a key given twice is
// the decoder's error, as for any object of a strict decoding.
func Map[K comparable, V any](dec *jsontext.Decoder, v *map[K]V) error {
	if dec.PeekKind() != '{' {
		return jsonv2.UnmarshalDecode(dec, (*plainMap[K, V])(v))
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	bud := budgetOf(dec)
	slot := int64(unsafe.Sizeof(*new(K)) + unsafe.Sizeof(*new(V)))
	if *v == nil {
		*v = map[K]V{}
	}
	var k K // one key and one value for all entries: each is made on the heap
	var e V
	for n := 0; dec.PeekKind() != '}'; n++ {
		k, e = *new(K), *new(V)
		if err := jsonv2.UnmarshalDecode(dec, &k); err != nil {
			return err
		}
		if err := bud.charge(dec, mapEntryBytes(n, slot)); err != nil {
			return &jsonv2.SemanticError{JSONPointer: dec.StackPointer(), Err: err}
		}
		err := jsonv2.UnmarshalDecode(dec, &e)
		(*v)[k] = e // even when it fails, as the engine does
		if err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// mapEntryBytes is what Map counts for the n-th entry (from 0) of a map
// whose key and value take slot bytes: half of it for each of the first
// mapSmall entries, all of it past them. An entry costs Go about ten
// times its slot (the map's groups of 8, at most 7 full, each growth a
// new table, and the names of the object the decoder keeps to find one
// given twice), and more past 64 (the decoder then indexes the names in
// a map of their own): 170 bytes an entry of string to string in a map of
// 64 entries, 280 to 330 in a bigger one. Real maps are small and their
// entries long (a node's labels: 20 to 40 of 25 to 60 bytes of text, two
// lists of its resources, "cpu":"96"), and a cluster's nodes counted at
// whole slots come to 0.94 bytes per byte, so near the bound that a real
// cluster could be refused: at half, 0.5. A hostile map of short entries
// is refused at one entry per 16 bytes of text (small maps) or per 32
// (a big one): at most 9 and 12 times the file's bytes allocated.
func mapEntryBytes(n int, slot int64) int64 {
	if n < mapSmall {
		return slot / 2
	}
	return slot
}

// mapSmall is how many entries of a map count half (mapEntryBytes).
const mapSmall = 64

// plainList and plainMap are []E and map[K]V without List's and Map's
// counting (a type of their own, which no option and no method names),
// for what the engine reads of them as it reads any list or map.
type (
	plainList[E any]              []E
	plainMap[K comparable, V any] map[K]V
)

// boundedLists are the options of a bounded decoding that read the lists
// and maps of Go's own types through List and Map: those of krmplan's
// files (paths, default node pools, a selector's values, a step's
// changes; labels, gitops keys, live usage, variables). Lists and maps of
// krmplan's types read themselves through List, Map or Element.
var boundedLists = jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
	jsonv2.UnmarshalFromFunc(List[string]),
	jsonv2.UnmarshalFromFunc(List[int]),
	jsonv2.UnmarshalFromFunc(Map[string, string]),
))
