package commit

// A new tenancy file joins the kustomization of its folder: kustomize
// (and Argo CD or Flux building the folder with it) reads only the
// resources a kustomization lists, so a new file that is not listed
// would be committed and never applied.

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/render/kustomization"
	"github.com/krmplan/krmplan/render/yamledit"
)

// kustomize adds every file the splice creates to the resources of the
// kustomization in its folder, in the list's own style (KeptInStep says
// so). A kustomization it cannot edit safely, and a new file in a folder
// without a kustomization below one that has it, are notes: the reviewer
// adds the file by hand.
func (sp *splice) kustomize() error {
	if err := sp.unlistDeleted(); err != nil {
		return err
	}
	if err := sp.relistMoved(); err != nil {
		return err
	}
	moved := map[string]bool{}
	for _, to := range sp.moves {
		moved[to] = true
	}
	add := map[string][]string{} // kustomization → the new files' names in its folder
	var order []string
	for _, p := range sp.ts.Created() {
		if slices.Contains(kustomization.Names, path.Base(p)) || moved[p] {
			continue // relistMoved lists a moved file where the old one was
		}
		k, err := sp.kustomizationOf(path.Dir(p))
		if err != nil {
			return err
		}
		if k == "" {
			if err := sp.noteUnlisted(p); err != nil {
				return err
			}
			continue
		}
		if add[k] == nil {
			order = append(order, k)
		}
		add[k] = append(add[k], path.Base(p))
	}
	sp.editResources(order, add, kustomization.Add, "add %s to", "+ ")
	return nil
}

// editResources makes the edits that edit returns of each kustomization in
// order, for the names names[k], and says so in KeptInStep (`k: resources
// SIGN what`, sign "+ " or "- "; with sign "", `k: what old -> new` for
// an entry edited in place); a list edit cannot make is a note to do by
// hand (todo names it: "add %s to", "remove %s from").
func (sp *splice) editResources(order []string, names map[string][]string,
	edit func(file string, src []byte, names []string) ([]yamledit.Edit, error), todo, sign string) {
	for _, k := range order {
		edits, err := edit(k, sp.files[k].old, names[k])
		if err != nil {
			sp.plan.Notes = append(sp.plan.Notes, fmt.Sprintf("%v: "+todo+" its resources by hand", err, strings.Join(names[k], ", ")))
			continue
		}
		sp.edits[k] = append(sp.edits[k], edits...)
		for _, e := range edits {
			if sign == "" { // an entry edited in place
				sp.plan.KeptInStep = append(sp.plan.KeptInStep, fmt.Sprintf("%s: %s %s -> %s", k, e.What, e.Old, e.New))
			} else {
				sp.plan.KeptInStep = append(sp.plan.KeptInStep, fmt.Sprintf("%s: resources %s%s", k, sign, e.What))
			}
		}
	}
}

// unlistDeleted takes the tenancy files a removal deletes out of the
// resources of the kustomizations that list them (kustomization.Remove):
// the one in the file's folder, and those of the folders above it, which
// name it by its path from their folder (`departments/legacy.yaml`, a
// layout with one kustomization at the root) — kustomize refuses to build
// a kustomization that lists a missing file. A list it cannot edit is a
// note to edit it by hand.
func (sp *splice) unlistDeleted() error {
	gone := map[string][]string{}
	var order []string
	for _, p := range sp.deleted {
		if _, moved := sp.moves[p]; moved {
			continue // relistMoved
		}
		err := sp.listings(p, func(k, rel string) {
			if gone[k] == nil {
				order = append(order, k)
			}
			gone[k] = append(gone[k], rel)
		})
		if err != nil {
			return err
		}
	}
	sp.editResources(order, gone, kustomization.Remove, "remove %s from", "- ")
	return nil
}

// relistMoved lists each file a rename moves (moveFiles) under its new
// name wherever a kustomization lists the old one, in the old one's place
// (kustomization.Rename): as a person would edit the entry after a `git
// mv`. A list it cannot edit is a note to edit it by hand.
func (sp *splice) relistMoved() error {
	renamed := map[string]map[string]string{} // kustomization → old → new, by path from its folder
	olds := map[string][]string{}
	var order []string
	for _, old := range slices.Sorted(maps.Keys(sp.moves)) {
		err := sp.listings(old, func(k, rel string) {
			if olds[k] == nil {
				order = append(order, k)
				renamed[k] = map[string]string{}
			}
			olds[k] = append(olds[k], rel)
			renamed[k][rel] = path.Join(path.Dir(rel), path.Base(sp.moves[old]))
		})
		if err != nil {
			return err
		}
	}
	rename := func(file string, src []byte, _ []string) ([]yamledit.Edit, error) {
		return kustomization.Rename(file, src, renamed[file])
	}
	sp.editResources(order, olds, rename, "list %s under its new name in", "")
	return nil
}

// listings calls visit with each kustomization that may list the file p,
// and p's path from its folder: the one in p's folder, and those of the
// folders above it, which name it by its path from theirs
// (`departments/legacy.yaml`, a layout with one kustomization at the root).
func (sp *splice) listings(p string, visit func(k, rel string)) error {
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		k, err := sp.kustomizationOf(dir)
		if err != nil {
			return err
		}
		if k != "" {
			rel := strings.TrimPrefix(p, dir+"/")
			if dir == "." {
				rel = p
			}
			visit(k, rel)
		}
		if dir == "." || dir == "/" {
			return nil
		}
	}
}

// kustomizationOf is the kustomization of folder dir at the snapshot's
// commit, "" when it has none.
func (sp *splice) kustomizationOf(dir string) (string, error) {
	for _, n := range kustomization.Names {
		p := path.Join(dir, n)
		if _, ok, err := sp.read(p); err != nil || ok {
			return p, err
		}
	}
	return "", nil
}

// noteUnlisted notes a new file whose folder has no kustomization while a
// folder above it has one: that kustomization does not list the new file.
func (sp *splice) noteUnlisted(p string) error {
	for dir := path.Dir(p); dir != "."; {
		dir = path.Dir(dir)
		k, err := sp.kustomizationOf(dir)
		if err != nil || k != "" {
			if k != "" {
				sp.plan.Notes = append(sp.plan.Notes, fmt.Sprintf("%s: a new file in a folder without a kustomization; %s does not list it, so kustomize does not read it until one does", p, k))
			}
			return err
		}
	}
	return nil
}
