// Package mdtext makes text from input safe in GitHub markdown: the
// markdown view of a plan and the markdown writer of diagnostics (diag)
// escape names, messages and values with it, so that a name cannot start
// a link, a table cell or HTML.
package mdtext

import (
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
)

// special are the characters that markdown or HTML could read as syntax
// inside a table cell or a list item.
var special = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "~", `\~`, "&", "&amp;",
)

// Escape escapes text for a markdown table cell or list item: control
// characters as escape.Controls writes them, then markdown's syntax.
func Escape(s string) string { return special.Replace(escape.Controls(s)) }

// Code is s as a code span, safe in a table cell: a fence longer than any
// run of backticks in s, and | escaped (GitHub splits cells on it even in
// code spans).
func Code(s string) string {
	s = strings.ReplaceAll(escape.Controls(s), "|", `\|`)
	if s == "" {
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return ticks + pad + s + pad + ticks
}

// Fence is a code fence longer than any run of backticks in text.
func Fence(text string) string {
	return strings.Repeat("`", max(3, longestRun(text, '`')+1))
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
