package diag

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
)

// GitHubCommand is the GitHub Actions workflow command of a severity:
// "error", "warning", or "notice" for a note.
func (s Severity) GitHubCommand() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "notice"
}

// Annotation is a diagnostic as a GitHub Actions workflow command, one
// line: `::error file=F,line=N,title=CODE::SUMMARY` (warning and notice
// for the other severities) on its subject. The properties and the
// message are escaped as GitHub reads them (%, CR, LF; and : and , in a
// property), and every other control character as escape.Controls writes
// it: an ESC would colour or move the log viewer's text.
func Annotation(d Diagnostic) string {
	var props []string
	if d.Subject != nil && d.Subject.File != "" {
		props = append(props, "file="+ghProperty(d.Subject.File))
		if d.Subject.Start.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", d.Subject.Start.Line))
		}
	}
	title := d.Code
	if title == "" {
		title = d.Summary
	}
	props = append(props, "title="+ghProperty(title))
	msg := d.Summary
	if d.Code == "" && d.Detail != "" {
		msg = d.Detail
	}
	return "::" + d.Severity.GitHubCommand() + " " + strings.Join(props, ",") + "::" + ghData(msg)
}

// NotAnnotated is a diagnostic that GitHub would not show as an
// annotation, as a plain line of the log: "Error (not annotated):
// FILE:LINE: [code] summary".
func NotAnnotated(d Diagnostic) string {
	where := ""
	if d.Subject != nil {
		where = fmt.Sprintf("%s:%d: ", d.Subject.File, d.Subject.Start.Line)
	}
	return fmt.Sprintf("%s (not annotated): %s[%s] %s", d.Severity.Label(), escape.Controls(where), escape.Controls(d.Code), escape.Controls(d.Summary))
}

// ghData escapes a workflow command's message: %, \r and \n with
// GitHub's own escapes, then every other control character.
func ghData(s string) string {
	return escape.Controls(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// ghProperty escapes a workflow command's property value as ghData does,
// and the : and , that end a property.
func ghProperty(s string) string {
	return escape.Controls(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}
