package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves the flags of a subcommand in front of its positional
// arguments. urfave/cli v2 stops reading flags at the first positional
// argument and would silently take `--state s.json` after `plan
// desired.hcl` as two more positionals; DESIGN §2 wants both spellings to
// work. Flags it does not know stay flags, so cli reports them instead of
// dropping them. Everything after "--" stays positional.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Find the subcommand: the first argument that is not a global flag.
	ci := -1
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			ci = i
			break
		}
	}
	if ci < 0 {
		return args
	}
	cmd := app.Command(args[ci])
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	rest := args[ci+1:]
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
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue[name] && i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	out := append([]string(nil), args[:ci+1]...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}
