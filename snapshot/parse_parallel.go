package snapshot

import (
	"bytes"
	"runtime"
	"slices"

	"github.com/krmplan/krmplan/internal/cores"
	"github.com/krmplan/krmplan/internal/yamlsrc"
)

// partsPerCore is how many parts a large file is cut into for each core,
// so that a core whose parts read faster (or that the machine gives more
// time) reads more of them, rather than waiting for the other.
const partsPerCore = 4

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
func (t *Parsed) parseFile(name string, src []byte) error {
	parts := documentParts(src, partsPerCore*runtime.GOMAXPROCS(0))
	if len(parts) < 2 {
		return t.ParseTenancy(name, src)
	}
	got := make([]Parsed, len(parts))
	errs := make([]error, len(parts))
	cores.Each(len(parts), func(i int) {
		// Each part's positions are moved to the file's by the worker
		// that read it, rather than all at the end on one core.
		if errs[i] = got[i].ParseTenancy(name, src[parts[i].start:parts[i].end]); errs[i] == nil {
			got[i].shift(parts[i].line-1, parts[i].start)
		}
	})
	for _, err := range errs {
		if err != nil {
			var again Parsed
			if err := again.ParseTenancy(name, src); err != nil {
				return err
			}
			t.join(again) // a part was cut inside a document that reads whole
			return nil
		}
	}
	t.join(got...)
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
		cut := yamlsrc.MarkerAfter(src, max(k*len(src)/n, start+1))
		if cut < 0 {
			break
		}
		parts = append(parts, part{start, cut, line})
		line += bytes.Count(src[start:cut], []byte("\n"))
		start = cut
	}
	return append(parts, part{start, len(src), line})
}

// shift moves the positions of p, read from a part that starts lines
// lines and off bytes into the file, to the file's.
func (p *Parsed) shift(lines, off int) {
	if lines == 0 && off == 0 {
		return
	}
	for i := range p.NodePools {
		p.NodePools[i].Origin.Shift(lines, off)
	}
	for i := range p.Departments {
		p.Departments[i].Origin.Shift(lines, off)
	}
	for i := range p.Projects {
		p.Projects[i].Origin.Shift(lines, off)
	}
	if p.ManagedNodes != nil {
		p.ManagedNodes.Origin.Shift(lines, off)
	}
	for i := range p.Other {
		p.Other[i].Line += lines
	}
	for _, s := range p.singletons {
		s.origin.Shift(lines, off)
	}
}

// join appends the objects of ps, in order, their lists grown once.
func (t *Parsed) join(ps ...Parsed) {
	var pools, depts, projects int
	for i := range ps {
		pools, depts, projects = pools+len(ps[i].NodePools), depts+len(ps[i].Departments), projects+len(ps[i].Projects)
	}
	t.NodePools, t.Departments = slices.Grow(t.NodePools, pools), slices.Grow(t.Departments, depts)
	t.Projects = slices.Grow(t.Projects, projects)
	for i := range ps {
		p := &ps[i]
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
}
