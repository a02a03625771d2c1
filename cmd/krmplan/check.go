package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/github"
	"github.com/krmplan/krmplan/render/views"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
	"github.com/urfave/cli/v2"
)

// checkFormats are the --format values of check.
var checkFormats = []string{"text", "json", "github"}

// checkLevels are the --min-level values of check, most serious first.
var checkLevels = []string{"error", "warning", "note"}

func checkCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "run every check on tenancy YAML as it is (a CI gate): exit 1 on any error",
		UsageText: "check [--ref REF [--git-repo DIR]] [--format text|json|github [--base REF] [--summary FILE]] [--min-level error|warning|note] PATH...\n\n" +
			"PATH is a tenancy file or a folder (every *.yaml and *.yml under it). Without --ref the files\n" +
			"are read from the work tree; with --ref they are read at that git revision, a relative PATH\n" +
			"from the --git-repo folder (default: the current one), as `git -C DIR show REF:./PATH` reads\n" +
			"it. Check reads no cluster: the checks that need nodes, queues or namespaces say so in\n" +
			"notes, which --min-level note shows.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ref", Usage: "read the files at this git revision instead of the work tree"},
			&cli.StringFlag{Name: "git-repo", Value: ".", Usage: "read the files from this git repository (at --ref, default HEAD); a relative PATH is from this folder"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json (docs/json-format.md) or github (workflow annotations)"},
			&cli.StringFlag{Name: "min-level", Value: "warning", Usage: "show findings at this level and above: error, warning or note"},
			&cli.StringFlag{Name: "base", Usage: "github: annotate each finding on the first of its lines changed since the merge base with this revision (a pull request's base)"},
			&cli.StringFlag{Name: "summary", Usage: "github: append every finding, as markdown, to this file ($GITHUB_STEP_SUMMARY)"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := checkFormat(format, checkFormats); err != nil {
				return err
			}
			for _, f := range []string{"base", "summary"} {
				if c.IsSet(f) && format != "github" {
					return cli.Exit(fmt.Sprintf("--%s is for GitHub's annotations: use it with --format github", f), 1)
				}
			}
			minLevel := c.String("min-level")
			rank := -1
			for i, l := range checkLevels {
				if l == minLevel {
					rank = i
				}
			}
			if rank < 0 {
				return cli.Exit(fmt.Sprintf("--min-level %s: use %s", minLevel, orList(checkLevels)), 1)
			}
			if c.NArg() == 0 {
				return cli.Exit("check: missing PATH (a tenancy file or folder; usage: krmplan check [--ref REF] [--format text|json|github] PATH...)", 1)
			}
			ref := c.String("ref")
			atRef := c.IsSet("ref") || c.IsSet("git-repo")
			if atRef && !c.IsSet("ref") {
				ref = "HEAD"
			}
			res, err := runCheck(c.String("git-repo"), ref, atRef, c.Args().Slice())
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			if format == "github" {
				res.findings = github.ByPlace(res.findings)
			}
			if base := c.String("base"); base != "" {
				changed, err := changedSince(c.String("git-repo"), base, ref, atRef, res.source.Files)
				if err != nil {
					return cli.Exit(err.Error(), 1)
				}
				res.findings = github.ChangedFirst(res.findings, changed.has)
			}
			return writeCheck(e, c, format, rank, res)
		},
	}
}

// checkResult is what check found.
type checkResult struct {
	source   views.CheckSource
	findings []planner.Finding
	errors   int
}

// runCheck reads the tenancy files (the work tree, or a git ref when
// atRef) and runs every check on them as they are. A file that cannot be
// parsed is an error finding on its line, and the checks then do not run:
// on half a tenancy they would report objects as missing.
func runCheck(repo, ref string, atRef bool, paths []string) (*checkResult, error) {
	res := &checkResult{source: views.CheckSource{Kind: "files", Files: []string{}}}
	var st *snapshot.State
	if atRef {
		if ref == "" {
			return nil, errors.New("--ref: give a git revision")
		}
		s, err := snapshot.FromGit(snapshot.GitSource{Repo: repo, Ref: ref, Paths: paths, FromDir: true})
		var pe *snapshot.ParseError
		switch {
		case errors.As(err, &pe):
			res.source.Kind, res.source.Ref = "git", ref
			res.findings = []planner.Finding{parseFinding(pe)}
			res.errors = 1
			return res, nil
		case err != nil:
			return nil, err
		}
		st = s
		res.source = views.CheckSource{Kind: "git", Repo: s.Source.Repo, Ref: s.Source.Ref, Commit: s.Source.Commit, Files: []string{}}
		for _, f := range s.Source.Files {
			res.source.Files = append(res.source.Files, f.Path)
		}
	} else {
		files, err := workTreeFiles(paths)
		if err != nil {
			return nil, err
		}
		var t snapshot.Parsed
		for _, f := range files {
			res.source.Files = append(res.source.Files, f)
			b, err := snapshot.ReadTenancyFile(f)
			if err != nil {
				return nil, err
			}
			var pe *snapshot.ParseError
			if err := t.ParseTenancy(f, b); errors.As(err, &pe) {
				res.findings = append(res.findings, parseFinding(pe))
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			t.ReadKustomizations(f, b, func(name string) ([]byte, error) { return inputfile.Read(name, inputfile.Patch) })
		}
		res.findings = append(res.findings, duplicateObjects(&t)...)
		if len(res.findings) > 0 {
			res.errors = len(res.findings)
			return res, nil
		}
		if err := t.RequireObjects(res.source.Files, "the work tree"); err != nil {
			return nil, err
		}
		st = &snapshot.State{Source: snapshot.Source{Kind: "files"}, Tenancy: t.Tenancy, Other: t.Other}
		for _, what := range []string{snapshot.SourceNodes, snapshot.SourceQueues, snapshot.SourceNamespaces} {
			st.NotRead = append(st.NotRead, snapshot.NotRead{What: what, Reason: "check reads tenancy files only"})
		}
		st.Normalize()
	}
	res.findings = planner.CheckState(st)
	locateFindings(st, res.findings)
	for _, f := range res.findings {
		if f.Level == planner.LevelError {
			res.errors++
		}
	}
	return res, nil
}

// workTreeFiles expands the paths into files: a file as given, a folder
// into every *.yaml and *.yml under it (hidden folders skipped), sorted.
func workTreeFiles(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = filepath.ToSlash(filepath.Clean(p))
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, inputfile.Tenancy.OpenError(p, err)
		}
		if !info.IsDir() {
			add(p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *.yaml or *.yml file under it", p)
		}
		sort.Strings(found)
		for _, f := range found {
			add(f)
		}
	}
	return out, nil
}

func parseFinding(pe *snapshot.ParseError) planner.Finding {
	f := planner.Finding{Code: planner.CodeInvalidTenancy, Level: planner.LevelError, Object: pe.Object, Queue: pe.Queue, Message: pe.Msg}
	f.Where = []tenancy.Location{{File: pe.File, Line: max(pe.Line, 1)}}
	return f
}

// duplicateObjects turns the tenancy's duplicate declarations into
// findings on the later declaration.
func duplicateObjects(t *snapshot.Parsed) []planner.Finding {
	var out []planner.Finding
	for _, d := range t.Duplicates() {
		out = append(out, planner.Finding{Code: planner.CodeDuplicateObject, Level: planner.LevelError,
			Message: d.Msg, Where: []tenancy.Location{{File: d.File, Line: d.Line}}})
	}
	return out
}

// locateFindings gives a finding without a location its object's line,
// so that every finding about an object can be annotated on its file.
func locateFindings(s *snapshot.State, fs []planner.Finding) {
	x := tenancy.NewIndex(&s.Tenancy)
	for i := range fs {
		if len(fs[i].Where) > 0 {
			continue
		}
		if o, _ := x.Origin(fs[i].Object); o != nil {
			fs[i].Where = []tenancy.Location{{File: o.File, Line: o.Line}}
		}
	}
}

// writeCheck prints the findings at or above minRank in format, and
// returns exit 1 when there is an error.
func writeCheck(e *env, c *cli.Context, format string, minRank int, res *checkResult) error {
	var shown []planner.Finding
	var count views.CheckCount
	for _, f := range res.findings {
		switch f.Level {
		case planner.LevelError:
			count.Errors++
		case planner.LevelWarning:
			count.Warnings++
		default:
			count.Notes++
		}
		if f.Level.Rank() <= minRank {
			shown = append(shown, f)
		}
	}
	hidden := len(res.findings) - len(shown)
	summary := fmt.Sprintf("check: %s, %s, %s in %s", words.Count(count.Errors, "error"), words.Count(count.Warnings, "warning"),
		words.Count(count.Notes, "note"), words.Count(len(res.source.Files), "file"))
	if hidden > 0 {
		summary += fmt.Sprintf(" (%d not shown: --min-level %s shows them)", hidden, checkLevels[len(checkLevels)-1])
	}
	summary += "."
	var err error
	switch format {
	case "json":
		doc := views.CheckJSON{FormatVersion: views.JSONFormatVersion, Source: res.source, Passed: res.errors == 0,
			Summary: count, Diagnostics: views.DiagnosticsOf(shown)}
		err = views.WriteJSON(e.stdout, doc)
		fmt.Fprintln(e.stderr, summary)
	case "github":
		annotated := shown
		if res.source.Kind == "files" {
			annotated = fromRepoRoot(shown)
		}
		over := github.Annotate(e.stdout, annotated, c.String("summary") != "")
		summary = strings.TrimSuffix(summary, ".") + github.NotAnnotated(over) + "."
		if p := c.String("summary"); p != "" {
			err = github.AppendStepSummary(p, summary, shown)
		}
		fmt.Fprintln(e.stderr, summary)
	default:
		err = views.Findings(e.stdout, shown, nil, styleFor(e.stdout, c.Bool("no-color")))
		if err == nil {
			_, err = fmt.Fprintln(e.stdout, summary)
		}
	}
	if err != nil {
		return err
	}
	if res.errors > 0 {
		return exitCode(1)
	}
	return nil
}
