package words

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/mitchellh/go-wordwrap"
)

// Wrap writes text wrapped at word boundaries to fit in cols, its first
// line after first and the others after indent (first at most as wide as
// indent); a line ends in no space. A word longer than the room stays
// whole; the room is never narrower than 20. cols 0 or less does not wrap:
// only the text's own line breaks start a line (after indent).
func Wrap(b *bytes.Buffer, cols int, first, indent, text string) {
	if cols > 0 {
		text = wordwrap.WrapString(text, uint(max(cols-utf8.RuneCountInString(indent), 20)))
	}
	for i, line := range strings.Split(text, "\n") {
		lead := indent
		if i == 0 {
			lead = first
		}
		b.WriteString(strings.TrimRight(lead+line, " ") + "\n")
	}
}
