package main

import (
	"fmt"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/render/views"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/urfave/cli/v2"
)

func fairshareCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "fairshare",
		Usage:     "show what every queue gets as KAI's scheduler divides each node pool",
		UsageText: "fairshare --state state.json [--demand full|live] [--format text|json] [--queue NAME] [--no-color]",
		Description: "Divides every node pool of the snapshot as KAI Scheduler's proportion plugin does: the\n" +
			"guarantees first (never scaled down), then the surplus by priority and overQuotaWeight in\n" +
			"whole units, the leftovers by remainder, age and name; each department's share is then\n" +
			"divided between its projects. --demand full assumes every project queue asks for all it\n" +
			"can get; live takes each Queue's status.requested from the snapshot.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "state", Usage: "the snapshot (state.json) to divide (required)"},
			&cli.StringFlag{Name: "demand", Value: string(preview.Full), Usage: "full (every project queue asks for all it can get) or live (each Queue's status.requested)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json (docs/json-format.md)"},
			&cli.StringFlag{Name: "queue", Usage: "explain the steps that gave this queue (a KAI Queue name, e.g. research-h100) its share"},
			// The views of fairshare have no colour; the flag is accepted as
			// plan, show and check accept it, so one set of flags fits all.
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output (fairshare's output has no colour)"},
		},
		Action: func(c *cli.Context) error { return runFairshare(c, e) },
	}
}

// runFairshare is the fairshare command: divide every pool of the
// snapshot and print it, or explain one queue.
func runFairshare(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("fairshare takes no positional argument, got %v (use --state FILE)", c.Args().Slice()), 1)
	}
	if err := requireFlag(c, "state", "state.json"); err != nil {
		return err
	}
	format := c.String("format")
	if err := checkFormat(format, []string{"text", "json"}); err != nil {
		return err
	}
	d, err := preview.ParseDemand(c.String("demand"))
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	if c.String("queue") != "" && format != "text" {
		return cli.Exit("--queue explains one queue in text; leave out --format json (the JSON document has every queue's share)", 1)
	}
	st, err := snapshot.Load(c.String("state"))
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	pv, err := preview.Of(st, d, nil)
	if err != nil {
		return cli.Exit("fairshare: "+err.Error(), 1)
	}
	if name := c.String("queue"); name != "" {
		ex, err := pv.Explain(name)
		if err != nil {
			return cli.Exit("fairshare --queue: "+err.Error(), 1)
		}
		return views.FairShareExplainText(e.stdout, ex, d)
	}
	errors := 0
	for _, f := range planner.CheckState(st) {
		if f.Level == planner.LevelError {
			errors++
		}
	}
	if format == "json" {
		return views.WriteJSON(e.stdout, views.NewFairShareJSON(pv, errors))
	}
	return views.FairShareText(e.stdout, pv, errors)
}
