package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves the flags of a subcommand in front of its positional
// arguments. urfave/cli v2 stops reading flags at the first positional
// argument and would silently take `--state s.json` after `plan
// desired.hcl` as two more positionals; DESIGN §2 wants both spellings to
// work. Everything after "--" stays positional.
//
// It refuses, as the user typed them, what cli would get wrong once the
// arguments are reordered: a flag the command does not have ("flag
// provided but not defined: --bogus"), and a flag that needs a value but
// is last, or followed by "--" or by another of the command's flags ("flag
// needs an argument: --out"), which would otherwise take the "--" that
// reorderArgs inserts, or that flag, as its value.
func reorderArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	// Find the subcommand: the first argument that is not a global flag.
	ci := -1
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			ci = i
			break
		}
	}
	// krmplan's own flags (--help, --version) come before the command.
	globals := args[1:]
	if ci >= 0 {
		globals = args[1:ci]
	}
	for _, a := range globals {
		if a == "--" {
			break
		}
		typed, _, _ := strings.Cut(a, "=")
		if n := strings.TrimLeft(typed, "-"); n != "help" && n != "h" && n != "version" {
			return nil, usageError("", "flag provided but not defined: "+typed)
		}
	}
	if ci < 0 {
		return args, nil
	}
	cmd := app.Command(args[ci])
	if cmd == nil {
		return args, nil
	}
	flags, positional, err := splitCommandArgs(cmd, args[ci+1:])
	if err != nil {
		return nil, err
	}
	out := append([]string(nil), args[:ci+1]...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out, nil
}

// splitCommandArgs sorts the arguments after the command into its flags
// (with their values) and the positional arguments (everything after
// "--" among them), refusing a flag the command does not have and one
// that lacks its value.
func splitCommandArgs(cmd *cli.Command, rest []string) (flags, positional []string, err error) {
	takesValue := map[string]bool{"help": false, "h": false}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	// isFlag reports whether a names one of the command's flags.
	isFlag := func(a string) bool {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		_, ok := takesValue[name]
		return ok
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		typed, _, hasValue := strings.Cut(a, "=")
		name := strings.TrimLeft(typed, "-")
		wantsValue, known := takesValue[name]
		if !known {
			return nil, nil, usageError(cmd.Name, "flag provided but not defined: "+typed)
		}
		flags = append(flags, a)
		if !wantsValue || hasValue {
			continue
		}
		if i+1 >= len(rest) || rest[i+1] == "--" || isFlag(rest[i+1]) {
			return nil, nil, cli.Exit("flag needs an argument: "+typed, 1)
		}
		flags = append(flags, rest[i+1])
		i++
	}
	return flags, positional, nil
}

// usageError is a mistake in the command line, with a pointer to the
// command's help: `flag provided but not defined: --bogus (see krmplan
// plan --help)`. cmd is "" for krmplan itself.
func usageError(cmd, msg string) error {
	help := "krmplan --help"
	if cmd != "" {
		help = "krmplan " + cmd + " --help"
	}
	return cli.Exit(fmt.Sprintf("%s (see %s)", msg, help), 1)
}
