package jsonfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
)

// Lines is a file of MarshalLines kept in its parts: the skeleton's bytes
// between the big top-level lists, and each big list's elements as they
// were encoded in pieces, laid out in lines only as they are written
// (WriteTo). A state of 10,000 projects is 25 MB: written from its parts,
// it is never copied into a buffer of its own, which on a machine whose
// memory is slow to map is a tenth of the snapshot's time.
type Lines struct {
	segs []segment
	size int
}

// segment is the skeleton's bytes raw, or, when raw is nil, a big list's
// elements: pieces of compact values, one to a line, in chunks.
type segment struct {
	raw    []byte
	pieces []chunks
}

// MarshalLinesParts is MarshalLines kept in its parts.
func MarshalLinesParts(v any) (*Lines, error) {
	if rv, ptr, ok := structOf(v); ok {
		if big := bigLists(rv); len(big) > 0 {
			if l, err := marshalLinesParallel(rv, ptr, big); err == nil {
				return l, nil
			} // a value that does not encode fails as in one pass, in its words
		}
	}
	b, err := marshalLinesSeq(v)
	if err != nil {
		return nil, err
	}
	return &Lines{segs: []segment{{raw: b}}, size: len(b)}, nil
}

// Len is the number of bytes WriteTo writes.
func (l *Lines) Len() int { return l.size }

// WriteTo writes the file to w through a buffer; n counts the bytes w took.
func (l *Lines) WriteTo(w io.Writer) (n int64, err error) {
	return WriteBuffered(w, l.write)
}

// Bytes is the file's bytes.
func (l *Lines) Bytes() []byte {
	b := make([]byte, 0, l.size) // not a bytes.Buffer: its Grow clears the memory first
	l.write(func(p []byte) { b = append(b, p...) })
	return b
}

// SumEmpty is SumEmpty of the file's bytes: the named members must be in
// its first part, the skeleton's head, as Marshal writes them first.
func (l *Lines) SumEmpty(names ...string) (sum string, values []string, err error) {
	if l.segs[0].raw == nil {
		return "", nil, errors.New("the file does not begin with its members")
	}
	h := sha256.New()
	if values, err = SumEmptyTo(h, l.segs[0].raw, names...); err != nil {
		return "", nil, err
	}
	for _, s := range l.segs[1:] {
		s.write(func(p []byte) { h.Write(p) })
	}
	return hex.EncodeToString(h.Sum(nil)), values, nil
}

// Overwrite is Overwrite in the file's head.
func (l *Lines) Overwrite(m Member, value string) error {
	return Overwrite(l.segs[0].raw, m, value)
}

func (l *Lines) write(put func([]byte)) {
	for _, s := range l.segs {
		s.write(put)
	}
}

func (s segment) write(put func([]byte)) {
	if s.pieces == nil {
		put(s.raw)
		return
	}
	writeElementLines(put, s.pieces)
}

// writeElementLines writes the elements of pieces (each a run of compact
// values, one to a line, in chunks) as MarshalLines lays out the
// elements of a top-level list: four spaces, the value, a comma but after
// the last. A line may go on from one chunk to the next.
func writeElementLines(put func([]byte), pieces []chunks) {
	start, first := true, true
	for _, p := range pieces {
		for _, c := range p {
			for len(c) > 0 {
				if start {
					if !first {
						put(elementEnd)
					}
					put(elementIndent)
					first = false
				}
				i := bytes.IndexByte(c, '\n')
				if start = i >= 0; !start {
					put(c)
					break
				}
				put(c[:i])
				c = c[i+1:]
			}
		}
	}
}

// elementEnd and elementIndent are what writeElementLines puts around an
// element, made once rather than at each of a file's 100,000 lines.
var elementEnd, elementIndent = []byte(",\n"), []byte("    ")

// WriteBuffered writes to w, through a buffer of 256 kB, what write puts:
// a file written in many small parts. The first error of w stops the
// writing (put then does nothing) and is returned, with the bytes w took.
func WriteBuffered(w io.Writer, write func(put func([]byte))) (int64, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 256<<10)
	var err error
	write(func(p []byte) {
		if err == nil {
			_, err = bw.Write(p)
		}
	})
	if err == nil {
		err = bw.Flush()
	}
	return cw.n, err
}

// countingWriter is w, counting the bytes it takes.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
