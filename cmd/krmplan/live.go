package main

// The live-cluster parts of the CLI: the snapshot's sources (a live
// cluster, a git ref, a git ref with a live overlay) and the server-side
// dry run of `plan --server-dry-run`.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/dryrun"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/snapshot/worktree"
	"github.com/urfave/cli/v2"
	"k8s.io/client-go/dynamic"
)

// defaultClusterTimeout bounds a whole cluster read (--timeout).
const defaultClusterTimeout = 60 * time.Second

// snapshotState reads the state the snapshot command's flags name:
//   - no --git-repo: a live snapshot of the kubeconfig's cluster;
//   - --git-repo: the tenancy at the ref, with the cluster data of
//     --cluster-data FILE, or of the cluster --context/--kubeconfig names
//     (the live overlay), or of no cluster (the default, and --no-cluster),
//     so that CI and the demo stay offline unless a cluster is asked for.
//
// Contradicting flags are an error naming them; so is every failure to
// read (exit 1).
func snapshotState(c *cli.Context, e *env) (*snapshot.State, error) {
	named := clusterFlag(c)
	live := named != ""
	if c.String("git-repo") == "" {
		switch {
		case c.IsSet("tenancy") || c.IsSet("ref"):
			return nil, cli.Exit("snapshot: --git-repo DIR is required with --tenancy and --ref (without --git-repo, snapshot reads a live cluster)", 1)
		case c.Bool("no-cluster"):
			return nil, cli.Exit("snapshot: --no-cluster needs --git-repo (without --git-repo, snapshot reads a live cluster)", 1)
		case c.IsSet("cluster-data"):
			return nil, cli.Exit("snapshot: --cluster-data needs --git-repo (it is the cluster data of a git snapshot)", 1)
		}
		r, err := clusterReader(c, e)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.Duration("timeout"))
		defer cancel()
		st, err := r.ReadState(ctx)
		if err != nil {
			return nil, clusterExit(err, c.Duration("timeout"))
		}
		fmt.Fprintf(e.stderr, "Read %s, %s and %s from %s.\n", words.Count(len(st.NodePools), "node pool"),
			words.Count(len(st.Departments), "department"), words.Count(len(st.Projects), "project"), escape.Controls(clusterName(r)))
		reportClusterData(e, st.Nodes, st.LiveQueues, st.Namespaces, st.NotRead)
		return st, nil
	}
	switch {
	case c.IsSet("cluster-data") && (live || c.Bool("no-cluster")):
		return nil, cli.Exit("snapshot: --cluster-data, --context/--kubeconfig and --no-cluster each name where the cluster data comes from: give one", 1)
	case live && c.Bool("no-cluster"):
		return nil, cli.Exit("snapshot: --no-cluster contradicts "+named+": give one", 1)
	case !live && (c.IsSet("as") || c.IsSet("as-group")):
		return nil, cli.Exit("snapshot: --as impersonates a user on the cluster the snapshot reads, and a git snapshot reads no cluster unless one is named: add --context NAME (or --kubeconfig FILE)", 1)
	}
	// The tenancy at the ref and the cluster data do not depend on each
	// other: read them at the same time (a live cluster is mostly waiting,
	// a big tenancy is mostly parsing).
	ctx, cancel := context.WithTimeout(context.Background(), c.Duration("timeout"))
	defer cancel()
	src := snapshot.GitSource{Repo: c.String("git-repo"), Ref: c.String("ref"), Paths: c.StringSlice("tenancy")}
	overlay := make(chan liveOverlay, 1)
	read := func() { overlay <- readOverlay(ctx, c, e, live) }
	if c.IsSet("cluster-data") {
		src.Beside = read // decoded on every core: beside the parse, once git has handed over the tenancy
	} else {
		go read() // a live cluster is mostly waiting: read from the start
	}
	changes := make(chan uncommitted, 1) // git status meanwhile, too
	go func() {
		list, err := worktree.Changes(src)
		changes <- uncommitted{list, err}
	}()
	st, err := snapshot.FromGit(src)
	if err != nil {
		cancel()
		if !c.IsSet("cluster-data") {
			<-overlay // FromGit has waited for a decode it started
		}
		<-changes
		return nil, cli.Exit(err.Error(), 1)
	}
	noteUncommitted(e, <-changes, st)
	o := <-overlay
	if o.err != nil {
		return nil, o.err
	}
	if o.data != nil {
		st.Overlay(o.data)
	}
	if o.from != "" {
		fmt.Fprintf(e.stderr, "Read the live overlay from %s.\n", escape.Controls(o.from))
		reportClusterData(e, o.data.Nodes, o.data.LiveQueues, o.data.Namespaces, o.data.NotRead)
	}
	return st, nil
}

// noteUncommitted says on stderr which tenancy files the work tree has
// changed without committing them: the snapshot read the ref, so a person
// who edited the file and forgot to commit would otherwise plan against
// the old numbers without a word. A failing git status is a note too.
func noteUncommitted(e *env, u uncommitted, st *snapshot.State) {
	list, err := u.list, u.err
	if err != nil {
		fmt.Fprintf(e.stderr, "Note: could not list the uncommitted changes of the tenancy files: %s\n", escape.Controls(err.Error()))
		return
	}
	if n := worktree.Note(list, st.Source.Ref, st.Source.Commit); n != "" {
		fmt.Fprintf(e.stderr, "Note: %s.\n", escape.Controls(n))
	}
}

// uncommitted is what worktree.Changes returned.
type uncommitted struct {
	list []worktree.Uncommitted
	err  error
}

// liveOverlay is the cluster data of a git snapshot: from --cluster-data,
// from the cluster named by --context/--kubeconfig (from names it), or
// none.
type liveOverlay struct {
	data *snapshot.ClusterData
	from string
	err  error
}

// readOverlay reads the cluster data of a git snapshot, if any.
func readOverlay(ctx context.Context, c *cli.Context, e *env, live bool) liveOverlay {
	switch {
	case c.IsSet("cluster-data"):
		d, err := snapshot.LoadClusterData(c.String("cluster-data"))
		if err != nil {
			return liveOverlay{err: cli.Exit(err.Error(), 1)}
		}
		return liveOverlay{data: d}
	case live:
		r, err := clusterReader(c, e)
		if err != nil {
			return liveOverlay{err: err}
		}
		d, err := r.ReadClusterData(ctx)
		if err != nil {
			return liveOverlay{err: clusterExit(err, c.Duration("timeout"))}
		}
		return liveOverlay{data: d, from: clusterName(r)}
	}
	return liveOverlay{}
}

// kubeFlags are kubectl's flags for reaching a cluster, on the commands
// that read one; context says what --context defaults to and does there.
func kubeFlags(context string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kubeconfig", Usage: "the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)"},
		&cli.StringFlag{Name: "context", Usage: context},
		&cli.StringFlag{Name: "cluster", Usage: "the kubeconfig cluster to use instead of the context's (as kubectl --cluster)"},
		&cli.StringFlag{Name: "user", Usage: "the kubeconfig user to use instead of the context's (as kubectl --user)"},
		&cli.StringFlag{Name: "as", Usage: "impersonate this user (as kubectl --as)"},
		&cli.StringSliceFlag{Name: "as-group", Usage: "impersonate this group, with --as (repeatable, as kubectl --as-group)"},
	}
}

// kubeOptions are the kubeconfig flags of c.
func kubeOptions(c *cli.Context) live.KubeOptions {
	return live.KubeOptions{Kubeconfig: c.String("kubeconfig"), Context: c.String("context"), Cluster: c.String("cluster"),
		User: c.String("user"), As: c.String("as"), AsGroups: c.StringSlice("as-group")}
}

// clusterFlag is the first of the flags that name a cluster (--context,
// --kubeconfig, --cluster, --user) that c sets, "" for none: with
// --git-repo, one of them asks for the live overlay.
func clusterFlag(c *cli.Context) string {
	for _, f := range []string{"context", "kubeconfig", "cluster", "user"} {
		if c.IsSet(f) {
			return "--" + f
		}
	}
	return ""
}

// kubeFlagSet is the first kubeconfig flag that c sets, "" for none.
func kubeFlagSet(c *cli.Context) string {
	if f := clusterFlag(c); f != "" {
		return f
	}
	for _, f := range []string{"as", "as-group"} {
		if c.IsSet(f) {
			return "--" + f
		}
	}
	return ""
}

// clusterReader loads the kubeconfig of the kubeconfig flags.
func clusterReader(c *cli.Context, e *env) (*live.ClusterReader, error) {
	o := kubeOptions(c)
	t, err := live.LoadKubeconfig(o)
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	if o.Cluster != "" {
		// The snapshot records a context and a server, and a patch script
		// runs kubectl --context: it cannot carry --cluster.
		runs := "kubectl against whatever context is current then"
		if t.Context != "" {
			runs = "kubectl --context " + t.Context + ", which reaches that context's own cluster"
		}
		fmt.Fprintf(e.stderr, "Warning: --cluster %s is not recorded in the snapshot (it records the server %s); a patch script rendered from it runs %s.\n",
			escape.Controls(o.Cluster), escape.Controls(t.Server), escape.Controls(runs))
	}
	r, err := live.NewClusterReader(t)
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	return r, nil
}

// clusterExit turns a read error into exit 1, saying which flag bounds a
// read that timed out.
func clusterExit(err error, timeout time.Duration) error {
	var ce *live.ClusterError
	if errors.As(err, &ce) && ce.Timeout {
		return cli.Exit(fmt.Sprintf("%v; the read is bounded by --timeout %v", err, timeout), 1)
	}
	return cli.Exit(err.Error(), 1)
}

func clusterName(r *live.ClusterReader) string {
	if r.Context == "" {
		return r.Server
	}
	return fmt.Sprintf("context %s (%s)", r.Context, r.Server)
}

// reportClusterData tells on stderr what the cluster added, and every
// source that was not read with its reason.
func reportClusterData(e *env, nodes []snapshot.Node, queues []snapshot.LiveQueue, nss []snapshot.Namespace, notRead []snapshot.NotRead) {
	skipped := map[string]bool{}
	for _, n := range notRead {
		skipped[n.What] = true
	}
	var read []string
	for _, s := range []struct {
		what string
		n    int
		noun string
	}{{snapshot.SourceNodes, len(nodes), "node"}, {snapshot.SourceQueues, len(queues), "Queue"}, {snapshot.SourceNamespaces, len(nss), "namespace"}} {
		if !skipped[s.what] {
			read = append(read, words.Count(s.n, s.noun))
		}
	}
	if len(read) > 0 {
		fmt.Fprintf(e.stderr, "Read %s.\n", words.And(read))
	}
	for _, n := range notRead {
		fmt.Fprintf(e.stderr, "Not read: %s — %s\n", escape.Controls(n.What), escape.Controls(n.Reason))
	}
}

// serverDryRun runs the plan's steps through the API server's dry run when
// --server-dry-run is set, and adds the findings to the plan (a refusal is
// an error finding, so the plan is then not renderable). The cluster is
// the snapshot's context unless --context names another; --kubeconfig
// names the file. A snapshot without a context (a git snapshot without a
// live overlay) needs --context or --kubeconfig. Failing to reach the
// server is an error (exit 1), not a finding.
func serverDryRun(c *cli.Context, e *env, p *planner.Plan) error {
	if !c.Bool("server-dry-run") || len(p.Steps) == 0 {
		return nil
	}
	opts := kubeOptions(c)
	if opts.Context == "" {
		opts.Context = p.Snapshot.Source.Context
	}
	if opts.Context == "" && clusterFlag(c) == "" {
		return cli.Exit("--server-dry-run: the snapshot names no cluster context (a git snapshot without a live overlay); pass --context C or --kubeconfig F", 1)
	}
	t, err := live.LoadKubeconfig(opts)
	if err != nil {
		return cli.Exit("--server-dry-run: "+err.Error(), 1)
	}
	if s := p.Snapshot.Source.Server; s != "" && s != t.Server {
		fmt.Fprintf(e.stderr, "Warning: --server-dry-run: the snapshot was read from %s, the dry run goes to %s.\n", escape.Controls(s), escape.Controls(t.Server))
	}
	dyn, err := dynamic.NewForConfig(t.Config)
	if err != nil {
		return cli.Exit("--server-dry-run: "+err.Error(), 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), defaultClusterTimeout)
	defer cancel()
	fs, err := dryrun.ServerDryRun(ctx, dyn, p.Steps)
	if err != nil {
		return cli.Exit(fmt.Sprintf("--server-dry-run against %s: %v", t.Server, err), 1)
	}
	p.AddFindings(fs...)
	return nil
}
