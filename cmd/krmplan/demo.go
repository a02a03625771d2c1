package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/krmplan/krmplan/examples"
	"github.com/urfave/cli/v2"
)

func demoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "run snapshot → plan → render on the bundled sample tenancy, no cluster needed",
		UsageText: "demo [--dir DIR]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "build the demo repository here and leave it behind (default: a temporary folder, removed)"},
		},
		Action: func(c *cli.Context) error {
			dir := c.String("dir")
			if dir == "" {
				tmp, err := os.MkdirTemp("", "krmplan-demo-*")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return cli.Exit(err.Error(), 1)
			}
			return runDemo(e, dir)
		},
	}
}

// runDemo commits the sample tenancy into a new git repository in dir and
// runs each step of the main job there, printing the command and its output.
func runDemo(e *env, dir string) error {
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		return cli.Exit(fmt.Sprintf("demo: %s is not empty; give an empty or new folder", dir), 1)
	}
	if err := fs.WalkDir(examples.Sample, "sample", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := examples.Sample.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(path)), b, 0o644)
	}); err != nil {
		return err
	}
	say := func(format string, args ...any) { fmt.Fprintf(e.stdout, format, args...) }
	say("# A git repository with the sample tenancy: one node pool of 4 cards, one department, three projects.\n")
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"config", "user.name", "krmplan demo"},
		{"config", "user.email", "demo@krmplan.invalid"},
		{"add", "tenancy.yaml"},
		{"commit", "--quiet", "-m", "tenancy: sample"},
	} {
		say("$ git %s\n", strings.Join(args, " "))
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return cli.Exit(fmt.Sprintf("demo: git %s: %v\n%s", strings.Join(args, " "), err, out), 1)
		}
	}
	// The steps run inside dir so that the commands shown are the ones a
	// person would type there.
	back, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Chdir(dir); err != nil {
		return err
	}
	defer os.Chdir(back)
	step := func(comment string, want int, args ...string) error {
		say("\n# %s\n$ krmplan %s\n", comment, strings.Join(args, " "))
		code := run(append([]string{"krmplan"}, args...), e.stdin, e.stdout, e.stdout)
		if code != want {
			return cli.Exit(fmt.Sprintf("demo: krmplan %s exited %d, expected %d", strings.Join(args, " "), code, want), 1)
		}
		return nil
	}
	if err := step("Snapshot the tenancy as committed (git, not the work tree).", 0,
		"snapshot", "--git-repo", ".", "--tenancy", "tenancy.yaml", "-o", "state.json"); err != nil {
		return err
	}
	if err := step("A desired split that promises the projects 5 of the department's 4 cards: the plan fails (exit 1).", 1,
		"plan", "oversubscribed.hcl", "--state", "state.json", "--out", "refused.json", "--no-color"); err != nil {
		return err
	}
	if err := step("It cannot be rendered.", 1, "render", "refused.json", "--format", "patch", "--approve", "0000000000000"); err != nil {
		return err
	}
	if err := step("Move one card from workspace to benchmark: the plan is clean.", 0,
		"plan", "move-one-card.hcl", "--state", "state.json", "--out", "plan.json", "--no-color"); err != nil {
		return err
	}
	id, err := planID("plan.json")
	if err != nil {
		return err
	}
	if err := step("Render it as kubectl patches, shrinking project first (approved by its id).", 0,
		"render", "plan.json", "--format", "patch", "--approve", id[:12]); err != nil {
		return err
	}
	if err := step("Or as one commit on a new branch that changes only the two numbers.", 0,
		"render", "plan.json", "--format", "splice", "--approve", id[:12]); err != nil {
		return err
	}
	say("\n# Done. Nothing was applied to any cluster, and the repository's work tree, index and HEAD in %s are untouched.\n", dir)
	return nil
}

func planID(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var p struct {
		PlanID string `json:"plan_id"`
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&p); err != nil || len(p.PlanID) < 12 {
		return "", fmt.Errorf("demo: %s has no plan_id", path)
	}
	return p.PlanID, nil
}
