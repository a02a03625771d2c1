package commit

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/render/yamledit"
)

// fuzzLayout writes a department and a project in one of many hand
// formats chosen by the bits of style: indentation, indentless lists, flow
// or block quota maps, aligned columns, CRLF, a byte order mark, a missing
// final newline, comments (with tabs and any text) above and on the quota
// line, quoted names, 1.0 for 1, a priority, a memory block or none,
// non-ASCII text before the values, a flow list of queues.
func fuzzLayout(style uint32, name, comment string) string {
	st := fuzzStyle(style)
	var b strings.Builder
	st.doc(&b, "Department", "d", "", "d-"+name, comment)
	st.doc(&b, "Project", "a", st.ind()+"parent: d\n", "a-"+name, comment)
	s := b.String()
	if st.bit(4) {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	if st.bit(5) {
		s = strings.TrimRight(s, "\r\n")
	}
	if st.bit(6) {
		s = "\ufeff" + s
	}
	return s
}

// fuzzStyle is the bits of fuzzLayout's style.
type fuzzStyle uint32

func (st fuzzStyle) bit(i uint) bool { return st&(1<<i) != 0 }

// ind is one level of indentation.
func (st fuzzStyle) ind() string {
	if st.bit(0) {
		return "    "
	}
	return "  "
}

// q quotes a name, or not.
func (st fuzzStyle) q(s string) string {
	switch {
	case st.bit(9) && st.bit(10):
		return "'" + s + "'"
	case st.bit(9):
		return `"` + s + `"`
	}
	return s
}

// one is how the number 1 is written.
func (st fuzzStyle) one() string {
	if st.bit(11) {
		return "1.0"
	}
	return "1"
}

// quotaLine is one resource's quota: a block, a flow map with aligned
// columns, or a plain flow map.
func (st fuzzStyle) quotaLine(pad, res, d, l, w string) string {
	ind := st.ind()
	switch {
	case st.bit(2) && st.bit(3): // block
		return pad + res + ":\n" + pad + ind + "deserved: " + d + "\n" + pad + ind + "limit: " + l + "\n" + pad + ind + "overQuotaWeight: " + w + "\n"
	case st.bit(2): // flow, aligned columns
		return pad + fmt.Sprintf("%-8s{deserved: %-3s limit: %-3s overQuotaWeight: %s}", res+":", d+",", l+",", w) + "\n"
	}
	return pad + res + ": {deserved: " + d + ", limit: " + l + ", overQuotaWeight: " + w + "}\n"
}

// doc writes one object with one queue.
func (st fuzzStyle) doc(b *strings.Builder, kind, obj, extra, queue, comment string) {
	ind := st.ind()
	b.WriteString("---\napiVersion: kai.resources/v1alpha1\nkind: " + kind + "\nmetadata:\n" + ind + "name: " + st.q(obj) + "\n")
	if st.bit(14) {
		b.WriteString(ind + "annotations: {note: \"équipe — données ✓\"}\n")
	}
	b.WriteString("spec:\n" + extra)
	b.WriteString(ind + "queues:\n")
	dash := ind + ind // the list under queues:, or at its key's column
	if st.bit(1) {
		dash = ind
	}
	item := dash + "- "
	pad := dash + "  " // keys of the item
	if st.bit(0) {
		item = dash + "-   "
		pad = dash + "    "
	}
	if st.bit(15) {
		w := "1"
		b.WriteString(dash + "- {name: " + st.q(queue) + ", nodepool: p1, resources: {gpu: {deserved: " + st.one() + ", limit: 4, overQuotaWeight: " + w + "}}}\n")
		return
	}
	b.WriteString(item + "name: " + st.q(queue) + "\n")
	b.WriteString(pad + "nodepool: p1\n")
	if st.bit(12) {
		b.WriteString(pad + "priority: 100\n")
	}
	b.WriteString(pad + "resources:\n")
	rpad := pad + ind
	if st.bit(7) {
		b.WriteString(rpad + "# " + comment + "\n")
	}
	gl := st.quotaLine(rpad, "gpu", st.one(), "4", "1")
	if st.bit(8) {
		gl = strings.TrimSuffix(gl, "\n") + "\t# " + comment + "\n"
	}
	b.WriteString(gl)
	b.WriteString(st.quotaLine(rpad, "cpu", "-1", "-1", st.one()))
	if st.bit(13) {
		b.WriteString(st.quotaLine(rpad, "memory", "-1", "-1", "1"))
	}
}

// fuzzNumber turns an int into a quota number in HCL: -1 (unlimited),
// whole numbers and two-decimal fractions.
func fuzzNumber(v int32, frac bool) string {
	n := int64(v)%5000 - 1
	if n < -1 {
		n = -n
	}
	if frac && n > 0 {
		return fmt.Sprintf("%d.%02d", n/100, n%100)
	}
	return fmt.Sprint(n)
}

var nameRE = regexp.MustCompile(`[^a-z0-9]`)

// FuzzSpliceTenancy: for any of the layouts above and any values, the
// splice of a plan that changes values, fills omitted fields and adds a
// queue and a project parses back to exactly the planned objects
// (Prepare checks it, and so does this test), and every byte outside
// the edited spans is unchanged: the output is the source with each span
// (a value and the run of spaces re-padded after it, or an empty point
// where text is inserted) replaced, and nothing else.
func FuzzSpliceTenancy(f *testing.F) {
	f.Add(uint32(0), "rtx", "note", int32(3), int32(7), int32(250), false, false)
	f.Add(uint32(0xffff), "h100", "tabs\tand é", int32(1), int32(0), int32(99), true, true)
	f.Add(uint32(0b1010_1010_1010_1010), "a", "x", int32(12), int32(-5), int32(10000), true, false)
	f.Add(uint32(0b0101_0101_0101_0101), "b200", "", int32(0), int32(4999), int32(1), false, true)
	f.Fuzz(func(t *testing.T, style uint32, name, comment string, a, b, c int32, frac, newProject bool) {
		name = nameRE.ReplaceAllString(strings.ToLower(name), "")
		if name == "" || len(name) > 20 {
			name = "q"
		}
		// A comment holds any printable text (and tabs) up to the line's end.
		comment = strings.Map(func(r rune) rune {
			if r == '\t' || unicode.IsPrint(r) && r != 0xfeff {
				return r
			}
			return -1
		}, strings.ToValidUTF8(comment, ""))
		src := fuzzLayout(style, name, comment)
		desired := fuzzDesired(name, fuzzNumber(a, frac), fuzzNumber(b, frac), fuzzNumber(c, false), newProject)
		fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": []byte(src)}, []string{"t.yaml"}, desired)
		if _, err := Prepare(fx.Plan, fx.Repo, Options{}); err != nil {
			t.Fatalf("Prepare: %v\n--- source\n%s\n--- desired\n%s", err, src, desired)
		}
		lazySplice(t, fx) // the lazy set edits as the whole parse does
		checkSpans(t, fx, src)
	})
}

// fuzzDesired is the desired file of FuzzSpliceTenancy: values changed,
// omitted fields filled, a queue added, and with newProject a project.
func fuzzDesired(name, va, vb, vc string, newProject bool) string {
	desired := fmt.Sprintf(`
project "a" {
  queue "p1" {
    gpu { deserved = %s }
    cpu { limit = %s }
    memory = { limit = %s }
  }
  queue "p2" {
    name = "a2-%s"
    priority = 50
    gpu = { deserved = %s, limit = %s }
  }
}
department "d" {
  queue "p1" {
    gpu { deserved = %s }
  }
}
`, va, vc, vc, name, vb, vc, vb)
	if newProject {
		desired += fmt.Sprintf(`
project "n" {
  department = "d"
  queue "p1" {
    name = "n-%s"
    cpu = { deserved = %s }
  }
}
`, name, va)
	}
	return desired
}

// checkSpans: everything outside the spans of the splice of fx is the
// source src, byte for byte, and the output parses to the planned objects.
func checkSpans(t *testing.T, fx plantest.Fixture, src string) {
	t.Helper()
	// The spans: everything outside them is the source, byte for byte.
	ts, err := newSet(fx.Plan.Snapshot, []string{"t.yaml"}, map[string][]byte{"t.yaml": []byte(src)}, false)
	if err != nil {
		t.Fatal(err)
	}
	edits, err := tenancyEdits(fx.Plan, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, spans, err := yamledit.SpliceSpans([]byte(src), edits["t.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	es := yamledit.SortEdits(edits["t.yaml"])
	var srcRest, outRest strings.Builder
	at, outAt := 0, 0
	for _, sp := range spans {
		srcRest.WriteString(src[at:sp.Start])
		outRest.Write(out[outAt:sp.OutStart])
		at, outAt = sp.End, sp.OutEnd
		e := es[sp.Edit]
		// A replaced span is the old value, closing brackets and spaces.
		if rest := src[sp.Start:sp.End]; !strings.HasPrefix(rest, e.Old) || strings.Trim(rest[len(e.Old):], ",]} ") != "" {
			t.Fatalf("span %d-%d %q is more than the value %q", sp.Start, sp.End, rest, e.Old)
		}
	}
	srcRest.WriteString(src[at:])
	outRest.Write(out[outAt:])
	if srcRest.String() != outRest.String() {
		t.Fatalf("bytes outside the edited spans changed\n--- source\n%q\n--- output\n%q", src, out)
	}
	// And it parses to the planned objects.
	want := targetSpecs(fx.Plan, nil)
	if err := checkTarget(want, map[string][]byte{"t.yaml": out}); err != nil {
		t.Fatalf("%v\n--- output\n%s", err, out)
	}
}
