package views

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
