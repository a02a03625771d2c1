package main

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/views"
	"github.com/urfave/cli/v2"
)

// viewFormats are the --format values of plan and show.
var viewFormats = []string{"text", "json", "markdown"}

// checkFormat refuses a --format value that is not one of formats.
func checkFormat(format string, formats []string) error {
	for _, f := range formats {
		if f == format {
			return nil
		}
	}
	return cli.Exit(fmt.Sprintf("--format %s: use %s", format, orList(formats)), 1)
}

// orList writes "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// writeView writes the plan on stdout in format (text, json, markdown);
// only text is ever coloured.
func writeView(e *env, format string, p *planner.Plan, style views.Style) error {
	switch format {
	case "json":
		return views.JSON(e.stdout, p)
	case "markdown":
		return views.Markdown(e.stdout, p)
	}
	return views.Text(e.stdout, p, style)
}
