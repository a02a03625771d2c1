package main

// plan --split-unsafe DIR: a plan without a safe order, written as the two
// desired files that take it (planner.Split).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/split"
	"github.com/urfave/cli/v2"
)

// The files --split-unsafe writes in its folder.
const (
	splitFirst  = "first.hcl"
	splitSecond = "second.hcl"
)

// splitPaths are the two files --split-unsafe DIR writes.
func splitPaths(dir string) (first, second string) {
	return filepath.Join(dir, splitFirst), filepath.Join(dir, splitSecond)
}

// writeSplit writes s, the two desired files of a plan p without a safe
// order (split.Remedy), into dir (made when missing; its parent must exist), each with a header
// that says how to take them, and says so on stderr. A plan with a safe
// order has nothing to split: a note, nothing written. A plan without a
// safe order and without a split is an error.
func writeSplit(e *env, dir string, p *planner.Plan, s *split.Split, desired, state string) error {
	unsafe := false
	for _, f := range p.Findings {
		unsafe = unsafe || f.Code == planner.CodeUnsafeOrder
	}
	switch {
	case !unsafe:
		fmt.Fprintln(e.stderr, "Note: --split-unsafe: the plan's steps have a safe order (or it has other errors): nothing to split, nothing written.")
		return nil
	case s == nil:
		return cli.Exit("--split-unsafe: no two plans that each order safely were found; nothing written", 1)
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return cli.Exit(fmt.Sprintf("--split-unsafe %s: %v", dir, err), 1)
	}
	first, second := splitPaths(dir)
	released := strings.Join(s.Released, ", ")
	heads := [2]string{
		splitHeader("The first of the two plans that "+desired+" takes (its steps have no safe order in one plan).", []string{
			"Plan it against " + state + ", render it and apply it; then take a new snapshot and plan " + splitSecond + " against it.",
			"Until the second plan, the gpu guarantee is 0 for " + released + ".",
		}, s.FirstHolds),
		splitHeader("The second of the two plans that "+desired+" takes.", []string{
			"Plan it against a snapshot taken after the first plan (" + splitFirst + ") was applied.",
		}, s.SecondHolds),
	}
	for i, f := range []struct {
		path string
		body []byte
	}{{first, s.First}, {second, s.Second}} {
		if err := writeOut(e, f.path, append([]byte(heads[i]), f.body...), 0o644); err != nil {
			return err
		}
	}
	wrote(e, first, "the first of two plans: "+strings.Join(s.FirstHolds, ", "))
	wrote(e, second, "the second: "+strings.Join(s.SecondHolds, ", "))
	return nil
}

// splitHeader is the comment at the top of a split file: what it is, how
// to take it, and what it holds.
func splitHeader(what string, how, holds []string) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(strings.TrimRight("# "+escape.Controls(s), " ") + "\n") }
	line(what)
	line("Written by krmplan plan --split-unsafe.")
	for _, h := range how {
		line(h)
	}
	line("")
	line("It holds:")
	for _, h := range holds {
		line("- " + h)
	}
	b.WriteString("\n")
	return b.String()
}
