package kustomization

import "testing"

// TestRename: a renamed file keeps its place in the list, its "./", its
// quoting and its comments (the spaces after it re-padded, as after every
// edited value), exact bytes.
func TestRename(t *testing.T) {
	for _, c := range []struct {
		name, src string
		names     map[string]string
		want, err string
	}{
		{name: "block, with a comment",
			src:   "resources:\n  - a.yaml\n  - nlp.yaml   # the language team\n  - vision.yaml\n",
			names: map[string]string{"nlp.yaml": "language.yaml"},
			want:  "resources:\n  - a.yaml\n  - language.yaml # the language team\n  - vision.yaml\n"},
		{name: "flow, quoted, by its path, with ./",
			src:   "resources: [\"./projects/nlp.yaml\", 'projects/vision.yaml']\n",
			names: map[string]string{"projects/nlp.yaml": "projects/language.yaml", "projects/vision.yaml": "projects/sight.yaml"},
			want:  "resources: [\"./projects/language.yaml\", 'projects/sight.yaml']\n"},
		{name: "a name it does not list", src: "resources:\n- a.yaml\n", names: map[string]string{"z.yaml": "y.yaml"}, want: "resources:\n- a.yaml\n"},
		{name: "no resources", src: "kind: Kustomization\n", names: map[string]string{"a.yaml": "b.yaml"}, want: "kind: Kustomization\n"},
		{name: "an alias", src: "x: &l [a.yaml]\nresources: *l\n", names: map[string]string{"a.yaml": "b.yaml"},
			err: "kustomization.yaml:2: resources is behind a YAML alias or anchor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			edits, err := Rename("kustomization.yaml", []byte(c.src), c.names)
			checkKustomization(t, c.src, edits, err, c.want, c.err)
		})
	}
}
