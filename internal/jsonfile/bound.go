package jsonfile

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The memory of a decoding is bounded by the bytes decoded. The engine
// makes an element of a list before it reads it, as large as its Go type
// (a project is 152 bytes), and grows the list as it goes (each growth a
// new array, a quarter larger); the text of an element may be as short as
// "{}". A list of millions of them (a hostile state.json of 1 GB: 333
// million) would take a hundred times the file's bytes. So each element
// of the lists of krmplan's files is read through Element, which counts
// the bytes of the elements made in the decoding so far, and refuses the
// file once they are more than ElementBytesPerByte times the bytes read
// (past a first allowance, elementSlack): the error names the element
// where it stopped. A real file is far below it (a state of 10,000
// projects holds 0.3 bytes of elements per byte).

// ElementBytesPerByte is how many bytes of list elements a decoding may
// make per byte of the file read so far (after elementSlack).
const ElementBytesPerByte = 1

// elementSlack is the bytes of elements a decoding may make whatever its
// size, so that a small file (or one element of a file, decoded on its
// own) is never refused for a few short elements: 64 kB.
const elementSlack = 64 << 10

// budget is the bytes of elements made so far in one decoding.
type budget struct{ made int64 }

// budgets holds the budget of each decoding under way, by its decoder.
var budgets sync.Map // *jsontext.Decoder → *budget

// decoders are the decoders of decodeBounded, kept for the next decoding
// once one is done: the lists of a state are decoded element by element on
// every core, tens of thousands of decodings, each of which would
// otherwise make a decoder and enter it in budgets. A decoder is entered
// in budgets once, when it is made, and never dropped (as a sync.Pool
// would at a collection, leaving its entry behind): there are as many as
// decodings run at once.
var decoders struct {
	sync.Mutex
	free []*pooledDecoder
}

type pooledDecoder struct {
	buf bytes.Buffer
	dec jsontext.Decoder
	b   budget
}

func getDecoder() *pooledDecoder {
	decoders.Lock()
	defer decoders.Unlock()
	if n := len(decoders.free); n > 0 {
		p := decoders.free[n-1]
		decoders.free = decoders.free[:n-1]
		return p
	}
	p := &pooledDecoder{}
	budgets.Store(&p.dec, &p.b)
	return p
}

func putDecoder(p *pooledDecoder) {
	p.buf = bytes.Buffer{} // the file's bytes are not kept
	p.dec.Reset(&p.buf)
	decoders.Lock()
	defer decoders.Unlock()
	decoders.free = append(decoders.free, p)
}

// decodeBounded is jsonv2.Unmarshal of b into v with opts, with the
// elements that Element reads counted against the bytes read.
func decodeBounded(b []byte, v any, opts ...jsonv2.Options) error {
	p := getDecoder()
	defer putDecoder(p)
	p.buf = *bytes.NewBuffer(b) // read in place: the decoder parses the buffer's bytes
	p.dec.Reset(&p.buf, opts...)
	p.b = budget{}
	err := jsonv2.UnmarshalDecode(&p.dec, v, opts...)
	switch {
	case err == io.EOF: // no document at all: jsonv2.Unmarshal's words for it
		return jsonv2.Unmarshal(b, v, opts...)
	case err != nil:
		return err
	}
	if _, err = p.dec.ReadToken(); err == io.EOF {
		return nil
	}
	// Something after the document: jsonv2.Unmarshal's words for it (it
	// skips the document, which has read, and reads what follows).
	return jsonv2.Unmarshal(b, &struct{}{}, append(opts, jsonv2.RejectUnknownMembers(false))...)
}

// Element decodes the element of a list that dec is at into v, for the
// UnmarshalJSONFrom method of the element's type: v is the element as a
// type of the same fields without the method (`type fields Project`),
// which the engine reads as a struct. Then check says what is wrong with
// the element, nil when nothing is, in the words of its file ("the
// project has no metadata.name"); the engine puts the line and the
// element's JSON pointer in front. Once dec's decoding has made more
// bytes of elements than ElementBytesPerByte times its bytes read (after
// elementSlack), the element is refused (*TooManyError) before it is read.
func Element[F any](dec *jsontext.Decoder, v *F, check func() error) error {
	if b, ok := budgets.Load(dec); ok {
		bud := b.(*budget)
		bud.made += int64(unsafe.Sizeof(*v))
		if read := dec.InputOffset(); bud.made > ElementBytesPerByte*read+elementSlack {
			return &TooManyError{Made: bud.made, Read: read}
		}
	}
	if err := jsonv2.UnmarshalDecode(dec, v); err != nil {
		return err
	}
	if check == nil {
		return nil
	}
	return check()
}

// TooManyError is the refusal of a file whose lists hold more elements
// than its bytes allow (Element).
type TooManyError struct {
	Made, Read int64 // bytes of elements made, bytes of the file read
}

func (e *TooManyError) Error() string {
	return fmt.Sprintf("the file's lists hold %d bytes of elements in its first %d bytes, more than krmplan reads (%d per byte, after the first %d kB): "+
		"a list of short elements such as {} would take many times the file's size in memory", e.Made, e.Read, ElementBytesPerByte, elementSlack>>10)
}
