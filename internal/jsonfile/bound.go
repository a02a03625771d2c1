package jsonfile

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
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
// of the lists of krmplan's files is read through Element (or
// ElementJSON; the lists and maps of strings and numbers through List and
// Map), which counts the bytes of the elements made in the decoding so
// far, and refuses the file once they are more than ElementBytesPerByte
// times the bytes read (past a first allowance, elementSlack): the error
// names the element where it stopped. One budget for a file, even when
// its parts are decoded apart (pieces). A real file is far below it (a
// state of 10,000 projects holds 0.33 bytes of elements per byte, its
// cluster data 0.45).

// ElementBytesPerByte is how many bytes of list elements a decoding may
// make per byte of the file read so far (after elementSlack).
const ElementBytesPerByte = 1

// elementSlack is the bytes of elements a decoding may make whatever its
// size, so that a small file (or one element of a file, decoded on its
// own) is never refused for a few short elements: 64 kB.
const elementSlack = 64 << 10

// budget is the bytes of elements made so far in one decoding, and the
// pieces of the file it belongs to when it decodes one of them.
type budget struct {
	made  int64
	peak  int64 // the most made beyond what the bytes read allow, at any charge (0 at least)
	whole *pieces
}

// pieces is the budget of a file whose parts are decoded apart, on every
// core (DecodeLines: each element of its big lists, and the rest): the
// bytes of elements its parts decoded so far made beyond what their
// bytes allow (negative: less). A part may make what its own bytes allow
// and what elementSlack leaves once that is drawn, so that the file as a
// whole is bounded as if read in one decoding (but for the parts being
// read at the moment, each of which may be up to elementSlack over),
// not each part of it with a slack of its own. That bounds the memory;
// whether the file is refused is one decoding's verdict (inBudget).
type pieces struct{ over atomic.Int64 }

// partsAtOnce, for tests, has no part of a file see what the others made,
// as when every part is decoded at the same moment (the most that cores
// running at once can let through): whether the verdict depends on it.
var partsAtOnce bool

// done adds to p what the decoding of a part of read bytes made.
func (p *pieces) done(b *budget, read int) {
	if p != nil && !partsAtOnce {
		p.over.Add(b.made - ElementBytesPerByte*int64(read))
	}
}

// part is a part of a file decoded apart (decodeCuts): the file's pieces,
// and what the part's decoding made, read and, at its peak, made beyond
// what its bytes allowed.
type part struct {
	whole            *pieces
	made, read, peak int64
}

// inBudget reports whether one decoding of the file from its start would
// have kept within the budget too, judged from what its parts made: the
// skeleton's elements all counted first and its bytes not at all, and
// each element's peak on what the elements before it left, in file order,
// which never allows more than that decoding does. The parts' own
// decodings each had the slack that the others had not drawn when they
// ran, which depends on the cores and how they ran; with this the verdict
// is that of one decoding, whatever they were: a file refused here is read
// again from its start (DecodeStrict), which decides, in its words.
func inBudget(skeleton part, elements [][]part) bool {
	run := skeleton.made
	for _, list := range elements {
		for _, e := range list {
			if run+e.peak > elementSlack {
				return false
			}
			run += e.made - ElementBytesPerByte*e.read
		}
	}
	return true
}

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
// elements that Element, List and Map read counted against the bytes read
// (and, for a part of a file, against its pieces' balance, and what it
// made kept in pt; pt is nil for a whole file).
func decodeBounded(b []byte, v any, pt *part, opts ...jsonv2.Options) error {
	p := getDecoder()
	defer putDecoder(p)
	p.buf = *bytes.NewBuffer(b) // read in place: the decoder parses the buffer's bytes
	p.dec.Reset(&p.buf, opts...)
	p.b = budget{}
	if pt != nil {
		p.b.whole = pt.whole
	}
	err := jsonv2.UnmarshalDecode(&p.dec, v, opts...)
	if pt != nil {
		pt.whole.done(&p.b, len(b))
		pt.made, pt.read, pt.peak = p.b.made, int64(len(b)), p.b.peak
	}
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
	if err := budgetOf(dec).charge(dec, int64(unsafe.Sizeof(*v))); err != nil {
		return err
	}
	if err := jsonv2.UnmarshalDecode(dec, v); err != nil {
		return err
	}
	if check == nil {
		return nil
	}
	return check()
}

// ElementJSON is Element for a type that reads its JSON itself
// (unmarshal, its UnmarshalJSON): v is counted as Element counts it, then
// the element's bytes are given to unmarshal, as the engine gives them.
func ElementJSON[T any](dec *jsontext.Decoder, v *T, unmarshal func([]byte) error) error {
	if err := budgetOf(dec).charge(dec, int64(unsafe.Sizeof(*v))); err != nil {
		return err
	}
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return unmarshal(b)
}

// budgetOf is the budget of dec's decoding; nil when dec is not one of
// decodeBounded's (a caller's own decoder), whose elements are not counted.
func budgetOf(dec *jsontext.Decoder) *budget {
	if b, ok := budgets.Load(dec); ok {
		return b.(*budget)
	}
	return nil
}

// charge counts n more bytes made by the decoding that dec is at, and
// refuses them (*TooManyError) once the decoding has made more than
// ElementBytesPerByte times its bytes read, after elementSlack.
func (b *budget) charge(dec *jsontext.Decoder, n int64) error {
	if b == nil {
		return nil
	}
	b.made += n
	slack := int64(elementSlack)
	if b.whole != nil {
		slack -= max(0, b.whole.over.Load())
	}
	read := dec.InputOffset()
	b.peak = max(b.peak, b.made-ElementBytesPerByte*read)
	if b.made > ElementBytesPerByte*read+slack {
		return &TooManyError{Made: b.made, Read: read}
	}
	return nil
}

// TooManyError is the refusal of a file whose lists and maps hold more
// elements than its bytes allow (Element, ElementJSON, List, Map).
type TooManyError struct {
	Made, Read int64 // bytes of elements made, bytes of the file read
}

func (e *TooManyError) Error() string {
	return fmt.Sprintf("the file's lists and maps hold %d bytes of elements in its first %d bytes, more than krmplan reads (%d per byte, after the first %d kB): "+
		"a list or map of short elements such as {}, \"\" or \"a\":\"\" would take many times the file's size in memory", e.Made, e.Read, ElementBytesPerByte, elementSlack>>10)
}
