package commit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/snapshot"
)

// schema tells yamledit which objects a splice edits: the KRM kinds a plan
// changes, in the order a tenancy file holds them (pools, then the node
// configuration, departments, projects), and a project's parent.
var schema = yamledit.Schema{
	APIVersion: snapshot.KRMAPIVersion,
	Kinds:      []string{planner.KindNodePool, planner.KindDepartment, planner.KindProject},
	Rank: map[string]int{planner.KindNodePool: 0, "ManagedNodesConfig": 1, "KRMConfig": 1,
		planner.KindDepartment: 2, planner.KindProject: 3},
	Parent: map[string]string{planner.KindProject: planner.KindDepartment},
}

// newSet reads the tenancy files for editing. With trusted (the files are
// the bytes the snapshot read), the snapshot's origins index their objects.
func newSet(s *snapshot.State, paths []string, src map[string][]byte, trusted bool) (*yamledit.Set, error) {
	var known []yamledit.Object
	add := func(kind, name, parent string, o *snapshot.Origin) {
		if o != nil {
			known = append(known, yamledit.Object{ID: yamledit.ID{Kind: kind, Name: name}, Parent: parent, File: o.File, Line: o.Line})
		}
	}
	for _, o := range s.NodePools {
		add(planner.KindNodePool, o.Metadata.Name, "", o.Origin)
	}
	for _, o := range s.Departments {
		add(planner.KindDepartment, o.Metadata.Name, "", o.Origin)
	}
	for _, o := range s.Projects {
		add(planner.KindProject, o.Metadata.Name, o.Spec.Parent, o.Origin)
	}
	var placement map[string]string
	if prof := s.Profile; prof != nil {
		placement = map[string]string{}
		for _, k := range schema.Kinds {
			if f := prof.Placement.For(k); f != "" {
				placement[k] = f
			}
		}
	}
	return yamledit.NewSet(schema, paths, src, known, trusted, placement)
}

// describe names the value a change sets, for messages.
func describe(c planner.Change) string {
	if c.Queue != "" {
		return c.Field + " of queue " + c.Queue
	}
	return c.Field + " of " + strings.ToLower(c.Kind) + " " + c.Object
}

// tenancyEdits computes the byte edits that make the tenancy files hold the
// plan's target (yamledit's Edits of every change, with the positions the
// snapshot recorded).
func tenancyEdits(p *planner.Plan, ts *yamledit.Set) (map[string][]yamledit.Edit, error) {
	origins := p.Snapshot.Origins()
	changes := make([]yamledit.Change, len(p.Changes))
	for i, c := range p.Changes {
		changes[i] = yamledit.Change{ID: yamledit.ID{Kind: c.Kind, Name: c.Object}, Pointer: c.Path, Value: c.After,
			What: describe(c), Queue: c.Queue, File: c.File}
		if o := origins[snapshot.ObjectKey(c.Kind, c.Object)]; o != nil {
			changes[i].Origin = &yamledit.Origin{File: o.File, Line: o.Line}
			if pos, ok := o.Values[c.Path]; ok {
				changes[i].Pos = &yamledit.Pos{Line: pos.Line, Start: pos.Start, End: pos.End, Text: pos.Text,
					Alias: pos.Alias, Anchor: pos.Anchor, AnchorLine: pos.AnchorLine}
			}
		}
	}
	edits, err := ts.Edits(changes)
	var nf *yamledit.NoFileError
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("cannot choose a file for new %s %s: none of the %d tenancy files holds a %s; name one in %s: placement { %s = \"<file>\" }",
			strings.ToLower(nf.Kind), nf.Name, nf.Files, nf.Kind, profile.FileName, placementAttr(nf.Kind))
	}
	return edits, err
}

// placementAttr is the placement attribute of the profile for kind.
func placementAttr(kind string) string {
	switch kind {
	case planner.KindNodePool:
		return "node_pool"
	case planner.KindDepartment:
		return "department"
	}
	return "project"
}
