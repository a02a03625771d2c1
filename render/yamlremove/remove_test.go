package yamlremove

import (
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/render/yamledit"
)

// proj is a project document in block style with one queue.
func proj(name string) string {
	return "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata:\n  name: " + name +
		"\nspec:\n  parent: d\n  queues:\n  - name: " + name + "-q\n    nodepool: p1\n"
}

// crlf turns a file's line ends into CRLF.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

type removeCase struct {
	name string
	src  string
	rs   []Removal
	want string
}

func runRemoveCases(t *testing.T, cases []removeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, deleted, err := removeIn(t, map[string]string{"t.yaml": tc.src}, tc.rs...)
			if err != nil {
				t.Fatal(err)
			}
			if len(deleted) != 0 {
				t.Fatalf("deleted %v", deleted)
			}
			if out["t.yaml"] != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", out["t.yaml"], tc.want)
			}
			checkRemoval(t, tc.src, tc.want, tc.rs)
		})
	}
}

func TestRemoveDocument(t *testing.T) {
	a, b, c := rm("Project", "a", NoQueue, ""), rm("Project", "b", NoQueue, ""), rm("Project", "c", NoQueue, "")
	sep := proj("a") + "---\n" + proj("b") + "---\n" + proj("c")
	lead := "---\n" + proj("a") + "---\n" + proj("b") + "---\n" + proj("c")
	blank := proj("a") + "\n---\n" + proj("b") + "\n---\n" + proj("c")
	commented := "# tenancy of gpu-prod\n---\n# team a\n" + proj("a") + "---\n# team b\n" + proj("b") +
		"    # b keeps one queue\n\n# team c\n---\n" + proj("c")
	noEOL := proj("a") + "---\n" + strings.TrimSuffix(proj("b"), "\n")
	runRemoveCases(t, []removeCase{
		{"separators, first", sep, []Removal{a}, proj("b") + "---\n" + proj("c")},
		{"separators, middle", sep, []Removal{b}, proj("a") + "---\n" + proj("c")},
		{"separators, last", sep, []Removal{c}, proj("a") + "---\n" + proj("b")},
		{"separators, first two", sep, []Removal{a, b}, proj("c")},
		{"separators, first and last", sep, []Removal{c, a}, proj("b")},
		{"leading markers, first", lead, []Removal{a}, "---\n" + proj("b") + "---\n" + proj("c")},
		{"leading markers, middle", lead, []Removal{b}, "---\n" + proj("a") + "---\n" + proj("c")},
		{"leading markers, last", lead, []Removal{c}, "---\n" + proj("a") + "---\n" + proj("b")},
		{"blank lines, first", blank, []Removal{a}, proj("b") + "\n---\n" + proj("c")},
		{"blank lines, middle", blank, []Removal{b}, proj("a") + "\n---\n" + proj("c")},
		{"blank lines, last", blank, []Removal{c}, proj("a") + "\n---\n" + proj("b")},
		{"comments, first: the file's head stays", commented, []Removal{a},
			"# tenancy of gpu-prod\n---\n# team b\n" + proj("b") + "    # b keeps one queue\n\n# team c\n---\n" + proj("c")},
		{"comments, middle: its comments go", commented, []Removal{b},
			"# tenancy of gpu-prod\n---\n# team a\n" + proj("a") + "# team c\n---\n" + proj("c")},
		{"comments, last: the comment above its marker goes", commented, []Removal{c},
			"# tenancy of gpu-prod\n---\n# team a\n" + proj("a") + "---\n# team b\n" + proj("b") + "    # b keeps one queue\n"},
		{"a comment directly above the first key", "# team a\n" + proj("a") + "---\n" + proj("b"), []Removal{a}, proj("b")},
		{"a file head apart from the first document", "# gpu-prod\n\n" + proj("a") + "---\n" + proj("b"), []Removal{a}, "# gpu-prod\n\n" + proj("b")},
		{"CRLF, first", crlf(sep), []Removal{a}, crlf(proj("b") + "---\n" + proj("c"))},
		{"CRLF, middle", crlf(sep), []Removal{b}, crlf(proj("a") + "---\n" + proj("c"))},
		{"CRLF, last", crlf(sep), []Removal{c}, crlf(proj("a") + "---\n" + proj("b"))},
		{"no final newline, last", noEOL, []Removal{b}, strings.TrimSuffix(proj("a"), "\n")},
		{"no final newline, first", noEOL, []Removal{a}, strings.TrimSuffix(proj("b"), "\n")},
		{"a byte order mark stays", "\ufeff" + proj("a") + "---\n" + proj("b"), []Removal{a}, "\ufeff" + proj("b")},
		{"another kind's document stays", proj("a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", []Removal{a},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"},
		{"flow documents", "---\n{apiVersion: kai.resources/v1alpha1, kind: Department, metadata: {name: d}, spec: {queues: []}}\n" +
			"---\n{apiVersion: kai.resources/v1alpha1, kind: NodePool, metadata: {name: p1}, spec: {labelKey: k, labelValue: v}}\n" +
			"---\n{apiVersion: kai.resources/v1alpha1, kind: Project, metadata: {name: a}, spec: {queues: []}}\n",
			[]Removal{rm("NodePool", "p1", NoQueue, "")},
			"---\n{apiVersion: kai.resources/v1alpha1, kind: Department, metadata: {name: d}, spec: {queues: []}}\n" +
				"---\n{apiVersion: kai.resources/v1alpha1, kind: Project, metadata: {name: a}, spec: {queues: []}}\n"},
		{"an end marker goes with its document", proj("a") + "...\n---\n" + proj("b"), []Removal{a}, proj("b")},
		{"a queue removal of a removed object is part of it", sep, []Removal{rm("Project", "b", 0, "b-q"), b}, proj("a") + "---\n" + proj("c")},
	})
}

// TestRemoveLastDocument: a file whose every document is removed is
// deleted, comments and all; the other files are untouched.
func TestRemoveLastDocument(t *testing.T) {
	files := map[string]string{"a.yaml": "# team a\n---\n" + proj("a") + "# end\n", "b.yaml": proj("b")}
	out, deleted, err := removeIn(t, files, rm("Project", "a", NoQueue, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(deleted, []string{"a.yaml"}) || !reflect.DeepEqual(out, map[string]string{"b.yaml": proj("b")}) {
		t.Fatalf("deleted %v, files %q", deleted, out)
	}
}

// dept is a department whose queues list is the text qs (after "queues:").
func dept(qs string) string {
	return "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata:\n  name: d\nspec:\n  queues:" + qs
}

func TestRemoveQueue(t *testing.T) {
	q := func(i int, name string) Removal { return rm("Department", "d", i, name) }
	block := dept("   # one per pool\n" +
		"  # interactive work\n" +
		"  - name: d-h100    # the big one\n" +
		"    nodepool: h100\n" +
		"    resources:\n" +
		"      gpu: {deserved: 2, limit: 4}\n" +
		"      # cpu left unlimited\n" +
		"  - name: d-a100\n" +
		"    nodepool: a100\n" +
		"  # the inference pool\n" +
		"  - name: d-l4\n" +
		"    nodepool: l4\n" +
		"    # more soon\n" +
		"  deletionType: keep\n")
	indented := dept("\n    - name: d-h100\n      nodepool: h100\n\n    - name: d-a100\n      nodepool: a100\n\n    - name: d-l4\n      nodepool: l4\n---\n" + proj("a"))
	flow := dept(" [{name: d-h100, nodepool: h100}, {name: d-a100, nodepool: a100}, {name: d-l4, nodepool: l4}]  # pools\n")
	lines := dept(" [\n" +
		"    # big\n" +
		"    {name: d-h100, nodepool: h100},   # first\n" +
		"    {name: d-a100, nodepool: a100},\n" +
		"    {name: d-l4,   nodepool: l4}      # last\n" +
		"  ]\n")
	trailingComma := dept(" [\n    {name: d-h100, nodepool: h100},\n    {name: d-a100, nodepool: a100},\n  ]\n")
	flowItems := dept("\n  - {name: d-h100, nodepool: h100}  # h\n  - {name: d-a100, nodepool: a100}  # a\n")
	noEOL := dept("\n  - name: d-h100\n    nodepool: h100\n  - name: d-a100\n    nodepool: a100")
	runRemoveCases(t, []removeCase{
		{"block, first, with its comments", block, []Removal{q(0, "d-h100")}, dept("   # one per pool\n" +
			"  - name: d-a100\n    nodepool: a100\n  # the inference pool\n  - name: d-l4\n    nodepool: l4\n    # more soon\n  deletionType: keep\n")},
		{"block, middle", block, []Removal{q(1, "d-a100")}, dept("   # one per pool\n" +
			"  # interactive work\n  - name: d-h100    # the big one\n    nodepool: h100\n    resources:\n      gpu: {deserved: 2, limit: 4}\n      # cpu left unlimited\n" +
			"  # the inference pool\n  - name: d-l4\n    nodepool: l4\n    # more soon\n  deletionType: keep\n")},
		{"block, last, with its comments", block, []Removal{q(2, "d-l4")}, dept("   # one per pool\n" +
			"  # interactive work\n  - name: d-h100    # the big one\n    nodepool: h100\n    resources:\n      gpu: {deserved: 2, limit: 4}\n      # cpu left unlimited\n" +
			"  - name: d-a100\n    nodepool: a100\n  deletionType: keep\n")},
		{"block, every entry: queues: []", block, []Removal{q(0, "d-h100"), q(1, "d-a100"), q(2, "d-l4")}, dept(" []   # one per pool\n  deletionType: keep\n")},
		{"block, first and last", block, []Removal{q(2, "d-l4"), q(0, "d-h100")}, dept("   # one per pool\n  - name: d-a100\n    nodepool: a100\n  deletionType: keep\n")},
		{"indented with blank lines, first", indented, []Removal{q(0, "d-h100")},
			dept("\n    - name: d-a100\n      nodepool: a100\n\n    - name: d-l4\n      nodepool: l4\n---\n" + proj("a"))},
		{"indented with blank lines, middle", indented, []Removal{q(1, "d-a100")},
			dept("\n    - name: d-h100\n      nodepool: h100\n\n    - name: d-l4\n      nodepool: l4\n---\n" + proj("a"))},
		{"indented with blank lines, last", indented, []Removal{q(2, "d-l4")},
			dept("\n    - name: d-h100\n      nodepool: h100\n\n    - name: d-a100\n      nodepool: a100\n---\n" + proj("a"))},
		{"indented, every entry", indented, []Removal{q(0, "d-h100"), q(1, "d-a100"), q(2, "d-l4")}, dept(" []\n---\n" + proj("a"))},
		{"flow, first", flow, []Removal{q(0, "d-h100")}, dept(" [{name: d-a100, nodepool: a100}, {name: d-l4, nodepool: l4}]  # pools\n")},
		{"flow, middle", flow, []Removal{q(1, "d-a100")}, dept(" [{name: d-h100, nodepool: h100}, {name: d-l4, nodepool: l4}]  # pools\n")},
		{"flow, last", flow, []Removal{q(2, "d-l4")}, dept(" [{name: d-h100, nodepool: h100}, {name: d-a100, nodepool: a100}]  # pools\n")},
		{"flow, first and last", flow, []Removal{q(0, "d-h100"), q(2, "d-l4")}, dept(" [{name: d-a100, nodepool: a100}]  # pools\n")},
		{"flow, every entry", flow, []Removal{q(0, "d-h100"), q(1, "d-a100"), q(2, "d-l4")}, dept(" []  # pools\n")},
		{"flow on lines, first", lines, []Removal{q(0, "d-h100")}, dept(" [\n    {name: d-a100, nodepool: a100},\n    {name: d-l4,   nodepool: l4}      # last\n  ]\n")},
		{"flow on lines, middle", lines, []Removal{q(1, "d-a100")}, dept(" [\n    # big\n    {name: d-h100, nodepool: h100},   # first\n    {name: d-l4,   nodepool: l4}      # last\n  ]\n")},
		{"flow on lines, last: the new last loses its comma", lines, []Removal{q(2, "d-l4")},
			dept(" [\n    # big\n    {name: d-h100, nodepool: h100},   # first\n    {name: d-a100, nodepool: a100}\n  ]\n")},
		{"flow on lines, the comma before a comment becomes a space", lines, []Removal{q(1, "d-a100"), q(2, "d-l4")},
			dept(" [\n    # big\n    {name: d-h100, nodepool: h100}    # first\n  ]\n")},
		{"flow on lines, every entry", lines, []Removal{q(0, "d-h100"), q(1, "d-a100"), q(2, "d-l4")}, dept(" []\n")},
		{"flow with a trailing comma keeps it", trailingComma, []Removal{q(1, "d-a100")}, dept(" [\n    {name: d-h100, nodepool: h100},\n  ]\n")},
		{"block of flow maps, first", flowItems, []Removal{q(0, "d-h100")}, dept("\n  - {name: d-a100, nodepool: a100}  # a\n")},
		{"block of flow maps, last", flowItems, []Removal{q(1, "d-a100")}, dept("\n  - {name: d-h100, nodepool: h100}  # h\n")},
		{"CRLF, first", crlf(block), []Removal{q(0, "d-h100")}, crlf(dept("   # one per pool\n" +
			"  - name: d-a100\n    nodepool: a100\n  # the inference pool\n  - name: d-l4\n    nodepool: l4\n    # more soon\n  deletionType: keep\n"))},
		{"CRLF, every entry", crlf(block), []Removal{q(0, "d-h100"), q(1, "d-a100"), q(2, "d-l4")}, crlf(dept(" []   # one per pool\n  deletionType: keep\n"))},
		{"CRLF flow on lines, last", crlf(lines), []Removal{q(2, "d-l4")},
			crlf(dept(" [\n    # big\n    {name: d-h100, nodepool: h100},   # first\n    {name: d-a100, nodepool: a100}\n  ]\n"))},
		{"no final newline, last", noEOL, []Removal{q(1, "d-a100")}, dept("\n  - name: d-h100\n    nodepool: h100")},
		{"no final newline, the only one", dept("\n  - name: d-h100\n    nodepool: h100"), []Removal{q(0, "d-h100")}, dept(" []")},
		{"a project's queue, between documents", proj("a") + "---\n" + strings.Replace(proj("b"), "  - name: b-q\n    nodepool: p1\n", "  - name: b-q\n    nodepool: p1\n  - name: b-r\n    nodepool: p2\n", 1) + "---\n" + proj("c"),
			[]Removal{rm("Project", "b", 0, "b-q")},
			proj("a") + "---\n" + strings.Replace(proj("b"), "  - name: b-q\n    nodepool: p1\n", "  - name: b-r\n    nodepool: p2\n", 1) + "---\n" + proj("c")},
		{"no final newline: the last entry of one document and the next document", noEOL + "\n---\n" + strings.TrimSuffix(proj("a"), "\n"),
			[]Removal{q(1, "d-a100"), rm("Project", "a", NoQueue, "")}, dept("\n  - name: d-h100\n    nodepool: h100")},
		{"a dash alone on its line", dept("\n  -\n    name: d-h100\n    nodepool: h100\n  - name: d-a100\n    nodepool: a100\n"), []Removal{q(0, "d-h100")},
			dept("\n  - name: d-a100\n    nodepool: a100\n")},
		{"a blank line and a comment between entries", dept("\n  - name: d-h100\n    nodepool: h100\n\n  # spare capacity\n\n  - name: d-a100\n    nodepool: a100\n"), []Removal{q(0, "d-h100")},
			dept("\n  # spare capacity\n\n  - name: d-a100\n    nodepool: a100\n")},
		{"a queue and a document of one file", proj("a") + "---\n" + proj("b"), []Removal{rm("Project", "b", NoQueue, ""), rm("Project", "a", 0, "a-q")},
			strings.Replace(proj("a"), ":\n  - name: a-q\n    nodepool: p1\n", ": []\n", 1)},
	})
}

// TestRemoveRefusals: what a removal refuses, with the file and line.
func TestRemoveRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		r         Removal
		want      string
	}{
		{"the entry is named otherwise", proj("a"), rm("Project", "a", 0, "old"),
			`t.yaml:8: cannot remove queue old of project a: entry 0 of spec.queues is named "a-q" in the file: the file changed since the snapshot; take a new snapshot and plan again`},
		{"no such entry", proj("a"), rm("Project", "a", 1, "a-r"),
			"t.yaml:8: cannot remove queue a-r of project a: spec.queues has 1 entries in the file, not an entry 1: the file changed since the snapshot; take a new snapshot and plan again"},
		{"no such object", proj("a"), Removal{ID: yamledit.ID{Kind: "Project", Name: "z"}, Origin: yamledit.Origin{File: "t.yaml", Line: 1}, Queue: NoQueue},
			"t.yaml:1: Project z is not in this file at the snapshot's commit any more: the file changed since the snapshot; take a new snapshot and plan again"},
		{"queues through an alias", "x: &q\n  - name: a-q\n    nodepool: p1\n---\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: a}\nspec:\n  queues: *q\n",
			rm("Project", "a", 0, "a-q"), "t.yaml:9: spec.queues of project a is reached through the YAML alias *q (anchor &q on line 1); splice does not remove an entry from a value shared through an anchor: edit it by hand, or render with --format patch"},
		{"an entry holds an anchor another entry uses", dept("\n  - name: d-h100\n    nodepool: h100\n    resources: &r {gpu: {deserved: 1}}\n  - name: d-a100\n    nodepool: a100\n    resources: *r\n"),
			rm("Department", "d", 0, "d-h100"),
			"t.yaml:9: queue d-h100 of department d lies inside the YAML anchor &r (line 9), which an alias shares: splice does not remove it, as every alias of it would change too; edit it by hand, or render with --format patch"},
		{"a tag on the list", dept(" !!seq\n  - name: d-h100\n    nodepool: h100\n"), rm("Department", "d", 0, "d-h100"),
			"t.yaml:6: cannot remove queue d-h100 of department d: the line of queues holds more than the key (a tag or an anchor); remove it by hand, or render with --format patch"},
		{"a directive", "%YAML 1.1\n---\n" + proj("a") + "---\n" + proj("b"), rm("Project", "a", NoQueue, ""),
			"t.yaml: cannot remove project a: the file has a YAML directive (%YAML, %TAG); remove it by hand, or render with --format patch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := removeIn(t, map[string]string{"t.yaml": tc.src}, tc.r)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tc.want {
				t.Fatalf("err = %s\nwant  %s", err, tc.want)
			}
		})
	}
}
