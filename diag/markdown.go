package diag

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/mdtext"
)

// MarkdownItem is a diagnostic as a markdown list item, one line:
//
//   - ❌ **Error** `code`: summary (`file` line N, …) — *already present before this plan*
//
// with "which changes it; before: …" when the plan changes an already
// present finding, and an HCL problem's detail after the summary. Every
// text is escaped (mdtext), so a name cannot start a link or HTML.
func MarkdownItem(d Diagnostic) string {
	var line strings.Builder
	line.WriteString("- " + markdownMark(d.Severity))
	if d.Code != "" {
		line.WriteString(" " + mdtext.Code(d.Code))
	}
	line.WriteString(": " + mdtext.Escape(d.Summary))
	if d.Detail != "" {
		line.WriteString(" — " + mdtext.Escape(strings.Join(strings.Fields(d.Detail), " ")))
	}
	var where []string
	for _, r := range d.Ranges() {
		at := fmt.Sprintf("%s%s line %d", map[bool]string{true: "at the base: "}[r.Base], mdtext.Code(r.File), r.Start.Line)
		if len(where) == 0 || where[len(where)-1] != at { // two values on one line are one line to look at, as in the text
			where = append(where, at)
		}
	}
	if len(where) > 0 {
		fmt.Fprintf(&line, " (%s)", strings.Join(where, ", "))
	}
	if d.AlreadyPresent {
		line.WriteString(" — *already present before this plan*")
		if d.Before != "" {
			line.WriteString(", which changes it; before: " + mdtext.Escape(d.Before))
		}
	}
	line.WriteString("\n")
	return line.String()
}

// markdownMark is the severity's sign and word: "❌ **Error**".
func markdownMark(s Severity) string {
	switch s {
	case Error:
		return "❌ **Error**"
	case Warning:
		return "⚠️ **Warning**"
	}
	return "ℹ️ **Note**"
}
