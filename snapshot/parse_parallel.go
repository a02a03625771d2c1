package snapshot

import (
	"bytes"
	"runtime"
	"sync"
)

// parallelParseMin is the size from which a tenancy file is parsed on
// several cores: below it, starting the workers costs more than it saves.
const parallelParseMin = 1 << 20

// parseFile is ParseTenancy for a file read whole: a large file is cut at
// document markers ("---" lines) into one part per core, the parts are
// parsed at the same time, and their objects are joined in file order with
// their lines and byte offsets moved to the file's. The result is what
// ParseTenancy gives. When any part fails, the file is parsed again in one
// piece, so that the error (which may be another one, or at another line,
// when a part was cut inside a broken document) is exactly what a reading
// from the start finds.
func (t *Tenancy) parseFile(name string, src []byte) error {
	parts := documentParts(src, runtime.GOMAXPROCS(0))
	if len(parts) < 2 {
		return t.ParseTenancy(name, src)
	}
	got := make([]Tenancy, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { errs[i] = got[i].ParseTenancy(name, src[p.start:p.end]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			var again Tenancy
			if err := again.ParseTenancy(name, src); err != nil {
				return err
			}
			t.join(&again, 0, 0) // a part was cut inside a document that reads whole
			return nil
		}
	}
	for i, p := range parts {
		t.join(&got[i], p.line-1, p.start)
	}
	return nil
}

// part is a range of a file that starts at a document marker (or at the
// file's start), and the 1-based line it starts on.
type part struct{ start, end, line int }

// documentParts cuts src into at most n parts of about equal size, each
// starting on a line that begins with the document marker "---". A file
// below parallelParseMin, or without markers to cut at, is one part.
func documentParts(src []byte, n int) []part {
	if n < 2 || len(src) < parallelParseMin {
		return []part{{0, len(src), 1}}
	}
	var parts []part
	start, line := 0, 1
	for k := 1; k < n; k++ {
		cut := markerAfter(src, max(k*len(src)/n, start+1))
		if cut < 0 {
			break
		}
		parts = append(parts, part{start, cut, line})
		line += bytes.Count(src[start:cut], []byte("\n"))
		start = cut
	}
	return append(parts, part{start, len(src), line})
}

// markerAfter returns the offset of the first line at or after from that
// begins with "---" followed by a space, a tab or the line's end, or -1.
// yaml.v3 reads such a line as the start of a document wherever it stands:
// it ends a block or plain scalar (whose lines are indented under their
// key, so a "---" inside their text never starts a line), and inside a
// quoted scalar or a flow collection it is an error, which sends parseFile
// back to the whole file. So no cut falls inside a document
// (TestParseFileInPartsBlockScalarMarker).
func markerAfter(src []byte, from int) int {
	for i := from; i < len(src); {
		j := bytes.Index(src[i:], []byte("\n---"))
		if j < 0 {
			return -1
		}
		at := i + j + 1
		if after := at + 3; after == len(src) || bytes.IndexByte([]byte(" \t\r\n"), src[after]) >= 0 {
			return at
		}
		i = at
	}
	return -1
}

// join appends the objects of p, read from a part that starts lines lines
// and off bytes into the file, with their positions moved to the file's.
func (t *Tenancy) join(p *Tenancy, lines, off int) {
	if lines != 0 || off != 0 {
		for i := range p.NodePools {
			p.NodePools[i].Origin.shift(lines, off)
		}
		for i := range p.Departments {
			p.Departments[i].Origin.shift(lines, off)
		}
		for i := range p.Projects {
			p.Projects[i].Origin.shift(lines, off)
		}
		if p.ManagedNodes != nil {
			p.ManagedNodes.Origin.shift(lines, off)
		}
		for i := range p.Other {
			p.Other[i].Line += lines
		}
		for _, s := range p.singletons {
			s.origin.shift(lines, off)
		}
	}
	t.singletons = append(t.singletons, p.singletons...)
	t.NodePools = append(t.NodePools, p.NodePools...)
	t.Departments = append(t.Departments, p.Departments...)
	t.Projects = append(t.Projects, p.Projects...)
	t.Other = append(t.Other, p.Other...)
	if p.ManagedNodes != nil {
		t.ManagedNodes = p.ManagedNodes
	}
	if p.KRMConfig != nil {
		t.KRMConfig = p.KRMConfig
	}
}

func (o *Origin) shift(lines, off int) {
	if o == nil {
		return
	}
	o.Line += lines
	for k, v := range o.Values {
		v.Line += lines
		v.Start += off
		v.End += off
		o.Values[k] = v
	}
}

// DocumentMarkers returns the offsets of the lines of src after the first
// that begin with the document marker "---" (as markerAfter finds them):
// cutting a file that yaml.v3 reads at these offsets never cuts a document,
// so each piece parses alone to the documents the whole file has there.
func DocumentMarkers(src []byte) []int {
	var out []int
	for at := markerAfter(src, 0); at >= 0; at = markerAfter(src, at+1) {
		out = append(out, at)
	}
	return out
}
