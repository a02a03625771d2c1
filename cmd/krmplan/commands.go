package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/internal/atomicfile"
	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/planner/split"
	"github.com/krmplan/krmplan/render/commit"
	"github.com/krmplan/krmplan/render/script"
	"github.com/krmplan/krmplan/render/views"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/urfave/cli/v2"
)

func snapshotCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "snapshot",
		Usage: "read a live cluster, or the tenancy at a git ref, into state.json",
		UsageText: "snapshot [--kubeconfig F] [--context C] [--cluster N] [--user N] [--as U [--as-group G]...] [--timeout D] [-o state.json]\n" +
			"snapshot --git-repo DIR [--ref REF] --tenancy PATH... [--context C | --kubeconfig F | --cluster-data FILE | --no-cluster] [-o state.json]",
		Description: "Without --git-repo, reads the cluster of the kubeconfig's current context (or --context),\n" +
			"loaded as kubectl does. With --git-repo, reads the tenancy files at the ref and no cluster,\n" +
			"unless --context or --kubeconfig names one for the live overlay (capacity, usage, namespaces).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "git-repo", Usage: "read tenancy files from this git repository (never its work tree)"},
			&cli.StringFlag{Name: "ref", Value: "HEAD", Usage: "the git revision to read"},
			&cli.StringSliceFlag{Name: "tenancy", Usage: "a tenancy file or folder in the repository (repeatable)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the snapshot here (default: stdout)"},
			&cli.DurationFlag{Name: "timeout", Value: defaultClusterTimeout, Usage: "give up reading the cluster after this long"},
			&cli.BoolFlag{Name: "no-cluster", Usage: "with --git-repo: read no cluster (the default unless --context, --kubeconfig, --cluster or --user is given)"},
			&cli.StringFlag{Name: "cluster-data", Usage: "take nodes, queues and namespaces from this JSON file instead of a cluster"},
		}, kubeFlags("the kubeconfig context (default: its current context); with --git-repo, read this cluster for the live overlay")...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("snapshot takes no positional argument, got %v", c.Args().Slice()), 1)
			}
			inputs := []input{{"--cluster-data", c.String("cluster-data")}}
			if c.String("git-repo") == "" || clusterFlag(c) != "" {
				inputs = append(inputs, kubeconfigInputs(c.String("kubeconfig"))...)
			}
			if err := checkOut(c, inputs...); err != nil {
				return err
			}
			st, err := snapshotState(c, e)
			if err != nil {
				return err
			}
			st.TakenAt = takenAt().Format(time.RFC3339)
			if err := writeOutFrom(e, c.String("out"), st.SealParts(), 0o644); err != nil {
				return err
			}
			wrote(e, c.String("out"), snapshotSummary(c, st))
			return nil
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

// input is one file a command reads: what names it in a refusal ("--state",
// "plan file").
type input struct{ what, path string }

// checkOut refuses an empty --out (an empty -o would save nothing and exit 0)
// and an --out that names one of the command's inputs (the same cleaned
// absolute path, or the same file through a link): writing it would
// replace the input with the output.
func checkOut(c *cli.Context, inputs ...input) error {
	out := c.String("out")
	if out == "" && c.IsSet("out") {
		return cli.Exit("-o/--out: the file name is empty; name a file, or leave the option out", 1)
	}
	return checkWrite("--out "+out, out, inputs...)
}

// checkWrite refuses to write the file out when it is one of the inputs;
// what names it in the refusal ("--out plan.json").
func checkWrite(what, out string, inputs ...input) error {
	if out == "" || out == "-" {
		return nil
	}
	for _, in := range inputs {
		if in.path != "" && in.path != "-" && samePath(out, in.path) {
			return cli.Exit(fmt.Sprintf("%s is also the input %s; choose another file", what, in.what), 1)
		}
	}
	return nil
}

// samePath reports whether a and b name the same file: the same absolute
// path, or, for an existing regular file, the same file (a symbolic or
// hard link). Two names of one terminal or pipe (/dev/stdin, /dev/stdout)
// are not the same file here: writing one does not destroy the other.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && fa.Mode().IsRegular() && os.SameFile(fa, fb)
}

// kubeconfigInputs are the kubeconfig files a cluster read loads:
// --kubeconfig, else those of $KUBECONFIG, else ~/.kube/config.
func kubeconfigInputs(flag string) []input {
	if flag != "" {
		return []input{{"--kubeconfig", flag}}
	}
	var ins []input
	if env := os.Getenv("KUBECONFIG"); env != "" {
		for _, f := range filepath.SplitList(env) {
			ins = append(ins, input{"kubeconfig (in $KUBECONFIG)", f})
		}
		return ins
	}
	if home, err := os.UserHomeDir(); err == nil {
		ins = append(ins, input{"kubeconfig", filepath.Join(home, ".kube", "config")})
	}
	return ins
}

// writeOut writes data atomically to path, or to stdout when path is "".
func writeOut(e *env, path string, data []byte, perm os.FileMode) error {
	return writeOutFrom(e, path, bytes.NewBuffer(data), perm)
}

// writeOutFrom is writeOut of what data writes (a file kept in parts).
func writeOutFrom(e *env, path string, data io.WriterTo, perm os.FileMode) error {
	if path == "" || path == "-" {
		_, err := data.WriteTo(e.stdout)
		return err
	}
	if err := atomicfile.WriteFrom(path, data, perm); err != nil {
		return cli.Exit(err.Error(), 1)
	}
	return nil
}

func planCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "show what desired.hcl changes, with every check, and save the plan",
		UsageText: "plan desired.hcl --state state.json [--out plan.json] [--var k=v] [--var-file F] [--format text|json|markdown] [--detailed-exitcode] [--expect-no-changes] [--split-unsafe DIR] [--server-dry-run [--context C] ...]\n" +
			"plan --git-repo DIR --base REF --head REF --tenancy PATH... [--cluster-data F] [--force-removal project=NAME...] [--out plan.json] [--format text|json|markdown] [--detailed-exitcode] [--expect-no-changes]",
		Description: "With desired.hcl, plans what it changes in the snapshot. With --git-repo, plans what the head ref\n" +
			"changes in the tenancy files relative to the base ref (a pull request that edits the YAML): the\n" +
			"plan is for a cluster that runs the base, and renders as patches only.",
		Flags: append(append([]cli.Flag{
			&cli.StringFlag{Name: "state", Usage: "the snapshot (state.json) to plan against (required)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "save the plan file here (written even with errors, marked not renderable)"},
			&cli.StringSliceFlag{Name: "var", Usage: "set a variable: NAME=VALUE (repeatable)"},
			&cli.StringSliceFlag{Name: "var-file", Usage: "read variables from an HCL file (repeatable)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text, json (docs/json-format.md) or markdown (a pull-request comment)"},
			&cli.BoolFlag{Name: "detailed-exitcode", Usage: "exit 2 when there are changes (0 none, 1 error)"},
			&cli.BoolFlag{Name: "expect-no-changes", Usage: "exit 1 when there are changes (a drift gate)"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
			&cli.BoolFlag{Name: "server-dry-run", Usage: "send every step to the API server with dryRun=All (in order, nothing persisted); a refusal is an error finding"},
			&cli.StringFlag{Name: "split-unsafe", Usage: "when the steps have no safe order, write the two desired files that take the change into this folder (" + splitFirst + ", " + splitSecond + ")"},
		}, refsFlags()...), kubeFlags("--server-dry-run: the kubeconfig context (default: the snapshot's context)")...),
		Action: func(c *cli.Context) error { return runPlan(c, e) },
	}
}

// runPlan is the plan command: plan the desired file against the
// snapshot, show the plan, save it with --out, and exit as the flags ask.
func runPlan(c *cli.Context, e *env) error {
	if refsPlan(c) {
		return runPlanRefs(c, e)
	}
	file, err := planArgs(c)
	if err != nil {
		return err
	}
	st, stateJSON, ov, diags, err := planInputs(c, file)
	if err != nil {
		return err
	}
	out := c.String("out")
	style := styleFor(e.stdout, c.Bool("no-color"))
	// An existing --out file is left as it was.
	notSaved := func() {
		if out != "" {
			fmt.Fprintln(e.stderr, "No plan was saved.")
		}
	}
	if diags.HasErrors() {
		writeDiagnostics(e.stderr, diags, ov, c.Bool("no-color"))
		notSaved()
		return exitCode(1)
	}
	p, pdiags := planner.Build(st, ov)
	diags = append(diags, pdiags...)
	if len(diags) > 0 {
		writeDiagnostics(e.stderr, diags, ov, c.Bool("no-color"))
	}
	if p == nil {
		notSaved()
		return exitCode(1)
	}
	// A plan without a safe order is told the two plans that take it (in
	// its unsafe-order finding, so before it is encoded).
	remedy := split.Remedy(st, p)
	if err := serverDryRun(c, e, p); err != nil {
		return err
	}
	if err := showPlan(c, e, p, planfile.Sources{Snapshot: stateJSON}, style); err != nil {
		return err
	}
	if dir := c.String("split-unsafe"); dir != "" {
		if err := writeSplit(e, dir, p, remedy, file, c.String("state")); err != nil {
			return err
		}
	}
	return planExit(c, p, "the tenancy does not match "+file)
}

// showPlan gives the plan its id, shows it in the --format asked for and
// saves it with --out; src are the state.json bytes of its snapshots, as
// read, which plan.json embeds. The file is written and synced while the
// view is shown, and replaces --out only once the view is written: an
// error in the view still leaves --out as it was.
func showPlan(c *cli.Context, e *env, p *planner.Plan, src planfile.Sources, style views.Style) error {
	planJSON, err := planfile.EncodeParts(p, src) // gives the plan its id
	if err != nil {
		return err
	}
	out := c.String("out")
	if out == "" || out == "-" {
		if err := writeView(e, c.String("format"), p, style); err != nil {
			return err
		}
		if out != "" {
			if _, err := planJSON.WriteTo(e.stdout); err != nil {
				return err
			}
			wrote(e, out, planSummary(p))
		}
		return nil
	}
	type staging struct {
		file *atomicfile.Staged
		err  error
	}
	// A write to a closed stdout (`plan --out p.json | head`) would end
	// krmplan by SIGPIPE, leaving the staged file behind: while it is
	// staged, the write fails with EPIPE instead (os/signal), and the
	// view's error discards the file.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	staged := make(chan staging, 1)
	go func() {
		f, err := atomicfile.StageFrom(out, planJSON, 0o644)
		staged <- staging{f, err}
	}()
	viewErr := writeView(e, c.String("format"), p, style)
	s := <-staged
	switch {
	case viewErr != nil:
		if s.file != nil {
			s.file.Discard()
		}
		// Said, or `plan --out p.json | head` would look as if it saved.
		return fmt.Errorf("%w; %s was not written", viewErr, escape.Controls(out))
	case s.err != nil:
		return cli.Exit(s.err.Error(), 1)
	}
	if err := s.file.Commit(); err != nil {
		return cli.Exit(err.Error(), 1)
	}
	wrote(e, out, planSummary(p))
	return nil
}

// planExit is the plan command's exit: 1 for a plan with errors or, with
// --expect-no-changes, with changes (drift says what does not match), 2
// for changes with --detailed-exitcode.
func planExit(c *cli.Context, p *planner.Plan, drift string) error {
	switch {
	case !p.Renderable():
		return exitCode(1)
	case c.Bool("expect-no-changes") && len(p.Changes) > 0:
		return cli.Exit(fmt.Sprintf("--expect-no-changes: the plan has changes (%d to add, %d to change, %d to destroy); %s",
			p.Summary.Add, p.Summary.Change, p.Summary.Destroy, drift), 1)
	case c.Bool("detailed-exitcode") && len(p.Changes) > 0:
		return exitCode(2)
	}
	return nil
}

// planArgs checks the plan command's arguments and flags and returns the
// desired file: --state, one desired file, a known --format, and an --out
// that is none of the inputs.
func planArgs(c *cli.Context) (string, error) {
	if err := requireFlag(c, "state", "state.json"); err != nil {
		return "", err
	}
	file, err := oneArg(c, "desired.hcl")
	if err != nil {
		return "", err
	}
	if err := checkFormat(c.String("format"), viewFormats); err != nil {
		return "", err
	}
	inputs := []input{{"--state", c.String("state")}, {"desired file", file}}
	for _, vf := range c.StringSlice("var-file") {
		inputs = append(inputs, input{"--var-file", vf})
	}
	if c.Bool("server-dry-run") {
		inputs = append(inputs, kubeconfigInputs(c.String("kubeconfig"))...)
	} else if f := kubeFlagSet(c); f != "" {
		return "", cli.Exit(f+" is for --server-dry-run: without it, plan reads no cluster", 1)
	}
	if dir := c.String("split-unsafe"); dir != "" {
		first, second := splitPaths(dir)
		for _, f := range []string{first, second} {
			if err := checkWrite("--split-unsafe "+dir+" writes "+f+", which", f, inputs...); err != nil {
				return "", err
			}
		}
	}
	return file, checkOut(c, inputs...)
}

// writeDiagnostics writes the problems of loading and planning the
// desired file to w (stderr) with their source lines, enclosing blocks and
// the values their expressions used (diag.WriteText).
func writeDiagnostics(w io.Writer, diags hcl.Diagnostics, ov *config.Overlay, noColor bool) {
	files := diag.Files(ov.Files)
	diag.WriteText(w, diag.FromHCLs(diags, files), files, styleFor(w, noColor).Diag())
}

// planInputs reads the snapshot and loads the desired file (with its
// variables). The snapshot (tens of megabytes for a big tenancy) is read
// while the desired file is; its errors still come first. stateJSON is
// state.json's bytes, which plan.json embeds as they are. err is a file
// that cannot be read (exit 1); diags are the desired file's problems.
func planInputs(c *cli.Context, file string) (st *snapshot.State, stateJSON []byte, ov *config.Overlay, diags hcl.Diagnostics, err error) {
	type loaded struct {
		st   *snapshot.State
		file []byte
		err  error
	}
	state := make(chan loaded, 1)
	go func() {
		var ls loaded
		if ls.file, ls.err = inputfile.Read(c.String("state"), inputfile.State); ls.err == nil {
			ls.st, ls.err = snapshot.Decode(c.String("state"), ls.file)
		}
		state <- ls
	}()
	ov, diags, err = loadDesired(file, c.StringSlice("var"), c.StringSlice("var-file"))
	ls := <-state
	if ls.err != nil {
		return nil, nil, nil, nil, cli.Exit(ls.err.Error(), 1)
	}
	if err != nil {
		return nil, nil, nil, nil, cli.Exit(err.Error(), 1)
	}
	return ls.st, ls.file, ov, diags, nil
}

// loadDesired reads the desired file and the --var-file files and loads
// them with the --var values. Later --var-file entries win, as in
// Terraform: their order is kept. err is a file that cannot be read.
func loadDesired(file string, vars, varFileNames []string) (*config.Overlay, hcl.Diagnostics, error) {
	src, err := inputfile.Read(file, inputfile.Desired)
	if err != nil {
		return nil, nil, err
	}
	var varFiles []config.VarFile
	for _, vf := range varFileNames {
		b, err := inputfile.Read(vf, inputfile.VarFile)
		if err != nil {
			return nil, nil, err
		}
		varFiles = append(varFiles, config.VarFile{Name: vf, Src: b})
	}
	ov, diags := config.LoadOrdered(file, src, vars, varFiles)
	return ov, diags, nil
}

// loadPlan reads a plan file and plans it again (planfile.Decode): the
// plan that its snapshot and desired file make. A file that says anything
// else is refused by the command (show, render), naming the difference.
func loadPlan(path, command string) (*planner.Plan, error) { return loadPlanThen(path, command, nil) }

// loadPlanThen is loadPlan that gives the file's bytes to read (when not
// nil) before it decodes them.
func loadPlanThen(path, command string, read func([]byte)) (*planner.Plan, error) {
	b, err := inputfile.Read(path, inputfile.Plan)
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	if read != nil {
		read(b)
	}
	p, err := planfile.Decode(path, b)
	var differs *planfile.DiffersError
	switch {
	case errors.As(err, &differs):
		return nil, cli.Exit(command+" refused: "+err.Error(), 1)
	case err != nil:
		return nil, cli.Exit(err.Error(), 1)
	}
	return p, nil
}

func showCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a saved plan",
		UsageText: "show plan.json [--format text|json|markdown]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text, json (docs/json-format.md) or markdown (a pull-request comment)"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
		},
		Action: func(c *cli.Context) error {
			file, err := oneArg(c, "plan.json")
			if err != nil {
				return err
			}
			format := c.String("format")
			if err := checkFormat(format, viewFormats); err != nil {
				return err
			}
			p, err := loadPlan(file, "show")
			if err != nil {
				return err
			}
			return writeView(e, format, p, styleFor(e.stdout, c.Bool("no-color")))
		},
	}
}

func renderCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "render",
		Usage: "turn an approved plan into kubectl patches, a one-commit YAML splice, or its diff",
		UsageText: "render plan.json --format patch [--approve PLAN_ID] [-o FILE] [--context C] [--kubeconfig F] [--check-live]\n" +
			"render plan.json --format splice|diff [--approve PLAN_ID] [-o FILE] [--branch NAME] [--message SUBJECT] [--force] [--with-mirrors] [--git-repo DIR]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "patch (a kubectl script), splice (a commit on a new branch) or diff (the splice's unified diff, no commit)"},
			&cli.StringFlag{Name: "approve", Usage: "approve the plan with this id (the full id or its first 12+ hex digits)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "patch: write the script here and its rollback beside it (apply.sh, apply.rollback.sh); diff: write here (default: stdout)"},
			&cli.StringFlag{Name: "branch", Usage: "splice: the new branch (default krmplan/<first 12 of the plan id>)"},
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "splice: the commit's subject, one line (default: what changes, as \"quota: +project inference, workspace gpu 3→2\"); the body still lists every change"},
			&cli.BoolFlag{Name: "force", Usage: "splice: move the branch to the new commit if it exists (never a branch checked out in a work tree)"},
			&cli.BoolFlag{Name: "with-mirrors", Usage: "splice, diff: also rewrite the namespace ResourceQuotas that .krmplan.hcl names as mirrors"},
			&cli.StringFlag{Name: "git-repo", Usage: "splice, diff: the repository to read the snapshot's commit from and to create the branch in (default: the repository the snapshot was taken from)"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
		}, patchFlags()...),
		Action: func(c *cli.Context) error { return runRender(c, e) },
	}
}

// approvedHeader reports whether the plan_id line of plan.json's bytes b
// (`  "plan_id": "…",`, the first at the top level) is the plan that
// --approve id approves, by planner.Plan.MatchID's rule: at least its first
// 12 hex digits. A read of the bytes, not of the plan: it only gates the
// splice's preflight.
func approvedHeader(b []byte, id string) bool {
	const key = "\n  \"plan_id\": \""
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return false
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return false
	}
	p := planner.Plan{PlanID: string(rest[:j])}
	return p.MatchID(id)
}

// runRender is the render command: an approved plan as a patch script, a
// splice commit or its diff.
func runRender(c *cli.Context, e *env) error {
	file, err := renderArgs(c)
	if err != nil {
		return err
	}
	// A splice's first questions to git are asked while the plan decodes
	// (commit.Preflight); only for a plan approved on the command line, as
	// a prompt may wait longer than the answers hold, and whose plan_id
	// line is the one approved, so that git runs in the repository a plan
	// file names only once its id is approved (script.Approve checks the
	// decoded plan's id after), and only once the file is shown to be that
	// plan, unedited and renderable (commit.UneditedRenderable).
	var pf *commit.Preflight
	defer func() { pf.Wait() }()
	p, err := loadPlanThen(file, "render", func(b []byte) {
		if c.String("format") == "patch" || !approvedHeader(b, c.String("approve")) {
			return
		}
		if src, ok := commit.PlanSource(b); ok {
			pf = commit.StartPreflightIf(src, c.String("git-repo"), func() bool { return commit.UneditedRenderable(b) })
		}
	})
	if err != nil {
		return err
	}
	if p.Renderable() && len(p.Changes) == 0 {
		return cli.Exit("render refused: the plan has no changes: nothing to render", 1)
	}
	prompted := false
	if c.String("approve") == "" && p.Renderable() && isTerminal(e.stdin) && isTerminal(e.stderr) {
		prompted, err = prompt(e, p, colorOn(e.stderr, c.Bool("no-color")))
		if err != nil {
			return err
		}
	}
	if err := script.Approve(p, c.String("approve"), prompted); err != nil {
		return cli.Exit("render refused: "+err.Error(), 1)
	}
	opts := commit.Options{WithMirrors: c.Bool("with-mirrors"), Repo: c.String("git-repo"), Force: c.Bool("force"), Subject: c.String("message"), Preflight: pf}
	switch c.String("format") {
	case "patch":
		return renderPatch(c, e, p)
	case "diff":
		res, err := commit.Diff(p, opts)
		if err != nil {
			return cli.Exit("render refused: "+err.Error(), 1)
		}
		spliceNotes(e, res.Notes, res.Reminders)
		if err := writeOut(e, c.String("out"), res.Diff, 0o644); err != nil {
			return err
		}
		wrote(e, c.String("out"), diffSummary(p, res.Diff))
		return nil
	}
	res, err := commit.Splice(p, c.String("branch"), opts)
	if err != nil {
		return cli.Exit("render refused: "+err.Error(), 1)
	}
	spliceNotes(e, res.Notes, res.Reminders)
	repo := escape.Controls(res.Repo.String())
	if res.Replaced != "" {
		fmt.Fprintf(e.stdout, "Moved branch %s from commit %s to commit %s (--force) in %s; nothing was pushed.\n\n", res.Branch, res.Replaced, res.Commit, repo)
	} else {
		fmt.Fprintf(e.stdout, "Created branch %s (commit %s) in %s; nothing was pushed.\n\n", res.Branch, res.Commit, repo)
	}
	_, err = e.stdout.Write(res.Diff)
	return err
}

// renderArgs checks the render command's arguments and flags, each flag
// against the format it belongs to, and returns the plan file.
func renderArgs(c *cli.Context) (string, error) {
	if err := requireFlag(c, "format", "patch|splice|diff"); err != nil {
		return "", err
	}
	file, err := oneArg(c, "plan.json")
	if err != nil {
		return "", err
	}
	format := c.String("format")
	switch {
	case format != "patch" && format != "splice" && format != "diff":
		return "", cli.Exit(fmt.Sprintf("--format %s: use patch, splice or diff", format), 1)
	case c.Bool("with-mirrors") && format == "patch":
		return "", cli.Exit("--with-mirrors rewrites files: use it with --format splice or diff", 1)
	case c.String("branch") != "" && format != "splice":
		return "", cli.Exit("--branch names the splice's branch: use it with --format splice", 1)
	case c.IsSet("message") && format != "splice":
		return "", cli.Exit("--message is the subject of the splice's commit: use it with --format splice", 1)
	case c.IsSet("message") && !oneLine(c.String("message")):
		return "", cli.Exit(fmt.Sprintf("--message %s: the commit's subject is one line of text, without control characters; the body lists the changes", escape.Controls(strconv.Quote(c.String("message")))), 1)
	case c.Bool("force") && format != "splice":
		return "", cli.Exit("--force moves an existing branch to the splice's commit: use it with --format splice", 1)
	case c.String("git-repo") != "" && format == "patch":
		return "", cli.Exit("--git-repo is the repository of a splice: use it with --format splice or diff", 1)
	case format != "patch" && (c.IsSet("context") || c.IsSet("kubeconfig") || c.Bool("check-live")):
		return "", cli.Exit(fmt.Sprintf("%s names the cluster of a patch script: use it with --format patch", setFlag(c, "context", "kubeconfig", "check-live")), 1)
	case c.String("out") != "" && format == "splice":
		return "", cli.Exit("-o: a splice is a commit on a branch; use --format diff -o FILE for a patch file", 1)
	}
	if err := checkOut(c, input{"plan file", file}); err != nil {
		return "", err
	}
	if out := c.String("out"); format == "patch" && out != "" && out != "-" {
		if err := checkRollbackOut(c, file, out); err != nil {
			return "", err
		}
	}
	return file, nil
}

// oneLine reports whether s is a commit subject: some text on one line,
// without control characters.
func oneLine(s string) bool {
	if strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// checkRollbackOut refuses a patch script's -o whose rollback file
// (script.RollbackPath) is the plan file or the -o file itself.
func checkRollbackOut(c *cli.Context, plan, out string) error {
	rb := script.RollbackPath(out)
	for _, in := range []input{{"plan file", plan}, {"-o file", out}} {
		if samePath(rb, in.path) {
			return cli.Exit(fmt.Sprintf("-o %s: its rollback goes to %s, which is also the %s; choose another file", out, rb, in.what), 1)
		}
	}
	return nil
}

// setFlag is "--" + the first of names that c sets.
func setFlag(c *cli.Context, names ...string) string {
	for _, n := range names {
		if c.IsSet(n) {
			return "--" + n
		}
	}
	return ""
}

// spliceNotes prints a splice's notes and reminders on stderr (they are in
// the commit message too).
func spliceNotes(e *env, notes, reminders []string) {
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "Note: %s\n", escape.Controls(n))
	}
	for _, r := range reminders {
		fmt.Fprintf(e.stderr, "Reminder: %s\n", escape.Controls(r))
	}
}

// prompt shows the plan on stderr and asks for "yes", as terraform apply does.
func prompt(e *env, p *planner.Plan, color bool) (bool, error) {
	if err := views.Text(e.stderr, p, views.NewStyle(color).WithColumns(columnsOf(e.stderr))); err != nil {
		return false, err
	}
	fmt.Fprint(e.stderr, "\nDo you want to render this plan?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		return false, cli.Exit("render refused: the plan was not approved (the answer was not yes)", 1)
	}
	return true, nil
}
