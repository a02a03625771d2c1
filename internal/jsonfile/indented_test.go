package jsonfile

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// embed is b as plan.json embeds a state.json: each line after the first
// indented two spaces more, without the final newline.
func embed(b []byte) []byte {
	return bytes.ReplaceAll(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"), []byte("\n  "))
}

// A file decoded where another embeds it reads the value, the sum and the
// summed members of the file itself, its lists in pieces, and its errors
// name the same lines.
func TestDecodeLinesSummedIndentedIsTheFile(t *testing.T) {
	withParallelMin(t, 1)
	lines, indented := bothLayouts(t, 50)
	for _, b := range [][]byte{lines, indented} {
		e := embed(b)
		if cuts := (layout{indent: "  "}).listCuts(e, reflect.TypeFor[listsDoc]()); len(cuts) != 5 {
			t.Fatalf("%d lists cut in the embedded file, want 5:\n%s", len(cuts), e)
		}
		var got, want listsDoc
		fpGot, errGot := DecodeLinesSummedIndented(e, "  ", &got, "digest")
		fpWant, errWant := DecodeLinesSummed(b, &want, "digest")
		if errGot != nil || errWant != nil || !reflect.DeepEqual(got, want) || len(got.Items) != 50 {
			t.Fatalf("another value: %v, %v", errGot, errWant)
		}
		if fpGot.Err != nil || fpGot.Sum != fpWant.Sum || !fpGot.Holds("sha256:00") {
			t.Fatalf("fingerprint %+v, want %+v", fpGot, fpWant)
		}
	}
	// An error in an element, found in pieces, names the file's line.
	bad := []byte(strings.Replace(string(lines), `"ptr":3}`, `"ptr":"3"}`, 1))
	var v listsDoc
	_, errWant := DecodeLinesSummed(bad, &v, "digest")
	v = listsDoc{}
	_, errGot := DecodeLinesSummedIndented(embed(bad), "  ", &v, "digest")
	if errGot == nil || errWant == nil || errGot.Error() != errWant.Error() || !strings.HasPrefix(errGot.Error(), "line 9: /items/3/ptr: ") {
		t.Fatalf("got %v\nwant %v", errGot, errWant)
	}
}

// A line of the embedded file that is not indented is its fingerprint's
// IndentError, naming the line, even where the file's head does not read.
func TestDecodeLinesSummedIndentedFindsAnUnindentedLine(t *testing.T) {
	lines, _ := bothLayouts(t, 5)
	n := bytes.Count(lines, []byte("\n"))
	for _, c := range []struct {
		line     int
		noDigest bool
	}{{2, false}, {4, false}, {n / 2, false}, {n, false}, {n, true}, {2, true}} {
		e := embed(lines)
		if c.noDigest {
			e = bytes.Replace(e, []byte(`"digest"`), []byte(`"digestx"`), 1)
		}
		// The c.line-th line starts after the (c.line-1)-th newline.
		at := 0
		for range c.line - 1 {
			at += bytes.IndexByte(e[at:], '\n') + 1
		}
		spaces := len(e[at:]) - len(bytes.TrimLeft(e[at:], " "))
		e = append(e[:at+1:at+1], e[at+spaces:]...) // one space left of its indentation
		var v listsDoc
		fp, _ := DecodeLinesSummedIndented(e, "  ", &v, "digest")
		var ie *IndentError
		if !errors.As(fp.Err, &ie) || ie.Line != c.line || fp.Holds("sha256:00") {
			t.Errorf("line %d (no digest: %v): fingerprint %+v, want an IndentError at that line", c.line, c.noDigest, fp)
		}
	}
}

// The unindenter takes the indentation off across writes, however they cut
// it.
func TestUnindenterAcrossWrites(t *testing.T) {
	in := "{\n    a,\n    b\n  }"
	for cut := 0; cut <= len(in); cut++ {
		var out bytes.Buffer
		u := &unindenter{w: &out, indent: "  ", line: 1}
		u.Write([]byte(in[:cut]))
		u.Write([]byte(in[cut:]))
		if got := out.String(); got != "{\n  a,\n  b\n}" || u.bad != 0 {
			t.Fatalf("cut at %d: %q, bad line %d", cut, got, u.bad)
		}
	}
}

// A summed member is looked for in an embedded file where SumEmpty looks
// for it in the file itself: up to headBytes past the previous one.
func TestSumEmbeddedFindsMembersAsTheFile(t *testing.T) {
	for _, at := range []int{headBytes - 1, headBytes, headBytes + 1} {
		// "{\n" then lines of padding, so that "\n  \"digest\"" starts at at.
		pad := "{\n" + strings.Repeat("  \"p\": 1,\n", (at-2)/10-2)
		pad += `  "q": "` + strings.Repeat("x", at-len(pad)-len("  \"q\": \"\",")) + `",`
		b := []byte(pad + "\n  \"digest\": \"d\"\n}\n")
		if i := bytes.Index(b, []byte("\n  \"digest\"")); i != at {
			t.Fatalf("the member is at %d, want %d", i, at)
		}
		_, wantValues, wantErr := SumEmpty(b, "digest")
		_, values, err := layout{indent: "  "}.sumEmpty(embed(b), []string{"digest"})
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(values, wantValues) || (at <= headBytes) != (err == nil) {
			t.Errorf("at %d: embedded %q %v, the file %q %v", at, values, err, wantValues, wantErr)
		}
	}
}
