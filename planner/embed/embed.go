// Package embed makes the snapshot a plan carries in plan.json: the
// snapshot it was planned against, with the byte positions of values kept
// only where render or a re-check needs them, so that plan.json stays
// small at 10,000 projects while planning again from it (planfile's
// re-verification) gives the same findings, locations and all.
package embed

import (
	"slices"

	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Snapshot is the snapshot a plan carries: before, with the positions of
// values kept only for the objects that changes touch and for the values
// the plan's findings point at (cited: their locations). The other objects keep their file and line
// (render inserts new objects after the last of their kind); their Origin
// is a new one, before's is not changed. Planning again from the embedded
// snapshot gives the same findings, locations and all (planfile's
// re-verification): a finding points at a value's position only where
// before has one, and those are kept.
func Snapshot(before *snapshot.State, changes []tenancy.Change, cited []tenancy.Location) *snapshot.State {
	changed := make(map[tenancy.ObjectAddr]bool, len(changes))
	for i := range changes {
		changed[changes[i].Object()] = true
	}
	at := citedPositions(cited)
	trim := func(a tenancy.ObjectAddr, o **tenancy.Origin) {
		if *o != nil && !changed[a] {
			*o = trimOrigin(*o, at)
		}
	}
	s := *before
	s.NodePools = slices.Clone(before.NodePools)
	for i := range s.NodePools {
		trim(tenancy.KindNodePool.Object(s.NodePools[i].Metadata.Name), &s.NodePools[i].Origin)
	}
	s.Departments = slices.Clone(before.Departments)
	for i := range s.Departments {
		trim(tenancy.KindDepartment.Object(s.Departments[i].Metadata.Name), &s.Departments[i].Origin)
	}
	s.Projects = slices.Clone(before.Projects)
	for i := range s.Projects {
		trim(tenancy.KindProject.Object(s.Projects[i].Metadata.Name), &s.Projects[i].Origin)
	}
	return &s
}

// citedAt is a position a finding points at in a tenancy file.
type citedAt struct {
	file         string
	line, column int
}

// citedPositions is every tenancy-file position of locs (with a column: a
// value's, not an object's line), and each such file with line and column 0.
func citedPositions(locs []tenancy.Location) map[citedAt]bool {
	cited := map[citedAt]bool{}
	for _, l := range locs {
		if !l.Desired && l.Column > 0 {
			cited[citedAt{l.File, l.Line, l.Column}] = true
			cited[citedAt{file: l.File}] = true // the file has one
		}
	}
	return cited
}

// trimOrigin is a new Origin of o's file and line with those of o's value
// positions that cited holds.
func trimOrigin(o *tenancy.Origin, cited map[citedAt]bool) *tenancy.Origin {
	t := &tenancy.Origin{File: o.File, Line: o.Line}
	if !cited[citedAt{file: o.File}] {
		return t
	}
	for ptr, p := range o.Values {
		if cited[citedAt{o.File, p.Line, p.Column}] {
			if t.Values == nil {
				t.Values = map[string]tenancy.Pos{}
			}
			t.Values[ptr] = p
		}
	}
	return t
}
