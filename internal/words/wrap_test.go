package words

import (
	"bytes"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		cols                int
		first, indent, text string
		want                string
	}{
		{40, "  ", "  ", "the projects are guaranteed 5 cards in total, but the department has 4",
			"  the projects are guaranteed 5 cards in\n  total, but the department has 4\n"},
		// The room is never narrower than 20; a long word stays whole.
		{10, "", "    ", "a supercalifragilistic word", "a\n    supercalifragilistic\n    word\n"},
		// 0 columns: only the text's own line breaks, each after indent.
		{0, "  ", "  ", "one line that is long enough to wrap at forty columns\ntwo ", "  one line that is long enough to wrap at forty columns\n  two\n"},
	} {
		var b bytes.Buffer
		Wrap(&b, tc.cols, tc.first, tc.indent, tc.text)
		if b.String() != tc.want {
			t.Errorf("Wrap(%d, %q) =\n%q\nwant\n%q", tc.cols, tc.text, b.String(), tc.want)
		}
	}
}
