package between

import (
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// place is a line (column 0: an object's first key) or a value's position
// in a tenancy file.
type place struct {
	file         string
	line, column int
}

// placed is what is written at a place: an object, or one of its values
// (ptr, its JSON pointer; "" for the object's line).
type placed struct {
	o   tenancy.ObjectAddr
	ptr string
}

// headLines points the findings of a plan between two refs at the head's
// lines, which the pull request shows: the checks run on the base with
// the changes applied, so they cite the base's positions. A value's
// position becomes the same value's in the head (a queue entry is matched
// by node pool, as tenancy.Diff matches it), an object's line the head's
// line of the object. What the head no longer has (a removed object or
// queue entry) keeps the base's line, marked Base. A finding about an
// object the head adds or removes, which the checks cannot place (the
// base has no line of the one, the target none of the other), gets the
// head's line of its queue or object, or the base's, marked Base.
func headLines(p *planner.Plan, bx, hx *tenancy.Index) {
	at := places(bx)
	for i := range p.Findings {
		f := &p.Findings[i]
		for j, l := range f.Where {
			if !l.Desired {
				f.Where[j] = headLine(l, at, bx, hx)
			}
		}
		if len(f.Where) > 0 || f.Object == (tenancy.ObjectAddr{}) {
			continue
		}
		inBase, inHead := bx.Has(f.Object), hx.Has(f.Object)
		switch {
		case inBase && !inHead, removedQueue(f, bx, hx):
			f.Where = queueLine(bx, f.Object, f.Pool, true)
		case inHead && !inBase:
			f.Where = queueLine(hx, f.Object, f.Pool, false)
		}
	}
}

// removedQueue reports whether f is about a queue entry on a node pool
// that its object has at the base and no longer has at the head.
func removedQueue(f *planner.Finding, bx, hx *tenancy.Index) bool {
	return f.Pool != "" && queueIndex(bx.Queues(f.Object), f.Pool) >= 0 && hx.Has(f.Object) && queueIndex(hx.Queues(f.Object), f.Pool) < 0
}

// queueLine is the line of object o's queue entry on pool in x (its
// name's), else the object's line; base marks it as the base's.
func queueLine(x *tenancy.Index, o tenancy.ObjectAddr, pool string, base bool) []tenancy.Location {
	origin, _ := x.Origin(o)
	if origin == nil {
		return nil
	}
	l := tenancy.Location{File: origin.File, Line: origin.Line, Base: base}
	if qi := queueIndex(x.Queues(o), pool); qi >= 0 && pool != "" {
		if pos, ok := origin.Values.Value(o.Queue(qi).Field(tenancy.FieldQueueName).Pointer()); ok {
			l.Line, l.Column = pos.Line, pos.Column
		}
	}
	return []tenancy.Location{l}
}

// places maps every position of x's objects to what is written there.
func places(x *tenancy.Index) map[place]placed {
	out := map[place]placed{}
	for _, k := range tenancy.Planned {
		for _, name := range x.Names(k) {
			o := k.Object(name)
			origin, _ := x.Origin(o)
			if origin == nil {
				continue
			}
			out[place{origin.File, origin.Line, 0}] = placed{o: o}
			// Values behind one YAML alias share its position: the first
			// pointer, in order, names it, so the mapping is the same on
			// every run (a plan file is planned again to verify it).
			for ptr, pos := range origin.Values.All() {
				if k := (place{origin.File, pos.Line, pos.Column}); out[k] == (placed{}) {
					out[k] = placed{o, ptr}
				}
			}
		}
	}
	return out
}

// headLine is l, a position of the base, as the head's position of the
// same value or object; the base's, marked Base, when the head lacks it.
func headLine(l tenancy.Location, at map[place]placed, bx, hx *tenancy.Index) tenancy.Location {
	w, ok := at[place{l.File, l.Line, l.Column}]
	if !ok {
		return l
	}
	origin, inHead := hx.Origin(w.o)
	base := l
	base.Base = true
	if !inHead || origin == nil {
		return base
	}
	ptr, ok := headPointer(w.ptr, w.o, bx, hx)
	if !ok {
		return base // a queue entry the head removes
	}
	if pos, ok := origin.Values.Value(ptr); ok && ptr != "" {
		return tenancy.Location{File: origin.File, Line: pos.Line, Column: pos.Column}
	}
	return tenancy.Location{File: origin.File, Line: origin.Line}
}

// headPointer is the base's JSON pointer ptr into object o as the head's:
// a queue entry's index is the head's index of the entry on the same node
// pool; ok is false when the head has none there.
func headPointer(ptr string, o tenancy.ObjectAddr, bx, hx *tenancy.Index) (string, bool) {
	const queues = "/spec/queues/"
	rest, isQueue := strings.CutPrefix(ptr, queues)
	if !isQueue {
		return ptr, true
	}
	idx, tail, _ := strings.Cut(rest, "/")
	bi, err := strconv.Atoi(idx)
	bq := bx.Queues(o)
	if err != nil || bi < 0 || bi >= len(bq) {
		return "", false
	}
	hi := queueIndex(hx.Queues(o), bq[bi].NodePool)
	if hi < 0 {
		return "", false
	}
	return queues + strconv.Itoa(hi) + "/" + tail, true
}

// queueIndex is the index of the queue on pool in qs, -1 when none.
func queueIndex(qs []tenancy.Queue, pool string) int {
	for i := range qs {
		if qs[i].NodePool == pool {
			return i
		}
	}
	return -1
}
