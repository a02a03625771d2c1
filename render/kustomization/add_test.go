package kustomization

import (
	"testing"

	"github.com/krmplan/krmplan/render/yamledit"
)

// kustomizationCases are the cases of TestAdd: a
// kustomization, the new files of its folder, and the exact bytes after
// the insertion (or the refusal).
var kustomizationCases = []struct {
	name, src string
	add       []string
	want, err string
}{
	{name: "block, sorted: in sorted place",
		src:  "resources:\n- a.yaml\n- c.yaml\n",
		add:  []string{"b.yaml"},
		want: "resources:\n- a.yaml\n- b.yaml\n- c.yaml\n"},
	{name: "block, indented, comments and other keys stay",
		src:  "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - pools.yaml      # the node pools\n  - projects.yaml\nnamespace: kai\n",
		add:  []string{"presets.yaml"},
		want: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - pools.yaml      # the node pools\n  - presets.yaml\n  - projects.yaml\nnamespace: kai\n"},
	{name: "block, before the first item",
		src:  "resources:\n    -   b.yaml\n",
		add:  []string{"a.yaml"},
		want: "resources:\n    -   a.yaml\n    -   b.yaml\n"},
	{name: "block, not sorted: at the end",
		src:  "resources:\n- z.yaml\n- a.yaml\nimages: []\n",
		add:  []string{"m.yaml"},
		want: "resources:\n- z.yaml\n- a.yaml\n- m.yaml\nimages: []\n"},
	{name: "block, two new files",
		src:  "resources:\n- b.yaml\n- d.yaml\n",
		add:  []string{"a.yaml", "c.yaml", "e.yaml"},
		want: "resources:\n- a.yaml\n- b.yaml\n- c.yaml\n- d.yaml\n- e.yaml\n"},
	{name: "block, double quotes as the neighbour",
		src:  "resources:\n  - \"a.yaml\"\n",
		add:  []string{"b.yaml"},
		want: "resources:\n  - \"a.yaml\"\n  - \"b.yaml\"\n"},
	{name: "block, single quotes as the neighbour",
		src:  "resources:\n- 'a.yaml'\n",
		add:  []string{"it's.yaml"},
		want: "resources:\n- 'a.yaml'\n- 'it''s.yaml'\n"},
	{name: "block, CRLF and no final newline",
		src:  "resources:\r\n- a.yaml",
		add:  []string{"b.yaml"},
		want: "resources:\r\n- a.yaml\r\n- b.yaml"},
	{name: "flow on one line",
		src:  "resources: [a.yaml, c.yaml] # all of them\n",
		add:  []string{"b.yaml"},
		want: "resources: [a.yaml, b.yaml, c.yaml] # all of them\n"},
	{name: "flow, first place",
		src:  "resources: [b.yaml]\n",
		add:  []string{"a.yaml"},
		want: "resources: [a.yaml, b.yaml]\n"},
	{name: "flow, empty",
		src:  "resources: []\n",
		add:  []string{"a.yaml"},
		want: "resources: [a.yaml]\n"},
	{name: "flow over several lines",
		src:  "resources: [\n  a.yaml,\n  c.yaml\n]\n",
		add:  []string{"d.yaml"},
		want: "resources: [\n  a.yaml,\n  c.yaml,\n  d.yaml\n]\n"},
	{name: "no resources: a block list at the end",
		src:  "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization",
		add:  []string{"b.yaml", "a.yaml"},
		want: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- a.yaml\n- b.yaml\n"},
	{name: "a name it lists already (as ./x)",
		src:  "resources:\n- ./a.yaml\n",
		add:  []string{"a.yaml"},
		want: "resources:\n- ./a.yaml\n"},
	{name: "a name YAML would misread is quoted",
		src:  "resources:\n- a.yaml\n",
		add:  []string{"x: #1.yaml"},
		want: "resources:\n- a.yaml\n- \"x: #1.yaml\"\n"},
	{name: "an alias", src: "x: &l [a.yaml]\nresources: *l\n", add: []string{"b.yaml"},
		err: "kustomization.yaml:2: resources is behind a YAML alias or anchor"},
	{name: "not a list", src: "resources: a.yaml\n", add: []string{"b.yaml"},
		err: "kustomization.yaml:1: resources is not a list"},
	{name: "an entry that is a map", src: "resources:\n- {path: a.yaml}\n", add: []string{"b.yaml"},
		err: "kustomization.yaml:2: a resources entry that is not a plain string"},
	{name: "two documents", src: "resources: []\n---\nresources: []\n", add: []string{"b.yaml"},
		err: "kustomization.yaml: not one block mapping, as a kustomization is"},
}

func TestAdd(t *testing.T) {
	for _, c := range kustomizationCases {
		t.Run(c.name, func(t *testing.T) {
			edits, err := Add("kustomization.yaml", []byte(c.src), c.add)
			checkKustomization(t, c.src, edits, err, c.want, c.err)
		})
	}
}

// checkKustomization checks the edits of a kustomization (bytes src), or
// their error: the spliced bytes must be want, or the error wantErr.
func checkKustomization(t *testing.T, src string, edits []yamledit.Edit, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("err = %v, want %s", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := yamledit.Splice([]byte(src), edits)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
}
