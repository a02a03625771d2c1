package jsonfile

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// bigList is a top-level list of a value being written, long enough to
// be encoded in pieces.
type bigList struct {
	topList
	list reflect.Value // the slice
}

// encodeSize is a guess of the bytes an element of a list encodes to,
// to tell a big list from a small one without encoding it.
const encodeSize = 256

// marshalLinesParallel is MarshalLines for a struct with big top-level
// lists: the skeleton (the struct with each big list cut to its first
// element) is written as MarshalLines writes it, the lists' elements are
// encoded in pieces on every core, and each list's first element in the
// skeleton is replaced by the lines of all of them (laid out as the file
// is written: Lines). Compact JSON has no newline, so the skeleton's
// "\n  \"name\": [\n" is the member's own line.
func marshalLinesParallel(rv reflect.Value, ptr bool, big []bigList) (*Lines, error) {
	sk := reflect.New(rv.Type())
	sk.Elem().Set(rv)
	for _, l := range big {
		sk.Elem().FieldByIndex(l.index).Set(l.list.Slice(0, 1))
	}
	v := sk.Interface()
	if !ptr {
		v = sk.Elem().Interface()
	}
	head, err := marshalLinesSeq(v)
	if err != nil {
		return nil, err
	}
	type cut struct{ start, end, list int }
	cuts := make([]cut, len(big))
	for i, l := range big {
		key := append(AppendString([]byte("\n  "), l.name), ": [\n"...)
		at := bytes.Index(head, key)
		if at < 0 {
			return nil, fmt.Errorf("jsonfile: the member %q is not a list of its own lines", l.name)
		}
		start := at + len(key)
		end := bytes.Index(head[start:], []byte("\n  ]"))
		if end < 0 {
			return nil, fmt.Errorf("jsonfile: the member %q is not a list of its own lines", l.name)
		}
		cuts[i] = cut{start, start + end, i}
	}
	pieces, err := encodePieces(big)
	if err != nil {
		return nil, err
	}
	size := len(head)
	for _, c := range cuts {
		size += 5*big[c.list].list.Len() - 2 - (c.end - c.start)
		for _, p := range pieces[c.list] {
			for _, chunk := range p {
				size += len(chunk)
			}
		}
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.start - b.start })
	l := &Lines{size: size}
	at := 0
	for _, c := range cuts {
		l.segs = append(l.segs, segment{raw: head[at:c.start]}, segment{pieces: pieces[c.list]})
		at = c.end
	}
	l.segs = append(l.segs, segment{raw: head[at:]})
	return l, nil
}

// encodePieces encodes the elements of each big list in pieces on every
// core: pieces[i] are the pieces of big[i], in order, each its elements'
// compact JSON (what MarshalLines writes of them) one to a line, in
// chunks (which are never copied to grow).
func encodePieces(big []bigList) ([][]chunks, error) {
	total := 0
	for _, l := range big {
		total += l.list.Len()
	}
	per := max(1, total/(runtime.GOMAXPROCS(0)*piecesPerCore))
	type job struct{ list, piece, from, to int }
	var jobs []job
	pieces := make([][]chunks, len(big))
	for i, l := range big {
		n := l.list.Len()
		k := (n + per - 1) / per
		pieces[i] = make([]chunks, k)
		for p := range k {
			jobs = append(jobs, job{i, p, p * n / k, (p + 1) * n / k})
		}
	}
	errs := make([]error, len(jobs))
	eachPiece(len(jobs), func(k int) bool {
		j := jobs[k]
		var buf chunks
		enc := jsontext.NewEncoder(&buf, jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false))
		list := big[j.list].list
		for e := j.from; e < j.to; e++ {
			if errs[k] = jsonv2.MarshalEncode(enc, list.Index(e).Addr().Interface(), jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false)); errs[k] != nil {
				return false
			}
		}
		pieces[j.list][j.piece] = buf // the encoder writes out each top-level value whole
		return true
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return pieces, nil
}

// bigLists are the top-level lists of the struct rv that are worth
// encoding in pieces.
func bigLists(rv reflect.Value) []bigList {
	var out []bigList
	for _, l := range topLists(rv.Type()) {
		f := rv.FieldByIndex(l.index)
		if f.Len() >= 2 && f.Len()*encodeSize >= parallelMin {
			out = append(out, bigList{topList: l, list: f})
		}
	}
	return out
}
