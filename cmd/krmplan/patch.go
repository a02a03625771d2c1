package main

// render --format patch: the patch script and its rollback, the cluster
// they run against, and --check-live.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/krmplan/krmplan/internal/atomicfile"
	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/dryrun"
	"github.com/krmplan/krmplan/render/script"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/urfave/cli/v2"
	"k8s.io/client-go/dynamic"
)

// contextEnv names the context of a patch script whose snapshot names
// none, when --context does not.
const contextEnv = "KRMPLAN_CONTEXT"

// patchFlags are render's flags for --format patch.
func patchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "context", Usage: "patch: the kubeconfig context every kubectl call of the scripts names; required (or $" + contextEnv + ") when the snapshot names none (a git snapshot), refused when it names another"},
		&cli.StringFlag{Name: "kubeconfig", Usage: "patch: the kubeconfig every kubectl call of the scripts names (--kubeconfig), and --check-live reads (default: kubectl's)"},
		&cli.BoolFlag{Name: "check-live", Usage: "patch: first send every test the script makes to the context's API server as a dry run, and refuse the plan if one fails"},
	}
}

// renderPatch writes the patch script of p and its rollback: with -o FILE
// to FILE and FILE's script.RollbackPath (both or neither), else both on
// stdout (or into the device, FIFO or open file -o names), the rollback
// after a separating comment. With --check-live the guards are checked on
// the cluster first.
func renderPatch(c *cli.Context, e *env, p *planner.Plan) error {
	cluster, err := scriptCluster(c, p)
	if err != nil {
		return cli.Exit("render refused: "+err.Error(), 1)
	}
	if c.Bool("check-live") {
		if err := checkLive(c, e, p, cluster); err != nil {
			return err
		}
	}
	out := c.String("out")
	o := script.Options{Cluster: cluster}
	if out != "" && out != "-" && !atomicfile.Streams(out) {
		o.Rollback = script.RollbackPath(out)
	}
	apply, err := script.PatchScript(p, o)
	if err != nil {
		return cli.Exit("render refused: "+err.Error(), 1)
	}
	back, err := script.RollbackScript(p, o)
	if err != nil {
		return cli.Exit("render refused: the rollback: "+err.Error(), 1)
	}
	if o.Rollback == "" {
		// stdout, or a device, a FIFO or an open file (/dev/stdout): both
		// scripts, one after the other.
		if err := writeOut(e, out, append(append(apply, script.Separator(p)...), back...), 0o755); err != nil {
			return err
		}
		wrote(e, out, patchSummary(p, cluster)+", then its rollback")
		return nil
	}
	if err := atomicfile.WriteAll(atomicfile.File{Path: out, Data: apply, Perm: 0o755}, atomicfile.File{Path: o.Rollback, Data: back, Perm: 0o755}); err != nil {
		return cli.Exit(err.Error(), 1)
	}
	wrote(e, out, patchSummary(p, cluster))
	wrote(e, o.Rollback, rollbackSummary(p, o.Rollback))
	return nil
}

// scriptCluster is where the scripts' kubectl calls go: the snapshot's
// context, which --context and $KRMPLAN_CONTEXT may repeat but not change
// (--context wins over the variable); for a snapshot that
// names none (a git snapshot without a live overlay), --context, else
// $KRMPLAN_CONTEXT — never whatever context is current where the script
// runs. --kubeconfig is made absolute, so the scripts find it from any
// folder.
func scriptCluster(c *cli.Context, p *planner.Plan) (script.Cluster, error) {
	src := p.Snapshot.Source
	flag := c.String("context")
	cl := script.Cluster{Context: src.Context, From: "the snapshot's context"}
	switch {
	case src.Context != "" && flag != "" && flag != src.Context:
		return cl, fmt.Errorf("--context %s: the snapshot was read from context %s, and its tests are of the values there; to patch another cluster, take a snapshot of it and plan again", flag, src.Context)
	case src.Context != "" && flag == "" && os.Getenv(contextEnv) != "" && os.Getenv(contextEnv) != src.Context:
		// Set for the shell, it would be ignored here without a word.
		return cl, fmt.Errorf("$%s is %s, but the snapshot was read from context %s, and its tests are of the values there; unset %s (or pass --context %s) to patch %s, or take a snapshot of %s and plan again",
			contextEnv, os.Getenv(contextEnv), src.Context, contextEnv, src.Context, src.Context, os.Getenv(contextEnv))
	case src.Context != "":
	case flag != "":
		cl.Context, cl.From = flag, "--context at render"
	case os.Getenv(contextEnv) != "":
		cl.Context, cl.From = os.Getenv(contextEnv), "$"+contextEnv+" at render"
	default:
		return cl, fmt.Errorf("the snapshot (%s) names no cluster context, and a patch script never runs against whatever context is current: pass --context NAME (or set %s=NAME), the kubeconfig context of the cluster to patch", snapshotName(src.Kind), contextEnv)
	}
	if k := c.String("kubeconfig"); k != "" {
		abs, err := filepath.Abs(k)
		if err != nil {
			return cl, fmt.Errorf("--kubeconfig %s: %w", k, err)
		}
		cl.Kubeconfig = abs
	}
	return cl, nil
}

// snapshotName says what kind of snapshot names no context.
func snapshotName(kind string) string {
	if kind == "git" {
		return "from git, without a live overlay"
	}
	return "a cluster read without a kubeconfig context"
}

// checkLive sends the guards of p's steps to the cluster's API server as
// dry runs (dryrun.CheckGuards) and refuses the plan, naming every guard
// that fails, when one does; a cluster it cannot reach is an error too.
func checkLive(c *cli.Context, e *env, p *planner.Plan, cl script.Cluster) error {
	t, err := live.LoadKubeconfig(live.KubeOptions{Kubeconfig: cl.Kubeconfig, Context: cl.Context})
	if err != nil {
		return cli.Exit("--check-live: "+err.Error(), 1)
	}
	if s := p.Snapshot.Source.Server; s != "" && s != t.Server {
		fmt.Fprintf(e.stderr, "Warning: --check-live: the snapshot was read from %s, context %s now reaches %s.\n", escape.Controls(s), escape.Controls(cl.Context), escape.Controls(t.Server))
	}
	dyn, err := dynamic.NewForConfig(t.Config)
	if err != nil {
		return cli.Exit("--check-live: "+err.Error(), 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), defaultClusterTimeout)
	defer cancel()
	fails, err := dryrun.CheckGuards(ctx, dyn, p.Steps)
	if err != nil {
		return cli.Exit(fmt.Sprintf("--check-live against context %s (%s): %v", cl.Context, t.Server, err), 1)
	}
	if len(fails) > 0 {
		for _, f := range fails {
			fmt.Fprintf(e.stderr, "--check-live: %s\n", escape.Controls(f.Message()))
		}
		return cli.Exit(fmt.Sprintf("render refused: --check-live: context %s changed since the snapshot (%s of the plan failed in a server dry run), and the script would stop at step %d; take a new snapshot and plan again",
			cl.Context, words.Count(len(fails), "test"), fails[0].N), 1)
	}
	fmt.Fprintf(e.stderr, "Checked live: every test of the %s holds on context %s (a server dry run; nothing changed).\n", words.Count(len(p.Steps), "step"), escape.Controls(cl.Context))
	return nil
}
