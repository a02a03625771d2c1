package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/atomicfile"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/urfave/cli/v2"
)

func snapshotCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "snapshot",
		Usage:     "read the tenancy at a git ref (or a live cluster) into state.json",
		UsageText: "snapshot --git-repo DIR [--ref REF] --tenancy PATH... [--cluster-data FILE | --no-cluster] [-o state.json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "git-repo", Usage: "read tenancy files from this git repository (never its work tree)"},
			&cli.StringFlag{Name: "ref", Value: "HEAD", Usage: "the git revision to read"},
			&cli.StringSliceFlag{Name: "tenancy", Usage: "a tenancy file or folder in the repository (repeatable)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the snapshot here (default: stdout)"},
			&cli.BoolFlag{Name: "no-cluster", Usage: "do not read a cluster for capacity, usage and namespaces"},
			&cli.StringFlag{Name: "cluster-data", Usage: "take nodes, queues and namespaces from this JSON file instead of a cluster"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("snapshot takes no positional argument, got %v", c.Args().Slice()), 1)
			}
			if c.String("git-repo") == "" {
				return cli.Exit("snapshot: --git-repo DIR is required (reading a live cluster is not built yet)", 1)
			}
			st, err := snapshot.FromGit(snapshot.GitSource{Repo: c.String("git-repo"), Ref: c.String("ref"), Paths: c.StringSlice("tenancy")})
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			if f := c.String("cluster-data"); f != "" {
				d, err := snapshot.LoadClusterData(f)
				if err != nil {
					return cli.Exit(err.Error(), 1)
				}
				st.Overlay(d)
			}
			st.TakenAt = takenAt().Format(time.RFC3339)
			st.Seal()
			return writeOut(e, c.String("out"), st.Marshal(), 0o644)
		},
	}
}

// takenAt is now, or SOURCE_DATE_EPOCH (seconds since 1970) when set,
// the reproducible-builds convention for a fixed clock.
func takenAt() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Now().UTC()
}

// writeOut writes data atomically to path, or to stdout when path is "".
func writeOut(e *env, path string, data []byte, perm os.FileMode) error {
	if path == "" || path == "-" {
		_, err := e.stdout.Write(data)
		return err
	}
	if err := atomicfile.Write(path, data, perm); err != nil {
		return cli.Exit(err.Error(), 1)
	}
	return nil
}

func planCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "show what desired.hcl changes, with every check, and save the plan",
		UsageText: "plan desired.hcl --state state.json [--out plan.json] [--var k=v] [--var-file F]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "state", Required: true, Usage: "the snapshot (state.json) to plan against"},
			&cli.StringFlag{Name: "out", Usage: "save the plan file here (written even with errors, marked not renderable)"},
			&cli.StringSliceFlag{Name: "var", Usage: "set a variable: NAME=VALUE (repeatable)"},
			&cli.StringSliceFlag{Name: "var-file", Usage: "read variables from an HCL file (repeatable)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text"},
			&cli.BoolFlag{Name: "detailed-exitcode", Usage: "exit 2 when there are changes (0 none, 1 error)"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
		},
		Action: func(c *cli.Context) error {
			file, err := oneArg(c, "desired.hcl")
			if err != nil {
				return err
			}
			if f := c.String("format"); f != "text" {
				return cli.Exit(fmt.Sprintf("--format %s: only text is supported", f), 1)
			}
			st, err := snapshot.Load(c.String("state"))
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			src, err := os.ReadFile(file)
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			var varFiles []config.VarFile
			for _, vf := range c.StringSlice("var-file") {
				b, err := os.ReadFile(vf)
				if err != nil {
					return cli.Exit(err.Error(), 1)
				}
				varFiles = append(varFiles, config.VarFile{Name: vf, Src: b})
			}
			style := render.NewStyle(colorOn(e.stdout, c.Bool("no-color")))
			// Later --var-file entries win, as in Terraform: keep their order.
			ov, diags := config.LoadOrdered(file, src, c.StringSlice("var"), varFiles)
			files := map[string][]byte{}
			for name, f := range ov.Files {
				files[name] = f.Bytes
			}
			if diags.HasErrors() {
				render.Diagnostics(e.stderr, diags, files, render.NewStyle(colorOn(e.stderr, c.Bool("no-color"))))
				return exitCode(1)
			}
			p, pdiags := planner.Build(st, ov)
			diags = append(diags, pdiags...)
			if len(diags) > 0 {
				render.Diagnostics(e.stderr, diags, files, render.NewStyle(colorOn(e.stderr, c.Bool("no-color"))))
			}
			if p == nil {
				return exitCode(1)
			}
			if err := render.Text(e.stdout, p, style); err != nil {
				return err
			}
			if out := c.String("out"); out != "" {
				if err := writeOut(e, out, p.Marshal(), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "Saved the plan to %s.\n", out)
			}
			switch {
			case !p.Renderable:
				return exitCode(1)
			case c.Bool("detailed-exitcode") && len(p.Changes) > 0:
				return exitCode(2)
			}
			return nil
		},
	}
}

// loadPlan reads and verifies a plan file.
func loadPlan(path string) (*planner.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	p, err := planner.Decode(path, b)
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	return p, nil
}

func showCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a saved plan",
		UsageText: "show plan.json",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"}},
		Action: func(c *cli.Context) error {
			file, err := oneArg(c, "plan.json")
			if err != nil {
				return err
			}
			p, err := loadPlan(file)
			if err != nil {
				return err
			}
			return render.Text(e.stdout, p, render.NewStyle(colorOn(e.stdout, c.Bool("no-color"))))
		},
	}
}

func renderCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "render",
		Usage:     "turn an approved plan into kubectl patches or a one-commit YAML splice",
		UsageText: "render plan.json --format patch|splice [--approve PLAN_ID] [-o FILE] [--branch NAME]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Required: true, Usage: "patch (a kubectl script) or splice (a commit on a new branch)"},
			&cli.StringFlag{Name: "approve", Usage: "approve the plan with this id (the full id or its first 12+ hex digits)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "patch: write the script to this file (default: stdout)"},
			&cli.StringFlag{Name: "branch", Usage: "splice: the new branch (default krmplan/<first 12 of the plan id>)"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
		},
		Action: func(c *cli.Context) error {
			file, err := oneArg(c, "plan.json")
			if err != nil {
				return err
			}
			format := c.String("format")
			if format != "patch" && format != "splice" {
				return cli.Exit(fmt.Sprintf("--format %s: use patch or splice", format), 1)
			}
			p, err := loadPlan(file)
			if err != nil {
				return err
			}
			prompted := false
			if c.String("approve") == "" && p.Renderable && isTerminal(e.stdin) && isTerminal(e.stderr) {
				prompted, err = prompt(e, p, colorOn(e.stderr, c.Bool("no-color")))
				if err != nil {
					return err
				}
			}
			if err := render.Approve(p, c.String("approve"), prompted); err != nil {
				return cli.Exit("render refused: "+err.Error(), 1)
			}
			if format == "patch" {
				perm := os.FileMode(0o755)
				return writeOut(e, c.String("out"), render.PatchScript(p), perm)
			}
			res, err := render.RenderSplice(p, c.String("branch"))
			if err != nil {
				return cli.Exit("render refused: "+err.Error(), 1)
			}
			fmt.Fprintf(e.stdout, "Created branch %s (commit %s) in %s; nothing was pushed.\n\n", res.Branch, res.Commit, p.Snapshot.Source.Repo)
			_, err = e.stdout.Write(res.Diff)
			return err
		},
	}
}

// prompt shows the plan on stderr and asks for "yes", as terraform apply does.
func prompt(e *env, p *planner.Plan, color bool) (bool, error) {
	if err := render.Text(e.stderr, p, render.NewStyle(color)); err != nil {
		return false, err
	}
	fmt.Fprint(e.stderr, "\nDo you want to render this plan?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		return false, cli.Exit("render refused: the plan was not approved (the answer was not yes)", 1)
	}
	return true, nil
}
