package yamlremove

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/render/yamledit"
)

// genTenancy writes a random tenancy file: one to four documents (pools,
// departments, projects, now and then a ConfigMap), each with up to three
// queues, in layouts drawn from r: "---" before the first document or not,
// blank lines and comments between documents (above the marker, after it,
// after the last line, indented), block lists indented or not, flow lists
// on one line or one item a line (with or without a trailing comma), block
// lists of flow maps, comments above and after entries, blank lines between
// entries, CRLF, no final newline, a byte order mark. It returns the file
// and the objects with their queue names.
func genTenancy(r *rand.Rand) (string, []genObject) {
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString("# tenancy of gpu-prod\n")
		if r.IntN(2) == 0 {
			b.WriteString("\n")
		}
	}
	n := 1 + r.IntN(4)
	var objs []genObject
	kinds := []string{"NodePool", "Department", "Project"}
	for i := range n {
		if i > 0 || r.IntN(2) == 0 {
			if i > 0 && r.IntN(3) == 0 {
				b.WriteString("\n")
			}
			if i > 0 && r.IntN(4) == 0 {
				b.WriteString("# before the marker\n")
			}
			b.WriteString("---\n")
		}
		if r.IntN(3) == 0 {
			b.WriteString("# about this object\n")
		}
		if r.IntN(10) == 0 {
			b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm" + fmt.Sprint(i) + "\ndata: {a: b}\n")
			continue
		}
		o := genObject{kind: kinds[r.IntN(3)], name: fmt.Sprintf("o%d", i)}
		for q := range r.IntN(4) {
			o.queues = append(o.queues, fmt.Sprintf("%s-q%d", o.name, q))
		}
		objs = append(objs, o)
		b.WriteString("apiVersion: kai.resources/v1alpha1\nkind: " + o.kind + "\nmetadata:\n  name: " + o.name + "\nspec:\n")
		if o.kind == "NodePool" {
			b.WriteString("  labelKey: pool\n  labelValue: " + o.name + "\n")
		}
		if o.kind != "NodePool" || len(o.queues) > 0 {
			writeQueues(&b, r, o.queues)
		}
		if r.IntN(3) == 0 {
			b.WriteString("  deletionType: keep\n")
		}
		switch r.IntN(5) {
		case 0:
			b.WriteString("  # last words\n")
		case 1:
			b.WriteString("# after it\n")
		}
	}
	s := b.String()
	if r.IntN(4) == 0 {
		s = crlf(s)
	}
	if r.IntN(5) == 0 {
		s = strings.TrimRight(s, "\r\n")
	}
	if r.IntN(8) == 0 {
		s = "\ufeff" + s
	}
	return s, objs
}

// genObject is an object genTenancy wrote.
type genObject struct {
	kind, name string
	queues     []string
}

// writeQueues writes spec.queues in a layout drawn from r.
func writeQueues(b *strings.Builder, r *rand.Rand, qs []string) {
	item := func(q string) string { return "{name: " + q + ", nodepool: p1}" }
	layout := r.IntN(4)
	if len(qs) == 0 {
		layout = 0 // an empty block list is no list
	}
	switch layout {
	case 0: // flow, one line
		parts := make([]string, len(qs))
		for i, q := range qs {
			parts[i] = item(q)
		}
		b.WriteString("  queues: [" + strings.Join(parts, ", ") + "]")
		if r.IntN(2) == 0 {
			b.WriteString("   # pools")
		}
		b.WriteString("\n")
	case 1: // flow, one item a line
		b.WriteString("  queues: [\n")
		comma := r.IntN(2) == 0
		for i, q := range qs {
			if r.IntN(3) == 0 {
				b.WriteString("    # " + q + "\n")
			}
			b.WriteString("    " + item(q))
			if i+1 < len(qs) || comma {
				b.WriteString(",")
			}
			if r.IntN(3) == 0 {
				b.WriteString("   # same line")
			}
			b.WriteString("\n")
		}
		b.WriteString("  ]\n")
	default: // block, indented or not, of maps or flow maps
		dash := "  "
		if r.IntN(2) == 0 {
			dash = "    "
		}
		b.WriteString("  queues:")
		if r.IntN(3) == 0 {
			b.WriteString("  # one per pool")
		}
		b.WriteString("\n")
		flowMaps := r.IntN(3) == 0
		gap := r.IntN(3) == 0
		for i, q := range qs {
			if i > 0 && gap {
				b.WriteString("\n")
			}
			if r.IntN(3) == 0 {
				b.WriteString(dash + "# " + q + "\n")
			}
			if flowMaps {
				b.WriteString(dash + "- " + item(q) + "\n")
				continue
			}
			b.WriteString(dash + "- name: " + q)
			if r.IntN(3) == 0 {
				b.WriteString("   # same line")
			}
			b.WriteString("\n" + dash + "  nodepool: p1\n")
			if r.IntN(2) == 0 {
				b.WriteString(dash + "  resources:\n" + dash + "    gpu: {deserved: 1, limit: 2}\n")
			}
			if r.IntN(4) == 0 {
				b.WriteString(dash + "  # under it\n")
			}
		}
	}
}

// FuzzRemovals: for random tenancy files and a random choice of documents
// and queue entries, removing them from the bytes and parsing as kubectl
// does equals parsing and then dropping them; no debris is left (see
// debris), and every document not touched is still there byte for byte.
func FuzzRemovals(f *testing.F) {
	for seed := range uint64(64) {
		f.Add(seed, uint32(seed*2654435761))
	}
	f.Fuzz(func(t *testing.T, seed uint64, pick uint32) {
		r := rand.New(rand.NewPCG(seed, uint64(pick)))
		src, objs := genTenancy(r)
		var rs []Removal
		touched := map[string]bool{}
		for _, o := range objs {
			switch r.IntN(4) {
			case 0:
				rs = append(rs, rm(o.kind, o.name, NoQueue, ""))
				touched[o.name] = true
			case 1:
				for i, q := range o.queues {
					if r.IntN(2) == 0 {
						rs = append(rs, rm(o.kind, o.name, i, q))
						touched[o.name] = true
					}
				}
			}
		}
		if len(rs) == 0 {
			return
		}
		out, deleted, err := removeIn(t, map[string]string{"t.yaml": src}, rs...)
		if err != nil {
			t.Fatalf("%v\n--- source\n%s", err, src)
		}
		if len(deleted) > 0 {
			if len(without(t, src, rs)) != 0 {
				t.Fatalf("deleted a file that keeps objects\n%s", src)
			}
			return
		}
		got := out["t.yaml"]
		checkRemoval(t, src, got, rs)
		whole, err := yamledit.Parse("t.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range whole.Docs() {
			if touched[d.Name] {
				continue
			}
			text := string(whole.Src()[whole.LineStart(d.FirstLine):whole.LineNext(d.LastLine)])
			if !strings.Contains(got, strings.TrimRight(text, "\r\n")) {
				t.Fatalf("document %s changed\n--- source\n%q\n--- output\n%q", d.Name, src, got)
			}
		}
	})
}
