package diag

import (
	"bytes"
	"testing"
)

// FuzzWriteText: no source and no range (a plan file's locations are
// input too: any offsets, lines and ends) makes the text writer panic, and
// it writes no control character but newlines, and at most
// maxSnippetLines source lines per range.
func FuzzWriteText(f *testing.F) {
	f.Add([]byte("project \"a\" {\n  x = 1\n}\n"), 15, 20, 2, 2, 0, 30)
	f.Add([]byte("a\r\nb\x1b\n\n"), 3, 1, 1, 5, -4, 99)
	f.Add([]byte(""), 0, 0, 1, 1, 0, 0)
	f.Fuzz(func(t *testing.T, src []byte, start, end, line, endLine, ctxStart, ctxEnd int) {
		r := Range{File: "d.hcl", HCL: true, Start: Pos{Line: line, Byte: start}, End: Pos{Line: endLine, Byte: end}}
		ctx := Range{File: "d.hcl", HCL: true, Start: Pos{Byte: ctxStart}, End: Pos{Byte: ctxEnd}}
		files := ParseFiles(map[string][]byte{"d.hcl": src})
		r.Block = files.Block("d.hcl", start)
		var b bytes.Buffer
		d := Diagnostic{Severity: Error, Summary: string(src), Detail: string(src), Subject: &r, Context: &ctx}
		if err := WriteText(&b, []Diagnostic{d}, files, Style{Columns: 40}); err != nil {
			t.Fatal(err)
		}
		numbered := 0
		for _, l := range bytes.Split(b.Bytes(), []byte("\n")) {
			for _, c := range l {
				if c < 0x20 && c != '\t' || c == 0x7f {
					t.Fatalf("control byte %#x in %q", c, l)
				}
			}
			if len(l) > 5 && bytes.Equal(l[4:6], []byte(": ")) && l[3] >= '0' && l[3] <= '9' {
				numbered++
			}
		}
		if numbered > maxSnippetLines+1 { // the summary itself may look numbered
			t.Fatalf("%d source lines:\n%s", numbered, b.String())
		}
	})
}
