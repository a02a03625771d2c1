// Command krmplan plans GPU quota changes for NVIDIA KAI Resource
// Management: snapshot the tenancy, plan a desired split written in HCL,
// and render an approved plan as kubectl patches or a one-commit YAML
// splice. It never applies anything itself.
//
// Exit codes (DESIGN §2): 0 success or no changes, 1 error (bad input, or
// a plan with error findings), 2 changes present with --detailed-exitcode.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/render/views"
	"github.com/mattn/go-isatty"
	"github.com/mitchellh/go-wordwrap"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// env is what a command reads and writes; tests and the demo give their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run executes krmplan with args and returns the exit code: 0, 1 or 2
// (DESIGN §2), whatever a library returns.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	app := newApp(e)
	args, err := reorderArgs(app, args)
	if err == nil {
		err = app.Run(args)
	}
	if err == nil {
		return 0
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			writeError(stderr, msg)
		}
		if code := ec.ExitCode(); code >= 0 && code <= 2 {
			return code
		}
		return 1
	}
	writeError(stderr, err.Error())
	return 1
}

// writeError prints a refusal, "Error: " and msg (its control characters
// escaped), wrapped at word boundaries to the width of stderr as the views
// wrap findings (COLUMNS, else the terminal's, else 80), the lines after
// the first indented by two spaces. A word longer than the room (a path,
// a command) stays whole, so it can be copied.
func writeError(stderr io.Writer, msg string) {
	cols := columnsOf(stderr)
	if cols <= 0 {
		cols = views.DefaultColumns
	}
	width := max(cols, views.MinColumns)
	first, rest, _ := strings.Cut(wordwrap.WrapString("Error: "+escape.Controls(msg), uint(width)), "\n")
	fmt.Fprintln(stderr, strings.TrimRight(first, " "))
	if rest == "" {
		return
	}
	for _, line := range strings.Split(wordwrap.WrapString(strings.ReplaceAll(rest, "\n", " "), uint(width-2)), "\n") {
		fmt.Fprintln(stderr, "  "+strings.TrimRight(line, " "))
	}
}

// exitCode is an exit status without a message (the output said it all).
type exitCode int

func (e exitCode) Error() string { return "" }
func (e exitCode) ExitCode() int { return int(e) }

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:  "krmplan",
		Usage: "plan and render GPU quota changes for KAI Resource Management",
		Description: "krmplan reads the quota split of a KRM tenancy (node pools, departments, projects),\n" +
			"plans the split written in desired.hcl with every arithmetic check, and renders an\n" +
			"approved plan as ordered, test-guarded kubectl patches or a one-commit YAML splice.",
		Reader:          e.stdin,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		HideHelpCommand: true,
		// Each use of a repeatable flag is one value, commas and all, as
		// kubectl's --as-group and terraform's -var take them: urfave/cli
		// would otherwise split --var 'x=[1,2]' into "x=[1" and "2]", and
		// --force-removal department=x,queue=h100 in two.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {}, // run() prints and exits
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "version", Usage: "print krmplan's version"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError("", doubleDash(err.Error()))
		},
		Commands: []*cli.Command{
			snapshotCommand(e),
			planCommand(e),
			showCommand(e),
			renderCommand(e),
			checkCommand(e),
			exportCommand(e),
			fairshareCommand(e),
			demoCommand(e),
		},
	}
	app.Action = func(c *cli.Context) error {
		if c.Bool("version") {
			_, err := fmt.Fprintln(e.stdout, "krmplan", version())
			return err
		}
		switch {
		case c.NArg() == 0:
			return cli.ShowAppHelp(c)
		case c.Args().First() == "help" && c.NArg() == 1:
			return cli.ShowAppHelp(c)
		case c.Args().First() == "help" && app.Command(c.Args().Get(1)) != nil:
			return cli.ShowCommandHelp(c, c.Args().Get(1))
		case c.Args().First() == "help":
			return usageError("", fmt.Sprintf("unknown command %q", c.Args().Get(1)))
		}
		return usageError("", fmt.Sprintf("unknown command %q", c.Args().First()))
	}
	for _, cmd := range app.Commands {
		name := cmd.Name
		// No `help` subcommand: `krmplan plan help` would show help
		// instead of reading a file named help.
		cmd.HideHelpCommand = true
		// A bad flag value is one line on stderr, not the command's help.
		cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return usageError(name, doubleDash(err.Error()))
		}
	}
	return app
}

// version is the main module's version ("v1.2.3", or a pseudo-version
// for a build from a git checkout), or "(devel)" when the build has none.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// singleDashFlag is a flag name as the flag package quotes it in its
// errors ("flag provided but not defined: -bogus").
var singleDashFlag = regexp.MustCompile(`(^|[\s:])-([A-Za-z][A-Za-z0-9-]+)`)

// doubleDash spells the long flags of a flag package error as krmplan's
// help spells them: "invalid value "x" for flag --timeout: …".
func doubleDash(msg string) string {
	return singleDashFlag.ReplaceAllString(msg, "$1--$2")
}

// requireFlag refuses a command run without one of its required flags:
// "export: missing --state state.json (usage: krmplan export …)".
func requireFlag(c *cli.Context, name, value string) error {
	if c.String(name) != "" {
		return nil
	}
	return cli.Exit(fmt.Sprintf("%s: missing --%s %s (usage: krmplan %s)", c.Command.Name, name, value, c.Command.UsageText), 1)
}

// colorOn reports whether output to w may be coloured: only on a terminal,
// and never with --no-color, NO_COLOR or TERM=dumb (DESIGN §2).
func colorOn(w io.Writer, noColor bool) bool {
	if noColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// styleFor is the colouring (colorOn) and the width (columnsOf) of a text
// view written to w.
func styleFor(w io.Writer, noColor bool) views.Style {
	return views.NewStyle(colorOn(w, noColor)).WithColumns(columnsOf(w))
}

// columnsOf is the width of the page w writes to: COLUMNS when it is a
// positive number (as ls reads it: set it to fit a pull request or a
// log), else the terminal's width when w is a terminal, else 0, which the
// views read as 80.
func columnsOf(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil {
			return n
		}
	}
	return 0
}

// isTerminal reports whether r (a reader or writer) is a terminal.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// oneArg returns the single positional argument of a command.
func oneArg(c *cli.Context, what string) (string, error) {
	switch c.NArg() {
	case 1:
		return c.Args().First(), nil
	case 0:
		return "", cli.Exit(fmt.Sprintf("%s: missing %s (usage: krmplan %s)", c.Command.Name, what, c.Command.UsageText), 1)
	}
	return "", cli.Exit(fmt.Sprintf("%s: one %s expected, got %d arguments: %v", c.Command.Name, what, c.NArg(), c.Args().Slice()), 1)
}
