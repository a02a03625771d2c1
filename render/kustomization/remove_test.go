package kustomization

import "testing"

// TestRemove: a deleted file leaves its folder's
// kustomization the way the splice adds one, exact bytes.
func TestRemove(t *testing.T) {
	for _, c := range []struct {
		name, src string
		gone      []string
		want, err string
	}{
		{name: "block, the middle one with its comment",
			src:  "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - pools.yaml      # the node pools\n  # team a, until Q3\n  - a.yaml\n  - projects.yaml\nnamespace: kai\n",
			gone: []string{"a.yaml"},
			want: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - pools.yaml      # the node pools\n  - projects.yaml\nnamespace: kai\n"},
		{name: "block, named ./x",
			src:  "resources:\n- ./a.yaml\n- b.yaml\n",
			gone: []string{"a.yaml"},
			want: "resources:\n- b.yaml\n"},
		{name: "block, the only one: an empty list",
			src:  "resources:\n- a.yaml\nimages: []\n",
			gone: []string{"a.yaml"},
			want: "resources: []\nimages: []\n"},
		{name: "block, CRLF and no final newline, the last",
			src:  "resources:\r\n- a.yaml\r\n- b.yaml",
			gone: []string{"b.yaml"},
			want: "resources:\r\n- a.yaml"},
		{name: "flow on one line",
			src:  "resources: [a.yaml, b.yaml, c.yaml] # all of them\n",
			gone: []string{"b.yaml"},
			want: "resources: [a.yaml, c.yaml] # all of them\n"},
		{name: "flow over several lines, the last",
			src:  "resources: [\n  a.yaml,\n  c.yaml\n]\n",
			gone: []string{"c.yaml"},
			want: "resources: [\n  a.yaml\n]\n"},
		{name: "a file of a folder below, by its path",
			src:  "resources:\n  - pools/gpu.yaml\n  # one per department\n  - ./departments/legacy.yaml\n  - departments/research.yaml\n",
			gone: []string{"departments/legacy.yaml"},
			want: "resources:\n  - pools/gpu.yaml\n  - departments/research.yaml\n"},
		{name: "a name it does not list", src: "resources:\n- a.yaml\n", gone: []string{"z.yaml"}, want: "resources:\n- a.yaml\n"},
		{name: "no resources", src: "kind: Kustomization\n", gone: []string{"a.yaml"}, want: "kind: Kustomization\n"},
		{name: "an alias", src: "x: &l [a.yaml]\nresources: *l\n", gone: []string{"a.yaml"},
			err: "kustomization.yaml:2: resources is behind a YAML alias or anchor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			edits, err := Remove("kustomization.yaml", []byte(c.src), c.gone)
			checkKustomization(t, c.src, edits, err, c.want, c.err)
		})
	}
}
