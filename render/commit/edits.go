package commit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/render/yamlremove"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// schema tells yamledit which objects a splice edits, from the kind table:
// the KRM kinds a plan changes, the order of the kinds in a tenancy file
// (pools, then the node configuration, departments, projects), and a
// project's parent. yamledit takes it as a value: it edits bytes and knows
// nothing of the model.
var schema = func() yamledit.Schema {
	s := yamledit.Schema{APIVersion: tenancy.APIVersion, Rank: map[string]int{}, Parent: map[string]string{}}
	for _, k := range tenancy.Kinds {
		s.Rank[k.String()] = k.Info().FileRank
		if p := k.Info().Parent; p != 0 {
			s.Parent[k.String()] = p.String()
		}
	}
	for _, k := range tenancy.Planned {
		s.Kinds = append(s.Kinds, k.String())
	}
	return s
}()

// newSet reads the tenancy files for editing. With trusted (the files are
// the bytes the snapshot read), the snapshot's origins index their objects.
func newSet(s *snapshot.State, paths []string, src map[string][]byte, trusted bool) (*yamledit.Set, error) {
	var known []yamledit.Object
	add := func(k tenancy.Kind, name, parent string, o *tenancy.Origin) {
		if o != nil {
			known = append(known, yamledit.Object{ID: yamledit.ID{Kind: k.String(), Name: name}, Parent: parent, File: o.File, Line: o.Line})
		}
	}
	for _, o := range s.NodePools {
		add(tenancy.KindNodePool, o.Metadata.Name, "", o.Origin)
	}
	for _, o := range s.Departments {
		add(tenancy.KindDepartment, o.Metadata.Name, "", o.Origin)
	}
	for _, o := range s.Projects {
		add(tenancy.KindProject, o.Metadata.Name, o.Spec.Parent, o.Origin)
	}
	var placement map[string]string
	if prof := s.Profile; prof != nil {
		placement = map[string]string{}
		for _, k := range tenancy.Planned {
			if f := prof.Placement.For(k); f != "" {
				placement[k.String()] = f
			}
		}
	}
	return yamledit.NewSet(schema, paths, src, known, trusted, placement)
}

// tenancyEdits computes the byte edits that make the tenancy files hold the
// plan's target (yamledit's Edits of every change, with the positions the
// snapshot recorded), but for the new projects of the renames rn writes
// in place, whose edits rn holds.
func tenancyEdits(p *planner.Plan, ts *yamledit.Set, rn *renames) (map[string][]yamledit.Edit, error) {
	bx, _ := p.Indexes()
	changes := make([]yamledit.Change, 0, len(p.Changes))
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Action == tenancy.ActionDestroy {
			continue // removalEdits
		}
		o := c.Object()
		if rn.writesInPlace(o) {
			continue // renameEdits
		}
		ch := yamledit.Change{ID: yamledit.ID{Kind: o.Kind.String(), Name: o.Name}, Pointer: c.Field.Pointer(), Value: c.After.AppendJSON(nil),
			What: c.Describe(), Queue: c.Queue, File: c.File}
		if origin, _ := bx.Origin(o); origin != nil {
			ch.Origin = &yamledit.Origin{File: origin.File, Line: origin.Line}
			ch.Pos = valuePos(bx, c.Field)
		}
		changes = append(changes, ch)
	}
	edits, err := ts.Edits(changes)
	var nf *yamledit.NoFileError
	if errors.As(err, &nf) {
		block := strings.ToLower(nf.Kind)
		if k, err := tenancy.ParseKind(nf.Kind); err == nil {
			block = k.Info().Block
		}
		return nil, fmt.Errorf("cannot choose a file for new %s %s: none of the %d tenancy files holds a %s; name one in %s: placement { %s = \"<file>\" }",
			strings.ToLower(nf.Kind), nf.Name, nf.Files, nf.Kind, profile.FileName, block)
	}
	return edits, err
}

// removalEdits computes the byte edits of the plan's removals (package
// yamlremove: a document or a queue entry with its own comments), records
// them in ts (so that Touched expects neither the documents nor the files
// deleted), and returns them with the files left without a document. The
// old project of a rename rn writes in place keeps its document.
func removalEdits(p *planner.Plan, ts *yamledit.Set, rn *renames) (*yamlremove.Removed, error) {
	bx, _ := p.Indexes()
	var rs []yamlremove.Removal
	var whole []yamledit.ID
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Action != tenancy.ActionDestroy {
			continue
		}
		o := c.Object()
		if rn.writesInPlace(o) {
			continue // renameEdits
		}
		origin, _ := bx.Origin(o)
		if origin == nil {
			return nil, fmt.Errorf("%s is removed, but the snapshot does not say where it is written", o)
		}
		r := yamlremove.Removal{ID: yamledit.ID{Kind: o.Kind.String(), Name: o.Name}, Origin: yamledit.Origin{File: origin.File, Line: origin.Line},
			Queue: yamlremove.NoQueue}
		if c.RemovesQueue() {
			// The entry's name as written ("" for one KRM names), not
			// c.Queue, the KAI Queue's name.
			r.Queue = c.Field.Queue
			r.QueueName, _ = c.Before.Str()
		} else {
			whole = append(whole, r.ID)
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return &yamlremove.Removed{}, nil
	}
	out, err := yamlremove.Removals(ts, rs)
	if err != nil {
		return nil, err
	}
	ts.Remove(whole, out.Deleted)
	return out, nil
}
