package commit

// A new tenancy file joins the kustomization of its folder: kustomize
// (and Argo CD or Flux building the folder with it) reads only the
// resources a kustomization lists, so a new file that is not listed
// would be committed and never applied.

import (
	"fmt"
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
	add := map[string][]string{} // kustomization → the new files' names in its folder
	var order []string
	for _, p := range sp.ts.Created() {
		if slices.Contains(kustomization.Names, path.Base(p)) {
			continue
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
	sp.editResources(order, add, kustomization.Add, "add %s to", "+")
	return nil
}

// editResources makes the edits that edit returns of each kustomization in
// order, for the names names[k], and says so in KeptInStep (`k: resources
// SIGN what`); a list edit cannot make is a note to do by hand (todo names
// it: "add %s to", "remove %s from").
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
			sp.plan.KeptInStep = append(sp.plan.KeptInStep, fmt.Sprintf("%s: resources %s %s", k, sign, e.What))
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
				if gone[k] == nil {
					order = append(order, k)
				}
				gone[k] = append(gone[k], rel)
			}
			if dir == "." || dir == "/" {
				break
			}
		}
	}
	sp.editResources(order, gone, kustomization.Remove, "remove %s from", "-")
	return nil
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
