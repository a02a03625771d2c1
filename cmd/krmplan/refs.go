package main

// plan --git-repo DIR --base REF --head REF: the plan of a pull request
// that edits the tenancy YAML.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner/between"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
	"github.com/urfave/cli/v2"
)

// refsFlags are the plan command's flags of a plan between two git refs.
func refsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "git-repo", Usage: "plan between two refs of this git repository (with --base and --head; never its work tree)"},
		&cli.StringFlag{Name: "base", Usage: "--git-repo: the ref the cluster runs, such as origin/main"},
		&cli.StringFlag{Name: "head", Usage: "--git-repo: the ref whose tenancy the plan reaches, such as HEAD"},
		&cli.StringSliceFlag{Name: "tenancy", Usage: "--git-repo: a tenancy file or folder in the repository, read at both refs (repeatable)"},
		&cli.StringFlag{Name: "cluster-data", Usage: "--git-repo: nodes, queues and namespaces of the cluster that runs the base (a JSON file)"},
		&cli.StringSliceFlag{Name: "force-removal", Usage: "--git-repo: remove this although it is in use, as force = true in a removed block: project=NAME, department=NAME[,queue=POOL], project=NAME,queue=POOL or node_pool=NAME (repeatable; recorded in the plan)"},
	}
}

// refsPlan reports whether c asks for a plan between two refs.
func refsPlan(c *cli.Context) bool {
	return c.IsSet("git-repo") || c.IsSet("base") || c.IsSet("head") || c.IsSet("tenancy") || c.IsSet("cluster-data") || c.IsSet("force-removal")
}

// runPlanRefs plans what the head ref changes relative to the base ref:
// both are read with the one git reader (the base with the cluster data),
// their tenancies diffed into changes, and those planned against the base.
func runPlanRefs(c *cli.Context, e *env) error {
	if err := refsArgs(c); err != nil {
		return err
	}
	forced, err := forcedRemovals(c)
	if err != nil {
		return err
	}
	bs, hs, err := refSources(c)
	if err != nil {
		return err
	}
	base, baseJSON, err := refSnapshot(e, bs, c.String("cluster-data"))
	if err != nil {
		return err
	}
	head, headJSON, err := refSnapshot(e, hs, "")
	if err != nil {
		return err
	}
	p, err := between.Plan(base, head, forced)
	if fe := (*between.ForceError)(nil); errors.As(err, &fe) {
		fmt.Fprintf(e.stderr, "Error: %s\n", escape.Lines(fe.Error()))
		if c.String("out") != "" {
			fmt.Fprintln(e.stderr, "No plan was saved.")
		}
		return exitCode(1)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "Error: the changes from %s to %s cannot be planned:\n%s\n", escape.Controls(c.String("base")), escape.Controls(c.String("head")), escape.Lines(err.Error()))
		if c.String("out") != "" {
			fmt.Fprintln(e.stderr, "No plan was saved.")
		}
		return exitCode(1)
	}
	if err := showPlan(c, e, p, planfile.Sources{Snapshot: baseJSON, Head: headJSON}, styleFor(e.stdout, c.Bool("no-color"))); err != nil {
		return err
	}
	return planExit(c, p, fmt.Sprintf("%s does not match %s", c.String("head"), c.String("base")))
}

// refsArgs checks a plan between refs: --git-repo, --base, --head and
// --tenancy, no desired file and none of its flags, a known --format, and
// an --out that is no input.
func refsArgs(c *cli.Context) error {
	if c.IsSet("force-removal") && !c.IsSet("git-repo") && c.NArg() > 0 {
		return cli.Exit("--force-removal belongs to a plan between two git refs (--git-repo); in desired.hcl, set force = true in the removed block", 1)
	}
	for _, f := range []string{"git-repo", "base", "head", "tenancy"} {
		if c.String(f) == "" && len(c.StringSlice(f)) == 0 {
			return cli.Exit(fmt.Sprintf("plan between git refs needs --git-repo DIR, --base REF, --head REF and --tenancy PATH; --%s is missing", f), 1)
		}
	}
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("plan --git-repo plans the tenancy files between --base and --head and takes no desired file, got %v", c.Args().Slice()), 1)
	}
	if f := setFlag(c, "state", "var", "var-file", "split-unsafe", "server-dry-run"); f != "" {
		return cli.Exit(f+" belongs to a plan of desired.hcl; a plan with --git-repo reads the base and the head ref instead", 1)
	}
	if f := kubeFlagSet(c); f != "" {
		return cli.Exit(f+": a plan with --git-repo reads no cluster; give its data with --cluster-data FILE", 1)
	}
	if err := checkFormat(c.String("format"), viewFormats); err != nil {
		return err
	}
	return checkOut(c, input{"--cluster-data", c.String("cluster-data")})
}

// refSource is the git source of one of the refs: what is "base" or
// "head", commit what its ref resolves to.
type refSource struct {
	what, commit string
	src          snapshot.GitSource
}

// errorf is an error reading the ref, prefixed with which ref it is: "at
// the base main (commit 0c186177cfdc): tenancy.yaml:17: …".
func (r refSource) errorf(err error) error {
	at := "at the " + r.what + " " + escape.Controls(r.src.Ref)
	if r.commit != "" {
		at += " (commit " + words.ShortID(r.commit) + ")"
	}
	return cli.Exit(at+": "+err.Error(), 1)
}

// refSources are the sources of the base and the head: --tenancy at both,
// a path that one of the refs lacks read as empty there (its objects are
// added or removed by the pull request), one that both lack refused.
func refSources(c *cli.Context) (base, head refSource, err error) {
	paths := c.StringSlice("tenancy")
	base = refSource{what: "base", src: snapshot.GitSource{Repo: c.String("git-repo"), Ref: c.String("base"), Paths: paths}}
	head = refSource{what: "head", src: snapshot.GitSource{Repo: c.String("git-repo"), Ref: c.String("head"), Paths: paths}}
	var bm, hm []string
	if base.commit, bm, err = snapshot.Missing(base.src); err != nil {
		return base, head, base.errorf(err)
	}
	if head.commit, hm, err = snapshot.Missing(head.src); err != nil {
		return base, head, head.errorf(err)
	}
	for _, p := range bm {
		if slices.Contains(hm, p) {
			return base, head, cli.Exit(fmt.Sprintf("%s: no such file at the base %s (commit %s) nor at the head %s (commit %s)",
				escape.Controls(p), escape.Controls(base.src.Ref), words.ShortID(base.commit), escape.Controls(head.src.Ref), words.ShortID(head.commit)), 1)
		}
	}
	base.src.Absent, head.src.Absent = bm, hm
	return base, head, nil
}

// refSnapshot reads the tenancy of r, with the cluster data of the file
// clusterData when it is not "", as `snapshot --git-repo` writes it (the
// same bytes, stateJSON: sealed and decoded again). An error names the ref.
func refSnapshot(e *env, r refSource, clusterData string) (st *snapshot.State, stateJSON []byte, err error) {
	if st, err = snapshot.FromGit(r.src); err != nil {
		return nil, nil, r.errorf(err)
	}
	if clusterData != "" {
		d, err := snapshot.LoadClusterData(clusterData)
		if err != nil {
			return nil, nil, cli.Exit(err.Error(), 1)
		}
		st.Overlay(d)
	}
	st.TakenAt = takenAt().Format(time.RFC3339)
	stateJSON = st.Seal()
	if st, err = snapshot.Decode(r.src.Ref, stateJSON); err != nil {
		return nil, nil, r.errorf(err)
	}
	data := "no cluster data"
	if clusterData != "" {
		data = "cluster data from " + clusterData
	}
	files := words.Count(len(st.Source.Files), "file")
	if len(r.src.Absent) > 0 {
		files += " (no " + escape.Controls(strings.Join(r.src.Absent, ", ")) + " at this ref: read as empty)"
	}
	fmt.Fprintf(e.stderr, "Read the %s %s (commit %s): %s, %s, %s, %s, %s.\n", r.what, escape.Controls(r.src.Ref), words.ShortID(st.Source.Commit),
		files, words.Count(len(st.NodePools), "node pool"), words.Count(len(st.Departments), "department"),
		words.Count(len(st.Projects), "project"), escape.Controls(data))
	return st, stateJSON, nil
}

// forcedRemovals reads the --force-removal flags: each the keys of a
// removed block, project=legacy or department=x,queue=h100.
func forcedRemovals(c *cli.Context) ([]tenancy.RemovalAddr, error) {
	var out []tenancy.RemovalAddr
	for _, s := range c.StringSlice("force-removal") {
		r, err := tenancy.ParseRemovalAddr(s)
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("--force-removal %s: %v", escape.Controls(s), err), 1)
		}
		out = append(out, r)
	}
	return out, nil
}
