package commit

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/tenancy"
)

// renames are the `moved` blocks' renames that a splice writes as a
// person renaming by hand would: the old project's document, where it is
// and with its comments, key order and every other byte, gets the new
// project's values (its metadata.name, and each value the new spec
// changes: the namespace made explicit when it was KRM's default). The
// changes of the new project and the old one's removal are then left
// out of tenancyEdits and removalEdits.
type renames struct {
	edits map[string][]yamledit.Edit
	// inPlace holds both projects of each rename written in place: the
	// new one (whose creation these edits are) and the old one (whose
	// document they edit rather than remove).
	inPlace map[tenancy.ObjectAddr]bool
	// moves are the files renamed with their project (old path → new):
	// a file named after the old project that holds only its document
	// gets the new project's name, as a person would `git mv` it.
	moves map[string]string
	// notes say, for a rename written as the old document's removal and
	// a new document, why it could not be edited in place, and point at
	// the comments of a document edited in place that name the old
	// project.
	notes []string
}

// writesInPlace reports whether o is either project of a rename written in
// place (false for a nil rn: a plan without renames).
func (rn *renames) writesInPlace(o tenancy.ObjectAddr) bool { return rn != nil && rn.inPlace[o] }

// renameEdits computes the in-place edits of the plan's renames (the
// destroys marked MovedTo). A rename whose document the edits cannot
// express — the new spec is not the old one's with values changed, or
// yamledit refuses an edit (a value reached through a YAML alias, or
// inside an anchor an alias shares) — is left to the removal and the new
// document, with a note saying so. Errors other than yamledit's refusals
// are returned.
func renameEdits(p *planner.Plan, ts *yamledit.Set) (*renames, error) {
	out := &renames{edits: map[string][]yamledit.Edit{}, inPlace: map[tenancy.ObjectAddr]bool{}, moves: map[string]string{}}
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.MovedTo == "" || !c.Destroys() {
			continue
		}
		from, to := c.Object(), tenancy.KindProject.Object(c.MovedTo)
		origin, changes, why := renameChanges(p, from, to)
		if origin == nil {
			continue // the removal says the snapshot does not know where it is
		}
		var es map[string][]yamledit.Edit
		if why == "" {
			var err error
			es, err = ts.Edits(changes)
			var refused *yamledit.Error
			switch {
			case errors.As(err, &refused):
				// The refusal's advice is for an edit refused; here the
				// rename is written another way.
				why = "its document cannot be edited in place (" + strings.TrimSuffix(refused.Error(), ": edit it by hand, or render with --format patch") + ")"
			case err != nil:
				return nil, err
			}
		}
		if why != "" {
			out.notes = append(out.notes, fmt.Sprintf("%s:%d: project %s is renamed to %s as a removal of its document, with its comments, and a new document: %s",
				origin.File, origin.Line, from.Name, to.Name, why))
			continue
		}
		for f, e := range es {
			out.edits[f] = append(out.edits[f], e...)
		}
		out.inPlace[from], out.inPlace[to] = true, true
		cs, err := ts.CommentsNaming(changes[0].ID, *changes[0].Origin, from.Name, es[origin.File])
		if err != nil {
			return nil, err
		}
		if moved, err := renamedFile(ts, changes[0].ID, *changes[0].Origin, to.Name); err != nil {
			return nil, err
		} else if moved != "" {
			out.moves[origin.File] = moved
		}
		for _, cm := range cs {
			out.notes = append(out.notes, fmt.Sprintf("%s:%d: project %s is renamed to %s in its document, but the comment on this line still names %s: %s",
				origin.File, cm.Line, from.Name, to.Name, from.Name, cm.Text))
		}
	}
	return out, nil
}

// renameChanges are the yamledit changes that turn the document of
// project from (where the snapshot read it) into that of to as the plan's
// target has it: its metadata.name, then tenancy.Diff's changes from
// from's spec to to's, addressed at from's document and positions. why
// says, when not "", why the document cannot be edited in place: the
// target puts to in another file (file = in desired.hcl), or the spec
// differs in a way no value edit writes (a queue removed, a value
// removed). origin is nil when the snapshot does not say where from is.
func renameChanges(p *planner.Plan, from, to tenancy.ObjectAddr) (origin *tenancy.Origin, changes []yamledit.Change, why string) {
	bx, tx := p.Indexes()
	origin, _ = bx.Origin(from)
	old, neu := bx.Project(from.Name), tx.Project(to.Name)
	if origin == nil || old == nil || neu == nil {
		return nil, nil, ""
	}
	for i := range p.Changes {
		if c := &p.Changes[i]; c.Object() == to && c.File != "" && c.File != origin.File {
			return origin, nil, fmt.Sprintf("desired.hcl puts %s in %s (file = %q)", to.Name, c.File, c.File)
		}
	}
	base, head := *old, *neu
	base.Metadata.Name, base.Origin, head.Origin = to.Name, nil, nil
	diff, err := tenancy.Diff(&tenancy.Tenancy{Projects: []tenancy.Project{base}}, &tenancy.Tenancy{Projects: []tenancy.Project{head}})
	if err != nil {
		return origin, nil, fmt.Sprintf("its new spec is not the old one with values changed (%v)", err)
	}
	at := &yamledit.Origin{File: origin.File, Line: origin.Line}
	id := yamledit.ID{Kind: from.Kind.String(), Name: from.Name}
	name := from.Field(tenancy.FieldName)
	changes = append(changes, yamledit.Change{ID: id, Pointer: name.Pointer(), Value: tenancy.String(to.Name).AppendJSON(nil),
		What: "metadata.name of project " + from.Name, Origin: at, Pos: valuePos(bx, name)})
	for i := range diff {
		d := &diff[i]
		if d.Action == tenancy.ActionDestroy {
			return origin, nil, fmt.Sprintf("its new spec drops %s's queue on node pool %s", from.Name, d.Pool)
		}
		f := d.Field
		f.Object = from
		changes = append(changes, yamledit.Change{ID: id, Pointer: f.Pointer(), Value: d.After.AppendJSON(nil),
			What: d.Describe(), Queue: d.Queue, Origin: at, Pos: valuePos(bx, f)})
	}
	return origin, changes, ""
}

// valuePos is where the snapshot read field a, as yamledit takes it; nil
// when a is omitted there.
func valuePos(bx *tenancy.Index, a tenancy.FieldAddr) *yamledit.Pos {
	pos, ok := bx.Pos(a)
	if !ok {
		return nil
	}
	return &yamledit.Pos{Line: pos.Line, Start: pos.Start, End: pos.End, Text: pos.Text,
		Alias: pos.Alias, Anchor: pos.Anchor, AnchorLine: pos.AnchorLine}
}

// renamedFile is the new path of the file of object id (where o says the
// reader found it) when the file is named after the object and holds only
// its document (projects/nlp.yaml): the same folder and extension, named
// to (projects/language.yaml). "" when the file keeps its name.
func renamedFile(ts *yamledit.Set, id yamledit.ID, o yamledit.Origin, to string) (string, error) {
	base := path.Base(o.File)
	ext := path.Ext(base)
	if strings.TrimSuffix(base, ext) != id.Name {
		return "", nil
	}
	f, d, err := ts.Locate(id, o)
	if err != nil || d == nil {
		return "", err
	}
	docs, err := f.AllDocs()
	if err != nil || len(docs) != 1 {
		return "", err
	}
	return path.Join(path.Dir(o.File), to+ext), nil
}

// moveFiles registers the files the renames move: the new path is
// created (and listed in its folder's kustomization, as a new file is),
// the old one deleted (and unlisted). A new path that exists at the
// commit already keeps the project in its old file, with a note.
func (sp *splice) moveFiles(rn *renames) error {
	olds := make([]string, 0, len(rn.moves))
	for old := range rn.moves {
		olds = append(olds, old)
	}
	sort.Strings(olds)
	for _, old := range olds {
		neu := rn.moves[old]
		if _, exists, err := sp.read(neu); err != nil {
			return err
		} else if exists {
			delete(rn.moves, old)
			sp.plan.Notes = append(sp.plan.Notes, fmt.Sprintf("%s: the renamed project stays in this file, named after its old name: %s exists already", old, neu))
			continue
		}
		sp.ts.AddFile(neu)
		sp.ts.Remove(nil, []string{old})
		sp.deleted = append(sp.deleted, old)
	}
	sp.moves = rn.moves
	return nil
}
