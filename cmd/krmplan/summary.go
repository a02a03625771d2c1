package main

// The one-line summaries that every command writing a file prints on
// stderr ("Wrote state.json: …"), so that a success is never silent and
// says what the file holds.

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/script"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/urfave/cli/v2"
)

// wrote prints "Wrote PATH: WHAT." on stderr for an output file; nothing
// for stdout ("" or "-"), where the data itself shows.
func wrote(e *env, path, what string) {
	if path == "" || path == "-" {
		return
	}
	fmt.Fprintf(e.stderr, "Wrote %s: %s.\n", escape.Controls(path), escape.Controls(what))
}

// snapshotSummary says where a snapshot comes from and what it holds:
// "git repo at main (0c186177cfdc), 1 file, 1 node pool, 1 department,
// 3 projects, cluster data from cluster.json", or for a live snapshot
// "context prod (https://…), 1 node pool, …, 2 nodes, 4 Queues, 5
// namespaces" (a source not read says so).
func snapshotSummary(c *cli.Context, st *snapshot.State) string {
	src := st.Source
	objects := []string{words.Count(len(st.NodePools), "node pool"), words.Count(len(st.Departments), "department"),
		words.Count(len(st.Projects), "project")}
	if src.Kind == "git" {
		head := []string{fmt.Sprintf("git %s at %s (%s)", c.String("git-repo"), src.Ref, words.ShortID(src.Commit)),
			words.Count(len(src.Files), "file")}
		return strings.Join(append(append(head, objects...), clusterDataSource(c, st)), ", ")
	}
	return strings.Join(append(append([]string{clusterOf(src)}, objects...), clusterCounts(st)...), ", ")
}

// clusterDataSource names where a git snapshot's cluster data comes from.
func clusterDataSource(c *cli.Context, st *snapshot.State) string {
	switch {
	case c.IsSet("cluster-data"):
		return "cluster data from " + c.String("cluster-data")
	case clusterFlag(c) != "":
		return "cluster data from " + clusterOf(st.Source)
	}
	return "no cluster data"
}

// clusterOf is "context prod (https://…)", or the server alone.
func clusterOf(src snapshot.Source) string {
	if src.Context == "" {
		return src.Server
	}
	return fmt.Sprintf("context %s (%s)", src.Context, src.Server)
}

// clusterCounts counts the nodes, Queues and namespaces a live snapshot
// read, or says which were not read.
func clusterCounts(st *snapshot.State) []string {
	var out []string
	for _, s := range []struct {
		what, noun string
		n          int
	}{{snapshot.SourceNodes, "node", len(st.Nodes)}, {snapshot.SourceQueues, "Queue", len(st.LiveQueues)},
		{snapshot.SourceNamespaces, "namespace", len(st.Namespaces)}} {
		if st.Read(s.what) {
			out = append(out, words.Count(s.n, s.noun))
		} else {
			out = append(out, s.noun+"s not read")
		}
	}
	return out
}

// planSummary is "plan 4ffa1175d2c7, 1 to add, 4 to change, 0 to
// destroy", "…, no changes", and ", not renderable (1 error)" for a plan
// with errors.
func planSummary(p *planner.Plan) string {
	s := "plan " + words.ShortID(p.PlanID)
	if len(p.Changes) == 0 {
		s += ", no changes"
	} else {
		s += fmt.Sprintf(", %d to add, %d to change, %d to destroy", p.Summary.Add, p.Summary.Change, p.Summary.Destroy)
	}
	if !p.Renderable() {
		s += ", not renderable (" + words.Count(p.Summary.Errors, "error") + ")"
	}
	return s
}

// patchSummary is "2 kubectl steps for plan 4ffa1175d2c7 (context prod)".
func patchSummary(p *planner.Plan, cl script.Cluster) string {
	return fmt.Sprintf("%s for plan %s (context %s)", words.Count(len(p.Steps), "kubectl step"), words.ShortID(p.PlanID), cl.Context)
}

// rollbackSummary is "its rollback, 2 steps, last first (sh
// apply.rollback.sh [N] undoes steps N down to 1)".
func rollbackSummary(p *planner.Plan, path string) string {
	return fmt.Sprintf("its rollback, %s, last first (sh %s [N] undoes steps N down to 1)", words.Count(len(p.Steps), "step"), path)
}

// diffSummary is "the splice of plan 4ffa1175d2c7, 2 files (apply it with
// git apply)".
func diffSummary(p *planner.Plan, diff []byte) string {
	files := 0
	for _, l := range bytes.Split(diff, []byte("\n")) {
		// A diff's content lines start with +, - or a space: only a
		// file's header starts with "diff --git".
		if bytes.HasPrefix(l, []byte("diff --git ")) {
			files++
		}
	}
	return fmt.Sprintf("the splice of plan %s, %s (apply it with git apply)", words.ShortID(p.PlanID), words.Count(files, "file"))
}
