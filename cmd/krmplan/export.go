package main

import (
	"fmt"
	"github.com/krmplan/krmplan/internal/escape"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/urfave/cli/v2"
)

func exportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write the whole snapshot as an editable desired.hcl (planning it reports no changes)",
		UsageText: "export --state state.json [-o desired.hcl]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "state", Usage: "the snapshot (state.json) to export (required)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the HCL here (default: stdout)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("export takes no positional argument, got %v (use --state FILE)", c.Args().Slice()), 1)
			}
			if err := requireFlag(c, "state", "state.json"); err != nil {
				return err
			}
			if err := checkOut(c, input{"--state", c.String("state")}); err != nil {
				return err
			}
			st, err := snapshot.Load(c.String("state"))
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			out, warnings := config.Export(&st.Tenancy, st.Provenance()...)
			for _, w := range warnings {
				fmt.Fprintln(e.stderr, "Warning:", escape.Controls(w))
			}
			if err := writeOut(e, c.String("out"), out, 0o644); err != nil {
				return err
			}
			wrote(e, c.String("out"), fmt.Sprintf("%s, %s and %s from %s", words.Count(len(st.NodePools), "node pool"),
				words.Count(len(st.Departments), "department"), words.Count(len(st.Projects), "project"), c.String("state")))
			return nil
		},
	}
}
