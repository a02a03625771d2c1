package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/krmplan/krmplan/examples"
	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/urfave/cli/v2"
)

// scenario is one bundled demo: its files (a folder of an embedded FS),
// the tenancy file committed to git, the cluster data laid over the
// snapshot (none for a git-only demo), and two desired files: one the
// checks refuse and one that renders.
type scenario struct {
	files       fs.FS
	folder      string
	intro       string
	tenancy     string
	clusterData string
	failing     string
	failingWhy  string
	clean       string
	cleanWhy    string
}

// demo160 is the default demo: 160 GPUs on 20 nodes (examples/demo).
var demo160 = scenario{
	files:  examples.Demo,
	folder: "demo",
	intro: "A git repository with the demo tenancy: 160 GPUs on 20 nodes in two node pools\n" +
		"# (h100: 12 nodes x 8 cards, a100: 8 nodes x 8 cards), 8 departments, 48 projects.\n" +
		"# cluster-data.json is what the cluster reports: node capacity (one a100 node is not\n" +
		"# Ready), the scheduler's Queues with their usage, and the namespaces.",
	tenancy:     "tenancy.yaml",
	clusterData: "cluster-data.json",
	failing:     "over-the-pool.hcl",
	failingWhy:  "research asks for more h100 cards than the pool has left: its departments would be\n# guaranteed 8 cards more than its 96. The plan fails (exit 1).",
	clean:       "move-h100-cards.hcl",
	cleanWhy:    "Move 4 h100 cards from one department to another: the plan is clean.",
}

// demoSample is the small sample: one pool of 4 cards (examples/sample).
var demoSample = scenario{
	files:      examples.Sample,
	folder:     "sample",
	intro:      "A git repository with the sample tenancy: one node pool of 4 cards, one department, three projects.",
	tenancy:    "tenancy.yaml",
	failing:    "oversubscribed.hcl",
	failingWhy: "A desired split that promises the projects 5 of the department's 4 cards: the plan fails (exit 1).",
	clean:      "move-one-card.hcl",
	cleanWhy:   "Move one card from workspace to benchmark: the plan is clean.",
}

func demoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "run snapshot → plan → render on the bundled 160-GPU demo, no cluster needed",
		UsageText: "demo [--dir DIR] [--sample] [--no-color]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "build the demo repository here and leave it behind (default: a temporary folder, removed)"},
			&cli.BoolFlag{Name: "sample", Usage: "run the small 4-card sample instead of the 160-GPU demo"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("demo takes no positional argument, got %v", c.Args().Slice()), 1)
			}
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
			sc := demo160
			if c.Bool("sample") {
				sc = demoSample
			}
			if err := runDemo(e, dir, sc, c.Bool("no-color")); err != nil {
				return err
			}
			if c.String("dir") == "" {
				// The lines above name the folder (the branch, the scripts):
				// say that it is gone, lest someone look for them there.
				fmt.Fprintf(e.stdout, "# %s was a temporary folder and is removed now; krmplan demo --dir DIR builds the demo in DIR and leaves it there to explore.\n", dir)
			}
			return nil
		},
	}
}

// runDemo commits the scenario's tenancy into a new git repository in dir
// and runs each step of the main job there through run(), printing the
// command and its output: the snapshot (with the cluster data), the
// failing plan and the refusal to render it, the clean plan, and its
// render as patches and as a splice commit.
func runDemo(e *env, dir string, sc scenario, noColor bool) error {
	if err := demoRepo(e, dir, sc); err != nil {
		return err
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
	if err := demoSteps(e, sc, noColor); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n# Done. Nothing was applied to any cluster, and the repository's work tree, index and HEAD in %s are untouched.\n", dir)
	return nil
}

// demoRepo writes the scenario's files into the empty folder dir and
// commits the tenancy in a new git repository there, showing the git
// commands.
func demoRepo(e *env, dir string, sc scenario) error {
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		return cli.Exit(fmt.Sprintf("demo: %s is not empty; give an empty or new folder", dir), 1)
	}
	if err := fs.WalkDir(sc.files, sc.folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sc.files, p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path.Base(p)), b, 0o644)
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "# %s\n", sc.intro)
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"config", "user.name", "krmplan demo"},
		{"config", "user.email", "demo@krmplan.invalid"},
		{"add", sc.tenancy},
		{"commit", "--quiet", "-m", "tenancy"},
	} {
		fmt.Fprintf(e.stdout, "$ git %s\n", strings.Join(args, " "))
		// gitcli: in dir whatever repository the environment names.
		if _, err := (gitcli.Repo{Dir: dir}).Run(nil, args...); err != nil {
			return cli.Exit("demo: "+err.Error(), 1)
		}
	}
	return nil
}

// demoSteps runs the scenario's krmplan commands in the current folder,
// each shown with why, and fails when one exits otherwise than expected.
func demoSteps(e *env, sc scenario, noColor bool) error {
	step := func(comment string, want int, args ...string) error {
		fmt.Fprintf(e.stdout, "\n# %s\n$ krmplan %s\n", comment, strings.Join(args, " "))
		if noColor && args[0] == "plan" {
			args = append(args, "--no-color")
		}
		code := run(append([]string{"krmplan"}, args...), e.stdin, e.stdout, e.stdout)
		if code != want {
			return cli.Exit(fmt.Sprintf("demo: krmplan %s exited %d, expected %d", strings.Join(args, " "), code, want), 1)
		}
		return nil
	}
	snap := []string{"snapshot", "--git-repo", ".", "--tenancy", sc.tenancy}
	what := "Snapshot the tenancy as committed (git, not the work tree)."
	if sc.clusterData != "" {
		snap = append(snap, "--cluster-data", sc.clusterData)
		what = "Snapshot the tenancy as committed (git, not the work tree), with what the cluster reports."
	}
	if err := step(what, 0, append(snap, "-o", "state.json")...); err != nil {
		return err
	}
	if err := step(sc.failingWhy, 1, "plan", sc.failing, "--state", "state.json", "--out", "refused.json"); err != nil {
		return err
	}
	if err := step("It cannot be rendered.", 1, "render", "refused.json", "--format", "patch", "--approve", "0000000000000"); err != nil {
		return err
	}
	if err := step(sc.cleanWhy, 0, "plan", sc.clean, "--state", "state.json", "--out", "plan.json"); err != nil {
		return err
	}
	id, err := planID("plan.json")
	if err != nil {
		return err
	}
	if err := step("Render it as kubectl patches in a verified order, shrinking first (approved by its id), with the\n# script that undoes them; a script names the kubeconfig context it runs against.", 0,
		"render", "plan.json", "--format", "patch", "--approve", id[:12], "--context", "demo", "-o", "apply.sh"); err != nil {
		return err
	}
	if err := showSteps(e, "apply.sh"); err != nil {
		return err
	}
	return step("Or as one commit on a new branch that changes only those numbers.", 0,
		"render", "plan.json", "--format", "splice", "--approve", id[:12])
}

// stepLine is a line of a patch script that shows a step: its comment
// ("# 2/4 shrinking departments: Department vision") or its kubectl
// command.
var stepLine = regexp.MustCompile(`^(# [0-9]+/[0-9]+ |kubectl )`)

// showSteps prints the steps of the patch script in file, as the grep
// that the demo shows prints them.
func showSteps(e *env, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n# Its steps: a comment and a kubectl command each (the rest reports a failure).\n$ grep -E '^(# [0-9]+/[0-9]+ |kubectl )' %s\n", file)
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if stepLine.MatchString(l) {
			fmt.Fprint(e.stdout, l)
		}
	}
	return nil
}

func planID(path string) (string, error) {
	b, err := inputfile.Read(path, inputfile.Plan)
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
