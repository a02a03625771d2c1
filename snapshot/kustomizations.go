package snapshot

// The kustomizations among the tenancy files: the patches of each are read
// (snapshot/kustomize), so that the plan can say which objects are patched.

import (
	"bytes"
	"path"
	"strings"

	"github.com/krmplan/krmplan/snapshot/kustomize"
	"go.yaml.in/yaml/v3"
)

// isKustomization reports whether a document of another kind is a
// kustomization (kustomize.config.k8s.io, Kustomization or Component). In
// a file named as kustomize looks for one (kustomization.yaml or .yml),
// apiVersion and kind may be left out: kustomize defaults them to
// kustomize.config.k8s.io/v1beta1 and Kustomization, and many repositories
// write neither.
func isKustomization(o *OtherDocument) bool {
	named := path.Base(o.File) == "kustomization.yaml" || path.Base(o.File) == "kustomization.yml"
	if o.APIVersion == "" && named {
		return o.Kind == "" || o.Kind == "Kustomization"
	}
	return strings.HasPrefix(o.APIVersion, "kustomize.config.k8s.io/") && (o.Kind == "Kustomization" || o.Kind == "Component" || (o.Kind == "" && named))
}

// ReadKustomizations records the patches of every kustomization document
// of file (src is its content) among t.Other, reading the patch files with
// read. A patch whose target cannot be told is kept, with the reason.
func (t *Parsed) ReadKustomizations(file string, src []byte, read kustomize.ReadFile) {
	byLine := map[int]*OtherDocument{}
	for i := range t.Other {
		if o := &t.Other[i]; o.File == file && isKustomization(o) {
			byLine[o.Line] = o
		}
	}
	if len(byLine) == 0 {
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return // the YAML reader has read the file: io.EOF
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if o := byLine[root.Line]; o != nil {
			o.Patches = kustomize.Patches(path.Dir(file), root, read)
		}
	}
}
