// Package kustomize reads the patches of a kustomization among the
// tenancy files, and tells which objects each selects. krmplan reads the
// files as written; kustomize (and Argo CD or Flux, which build a folder
// with it) applies a kustomization's patches first, so the cluster may
// receive other values than the ones krmplan planned.
package kustomize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PatchTarget is what one patch of a kustomization selects, as kustomize's
// selector does: Kind and Name are regular expressions anchored at both
// ends ("" selects any), and the label and annotation selectors narrow the
// choice further. A patch without a target (a strategic merge patch)
// selects the kind and name written in it.
type PatchTarget struct {
	// Field is the patch's place in the kustomization: "patches[0]",
	// "patchesStrategicMerge[1]" or "patchesJson6902[0]".
	Field string `json:"field"`
	// Line is the patch entry's line in the kustomization's file.
	Line int `json:"line"`
	// Path is the patch file, relative to the repository ("" for a patch
	// written inline).
	Path               string `json:"path,omitempty"`
	Kind               string `json:"kind,omitempty"`
	Name               string `json:"name,omitempty"`
	LabelSelector      string `json:"labelSelector,omitempty"`
	AnnotationSelector string `json:"annotationSelector,omitempty"`
	// Unread says why the patch's target could not be told (its file is
	// missing, or not YAML): it may patch any object.
	Unread string `json:"unread,omitempty"`
}

// ReadFile reads a file of the tenancy's repository (a path relative to
// it, slash-separated), at the ref read or in the work tree.
type ReadFile func(name string) ([]byte, error)

// Patches lists the patches of a kustomization document (root, its
// mapping) in folder dir, reading the patch files with read. A patch whose
// target cannot be told is kept, with the reason (Unread).
func Patches(dir string, root *yaml.Node, read ReadFile) []PatchTarget {
	var out []PatchTarget
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, list := root.Content[i].Value, root.Content[i+1]
		if list.Kind != yaml.SequenceNode {
			continue
		}
		switch key {
		case "patches", "patchesJson6902", "patchesStrategicMerge":
		default:
			continue
		}
		for j, entry := range list.Content {
			pt := PatchTarget{Field: fmt.Sprintf("%s[%d]", key, j), Line: entry.Line}
			targeted := false
			if key == "patchesStrategicMerge" {
				// A file name, or the patch itself written inline.
				if entry.Kind == yaml.ScalarNode && !strings.Contains(entry.Value, "\n") {
					pt.Path = entry.Value
				} else {
					pt.fromPatch([]byte(entry.Value))
				}
			} else {
				targeted = pt.fromEntry(entry)
			}
			pt.readPatch(dir, read, !targeted)
			out = append(out, pt)
		}
	}
	return out
}

// fromEntry reads a patches or patchesJson6902 entry: its target, path
// and inline patch; targeted reports whether it has a target.
func (pt *PatchTarget) fromEntry(entry *yaml.Node) (targeted bool) {
	if entry.Kind != yaml.MappingNode {
		pt.Unread = "the entry is not a mapping"
		return false
	}
	for i := 0; i+1 < len(entry.Content); i += 2 {
		k, v := entry.Content[i].Value, entry.Content[i+1]
		switch k {
		case "path":
			pt.Path = v.Value
		case "patch":
			if !targeted {
				pt.fromPatch([]byte(v.Value))
			}
		case "target":
			targeted = true
			pt.Kind, pt.Name = "", ""
			for j := 0; j+1 < len(v.Content); j += 2 {
				switch v.Content[j].Value {
				case "kind":
					pt.Kind = v.Content[j+1].Value
				case "name":
					pt.Name = v.Content[j+1].Value
				case "labelSelector":
					pt.LabelSelector = v.Content[j+1].Value
				case "annotationSelector":
					pt.AnnotationSelector = v.Content[j+1].Value
				}
			}
		}
	}
	if targeted {
		pt.Unread = "" // an inline patch without kind or name is fine with a target
	}
	return targeted
}

// readPatch reads the patch file, when the entry names one: for the kind
// and name of a strategic merge patch without a target (object), or only
// to know it is there.
func (pt *PatchTarget) readPatch(dir string, read ReadFile, object bool) {
	if pt.Path == "" {
		return
	}
	if path.IsAbs(pt.Path) {
		pt.Unread = fmt.Sprintf("the patch file %s is an absolute path, which kustomize refuses", pt.Path)
		return
	}
	rel := path.Clean(path.Join(dir, pt.Path))
	pt.Path = rel
	b, err := read(rel)
	if err != nil {
		pt.Unread = fmt.Sprintf("the patch file %s cannot be read (%v)", rel, err)
		return
	}
	if object {
		pt.fromPatch(b)
	}
}

// fromPatch takes the kind and name of the first object of a strategic
// merge patch (a JSON patch names none: it needs a target).
func (pt *PatchTarget) fromPatch(src []byte) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc struct {
		Kind     string `yaml:"kind"`
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
	}
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		pt.Unread = fmt.Sprintf("the patch is not an object with a kind and a name, and has no target (%v)", err)
		return
	}
	if doc.Kind == "" || doc.Metadata.Name == "" {
		pt.Unread = "the patch has no target, and names no kind and name"
		return
	}
	pt.Kind, pt.Name = doc.Kind, doc.Metadata.Name
}

// Selects returns whether the target selects an object of kind and name:
// its kind and name are regular expressions anchored at both ends, as
// kustomize reads them ("" selects any). The label and annotation
// selectors are not evaluated (Selectors). err is a target kustomize
// cannot compile, in the expression's own words.
func (pt *PatchTarget) Selects() (func(kind, name string) bool, error) {
	kind, err := anchored(pt.Kind)
	if err != nil {
		return nil, err
	}
	name, err := anchored(pt.Name)
	if err != nil {
		return nil, err
	}
	return func(k, n string) bool { return kind.MatchString(k) && name.MatchString(n) }, nil
}

// anchored compiles a selector's regular expression as kustomize does,
// anchored at both ends; "" matches anything.
func anchored(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		expr = ".*"
	}
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err // in the expression's own words
	}
	return regexp.Compile("^(?:" + expr + ")$")
}

// Selectors is the target's label and annotation selectors, as a person
// reads them ("labelSelector \"team=a\""); "" when it has none.
func (pt *PatchTarget) Selectors() string {
	var parts []string
	if pt.LabelSelector != "" {
		parts = append(parts, fmt.Sprintf("labelSelector %q", pt.LabelSelector))
	}
	if pt.AnnotationSelector != "" {
		parts = append(parts, fmt.Sprintf("annotationSelector %q", pt.AnnotationSelector))
	}
	return strings.Join(parts, " and ")
}
