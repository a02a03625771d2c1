package yamlremove

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/render/yamledit"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// testSchema is the kind table as render/commit gives it.
var testSchema = yamledit.Schema{
	APIVersion: "kai.resources/v1alpha1",
	Kinds:      []string{"NodePool", "Department", "Project"},
	Rank:       map[string]int{"NodePool": 0, "Department": 2, "Project": 3},
	Parent:     map[string]string{"Project": "Department"},
}

// rm is a removal for tests: kind/name, and a queue index and name
// (NoQueue for the document).
func rm(kind, name string, queue int, queueName string) Removal {
	return Removal{ID: yamledit.ID{Kind: kind, Name: name}, Queue: queue, QueueName: queueName}
}

// removeIn applies the removals to the files (paths sorted), with each
// removal's Origin where a reader finds the object (unless it has one), on
// a Set that parses every file and on one that trusts an index and parses
// lazily: both must
// give the same result. It returns the new files (a deleted file absent).
func removeIn(t *testing.T, files map[string]string, rs ...Removal) (map[string]string, []string, error) {
	t.Helper()
	var paths []string
	src := map[string][]byte{}
	for p, s := range files {
		paths = append(paths, p)
		src[p] = []byte(s)
	}
	sort.Strings(paths)
	known, at := index(t, paths, src)
	for i := range rs {
		if rs[i].Origin == (yamledit.Origin{}) {
			rs[i].Origin = at[rs[i].ID]
		}
	}
	var results []map[string]string
	var deleted [][]string
	for _, trusted := range []bool{false, true} {
		ts, err := yamledit.NewSet(testSchema, paths, src, known, trusted, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Removals(ts, append([]Removal(nil), rs...))
		if err != nil {
			return nil, nil, err
		}
		out := map[string]string{}
		for _, p := range paths {
			if slices.Contains(got.Deleted, p) {
				continue
			}
			b, err := yamledit.Splice(src[p], got.Edits[p])
			if err != nil {
				t.Fatal(err)
			}
			out[p] = string(b)
		}
		results = append(results, out)
		deleted = append(deleted, got.Deleted)
	}
	if !reflect.DeepEqual(results[0], results[1]) || !reflect.DeepEqual(deleted[0], deleted[1]) {
		t.Fatalf("the lazy set removes differently:\n%q %q\n%q %q", results[0], deleted[0], results[1], deleted[1])
	}
	return results[0], deleted[0], nil
}

// index lists the objects of the files as a reader finds them, and
// where.
func index(t *testing.T, paths []string, src map[string][]byte) ([]yamledit.Object, map[yamledit.ID]yamledit.Origin) {
	t.Helper()
	var known []yamledit.Object
	at := map[yamledit.ID]yamledit.Origin{}
	for _, p := range paths {
		f, err := yamledit.Parse(p, src[p])
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Docs() {
			if d.APIVersion != testSchema.APIVersion {
				continue
			}
			id := yamledit.ID{Kind: d.Kind, Name: d.Name}
			parent := ""
			if pn := yamledit.MapGet(yamledit.MapGet(d.Root, "spec"), "parent"); pn != nil && d.Kind == "Project" {
				parent = pn.Value
			}
			known = append(known, yamledit.Object{ID: id, Parent: parent, File: p, Line: d.FirstLine})
			at[id] = yamledit.Origin{File: p, Line: d.FirstLine}
		}
	}
	return known, at
}

// kubectlDocs decodes src as kubectl apply -f does (apimachinery's
// YAMLOrJSONDecoder into a RawExtension, sigs.k8s.io/yaml underneath),
// empty and null documents skipped: the objects the API server is sent.
func kubectlDocs(t *testing.T, src string) []map[string]any {
	t.Helper()
	d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(src), 4096)
	var out []map[string]any
	for {
		var ext runtime.RawExtension
		err := d.Decode(&ext)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("kubectl cannot read the file: %v\n%s", err, src)
		}
		raw := bytes.TrimSpace(ext.Raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
}

// without is what kubectl sends for src after the removals: its objects
// with the removed documents left out and the removed entries taken out of
// spec.queues (by their index as read).
func without(t *testing.T, src string, rs []Removal) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, o := range kubectlDocs(t, src) {
		kind, _ := o["kind"].(string)
		name, _ := o["metadata"].(map[string]any)["name"].(string)
		var drop []int
		gone := false
		for _, r := range rs {
			if r.Kind == kind && r.Name == name {
				if r.Queue == NoQueue {
					gone = true
				}
				drop = append(drop, r.Queue)
			}
		}
		if gone {
			continue
		}
		if len(drop) > 0 {
			spec := o["spec"].(map[string]any)
			qs := spec["queues"].([]any)
			keep := []any{}
			for i, q := range qs {
				if !containsInt(drop, i) {
					keep = append(keep, q)
				}
			}
			spec["queues"] = keep
		}
		out = append(out, o)
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// checkRemoval checks a removal's result against kubectl's reading: the
// objects of the source minus the removed, exactly; and that it leaves no
// debris: no empty document, no blank line at either end or longer run of
// blank lines than the source had.
func checkRemoval(t *testing.T, src, got string, rs []Removal) {
	t.Helper()
	want := without(t, src, rs)
	if have := kubectlDocs(t, got); !reflect.DeepEqual(have, want) {
		t.Fatalf("kubectl reads\n%v\nwant\n%v\n--- output\n%s", have, want, got)
	}
	if msg := debris(src, got); msg != "" {
		t.Fatalf("%s\n--- source\n%q\n--- output\n%q", msg, src, got)
	}
}

// debris describes what a removal left that the source did not have: an
// empty document (a "---" with nothing but comments and blank lines before
// the next marker or the end, when the source had none), a blank first or
// last line, a longer run of blank lines, a changed final newline.
func debris(src, got string) string {
	if emptyDocs(got) > emptyDocs(src) {
		return "an empty document (a dangling ---)"
	}
	s, g := lines(src), lines(got)
	if len(g) > 0 && strings.TrimSpace(g[0]) == "" && (len(s) == 0 || strings.TrimSpace(s[0]) != "") {
		return "a blank first line"
	}
	if len(g) > 0 && strings.TrimSpace(g[len(g)-1]) == "" && strings.TrimSpace(s[len(s)-1]) != "" {
		return "a blank last line"
	}
	if blankRun(g) > blankRun(s) {
		return "a longer run of blank lines"
	}
	if got != "" && strings.HasSuffix(src, "\n") != strings.HasSuffix(got, "\n") {
		return "the final newline changed"
	}
	return ""
}

func lines(s string) []string {
	s = strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func blankRun(ls []string) int {
	best, run := 0, 0
	for _, l := range ls {
		if strings.TrimSpace(l) == "" {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// emptyDocs counts the "---" lines followed by nothing but comments and
// blank lines up to the next marker or the end.
func emptyDocs(s string) int {
	n := 0
	ls := lines(s)
	for i, l := range ls {
		if strings.TrimRight(l, " ") != "---" {
			continue
		}
		empty := true
		for _, m := range ls[i+1:] {
			if strings.HasPrefix(m, "---") || strings.HasPrefix(m, "...") {
				break
			}
			if t := strings.TrimSpace(m); t != "" && !strings.HasPrefix(t, "#") {
				empty = false
				break
			}
		}
		if empty {
			n++
		}
	}
	return n
}
