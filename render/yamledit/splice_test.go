package yamledit

import (
	"errors"
	"strings"
	"testing"
)

// edit builds an Edit for the first occurrence of old after marker in src.
func edit(t *testing.T, src, marker, old, new string) Edit {
	t.Helper()
	m := strings.Index(src, marker)
	if m < 0 {
		t.Fatalf("marker %q not in source", marker)
	}
	i := strings.Index(src[m:], old)
	if i < 0 {
		t.Fatalf("%q not after %q", old, marker)
	}
	start := m + i
	return Edit{File: "t.yaml", Line: 1 + strings.Count(src[:start], "\n"), Start: start, End: start + len(old), Old: old, New: new, What: "gpu.deserved of queue q"}
}

func TestSpliceKeepsColumns(t *testing.T) {
	for _, tc := range []struct {
		name, src, marker, old, new, want string
	}{
		{"same width", "gpu:    {deserved: 3,  limit: 3,  overQuotaWeight: 1}\n", "deserved: ", "3", "2",
			"gpu:    {deserved: 2,  limit: 3,  overQuotaWeight: 1}\n"},
		{"9 to 10 keeps the next column", "gpu:    {deserved: 9,  limit: 9,  overQuotaWeight: 1}\ncpu:    {deserved: -1, limit: -1, overQuotaWeight: 1}\n", "deserved: ", "9", "10",
			"gpu:    {deserved: 10, limit: 9,  overQuotaWeight: 1}\ncpu:    {deserved: -1, limit: -1, overQuotaWeight: 1}\n"},
		{"10 to 9 pads", "gpu:    {deserved: 10, limit: 12, overQuotaWeight: 1}\n", "deserved: ", "10", "9",
			"gpu:    {deserved: 9,  limit: 12, overQuotaWeight: 1}\n"},
		{"a comment stays in its column", "  deserved: 4     # four cards\n  limit: 4\n", "deserved: ", "4", "0.25",
			"  deserved: 0.25  # four cards\n  limit: 4\n"},
		{"one space is always kept", "  deserved: 4 # note\n", "deserved: ", "4", "128",
			"  deserved: 128 # note\n"},
		{"nothing after the value", "  deserved: 4\n  limit: 4\n", "deserved: ", "4", "16",
			"  deserved: 16\n  limit: 4\n"},
		{"the last value of a flow map", "gpu: {deserved: 1, limit: 4}   # x\n", "limit: ", "4", "40",
			"gpu: {deserved: 1, limit: 40}  # x\n"},
		{"CRLF line endings", "a: 1\r\ngpu: {deserved: 9,  limit: 9}\r\nb: 2\r\n", "deserved: ", "9", "10",
			"a: 1\r\ngpu: {deserved: 10, limit: 9}\r\nb: 2\r\n"},
		{"multi-byte text before the value", "# équipe café\ngpu: {deserved: 3,  limit: 3}\n", "deserved: ", "3", "12",
			"# équipe café\ngpu: {deserved: 12, limit: 3}\n"},
		{"no final newline", "gpu: {deserved: 3}", "deserved: ", "3", "30", "gpu: {deserved: 30}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Splice([]byte(tc.src), []Edit{edit(t, tc.src, tc.marker, tc.old, tc.new)})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestSpliceTwoEditsOnOneLine(t *testing.T) {
	src := "gpu:    {deserved: 9,  limit: 9,  overQuotaWeight: 1}\n"
	got, err := Splice([]byte(src), []Edit{edit(t, src, "limit: ", "9", "10"), edit(t, src, "deserved: ", "9", "10")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "gpu:    {deserved: 10, limit: 10, overQuotaWeight: 1}\n"; string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestSpliceRefusesStaleBytes(t *testing.T) {
	src := "x: 1\ngpu: {deserved: 3, limit: 3}\n"
	e := edit(t, src, "deserved: ", "3", "2")
	changed := strings.Replace(src, "deserved: 3", "deserved: 5", 1)
	_, err := Splice([]byte(changed), []Edit{e})
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a Error", err)
	}
	want := `t.yaml:2: expected "3" (gpu.deserved of queue q) at bytes 21-22, found "5": the file changed since the snapshot; take a new snapshot and plan again`
	if err.Error() != want {
		t.Fatalf("err = %s\nwant  %s", err, want)
	}
}

func TestSpliceRefusesOverlap(t *testing.T) {
	src := "gpu: {deserved: 33}\n"
	a := edit(t, src, "deserved: ", "33", "1")
	b := a
	b.Start++
	b.Old = "3"
	if _, err := Splice([]byte(src), []Edit{a, b}); err == nil || !strings.Contains(err.Error(), "two edits overlap") {
		t.Fatalf("err = %v, want an overlap refusal", err)
	}
}

// FuzzSplice: splicing a number into surrounding text changes nothing
// outside the value and its following run of spaces, and puts the new
// number where the old one was.
func FuzzSplice(f *testing.F) {
	f.Add("gpu:    {deserved: ", "3", ",  limit: 3}\n", "10")
	f.Add("  deserved: ", "4", "   # c\n", "0.5")
	f.Add("é: ", "1", "\r\n", "-1")
	f.Fuzz(func(t *testing.T, before, old, after, new string) {
		if old == "" || strings.ContainsAny(old+new, " \n\r,}]") {
			t.Skip()
		}
		src := before + old + after
		e := Edit{File: "f", Line: 1, Start: len(before), End: len(before) + len(old), Old: old, New: new}
		got, err := Splice([]byte(src), []Edit{e})
		if err != nil {
			t.Fatal(err)
		}
		g := string(got)
		if !strings.HasPrefix(g, before+new) {
			t.Fatalf("prefix changed: %q", g)
		}
		rest := g[len(before+new):]
		// What follows differs from after only in a run of spaces.
		if strings.ReplaceAll(rest, " ", "") != strings.ReplaceAll(after, " ", "") {
			t.Fatalf("text after the value changed: %q vs %q", rest, after)
		}
	})
}
