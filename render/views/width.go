package views

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/mitchellh/go-wordwrap"
)

// DefaultColumns is the width of a text view when the terminal's is not
// known (not a terminal, no COLUMNS), and the width of the markdown
// view's bars: 80 columns, where a GitHub pull-request comment's code
// block and most terminals still show a line whole.
const DefaultColumns = 80

// MinColumns is the narrowest a text view gets: bars need 20 cells.
const MinColumns = 40

// WithColumns returns s for a page cols wide (DefaultColumns when cols is
// 0 or less, MinColumns when it is narrower). Bars, the fair-share table
// and the findings fit in it; a line passes it only where one name, number
// or word alone is longer.
func (s Style) WithColumns(cols int) Style {
	s.cols = cols
	return s
}

// Columns is the width of s's page.
func (s Style) Columns() int {
	if s.cols <= 0 {
		return DefaultColumns
	}
	return max(s.cols, MinColumns)
}

// wrapAt writes text wrapped at word boundaries to fit in cols, its first
// line after first and the others after indent (first at most as wide as
// indent); a line ends in no space. A word longer than the room stays
// whole.
func wrapAt(b *bytes.Buffer, cols int, first, indent, text string) {
	width := uint(max(cols-utf8.RuneCountInString(indent), 20))
	for i, line := range strings.Split(wordwrap.WrapString(text, width), "\n") {
		lead := indent
		if i == 0 {
			lead = first
		}
		b.WriteString(strings.TrimRight(lead+line, " ") + "\n")
	}
}
