package render

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
)

// SpliceResult is what RenderSplice made.
type SpliceResult struct {
	Branch string
	Commit string
	Diff   []byte // git diff <snapshot commit> <new commit>
}

// DefaultBranch is the branch a splice commit goes to unless named:
// krmplan/<first 12 hex digits of the plan id>.
func DefaultBranch(p *planner.Plan) string { return "krmplan/" + p.PlanID[:12] }

// RenderSplice writes the plan's value edits as one commit on a new local
// branch of the snapshot's repository, whose parent is the snapshot's
// commit. It uses git plumbing with a temporary index: the work tree, the
// index and HEAD are untouched, and nothing is pushed. It refuses an
// existing branch, a file whose bytes no longer hold the values read, a
// repository without an author identity, and what Edits refuses.
func RenderSplice(p *planner.Plan, branch string) (*SpliceResult, error) {
	src := p.Snapshot.Source
	if src.Kind != "git" {
		return nil, errors.New("splice needs a snapshot taken from git (--git-repo); this plan's snapshot is from a cluster, render it with --format patch")
	}
	if len(p.Changes) == 0 {
		return nil, errors.New("the plan has no changes: nothing to commit")
	}
	if branch == "" {
		branch = DefaultBranch(p)
	}
	repo := gitcli.Repo{Dir: src.Repo}
	if _, err := repo.Run(nil, "check-ref-format", "--branch", branch); err != nil {
		return nil, fmt.Errorf("%q is not a valid branch name", branch)
	}
	ref := "refs/heads/" + branch
	if _, err := repo.Run(nil, "show-ref", "--verify", "--quiet", ref); err == nil {
		return nil, fmt.Errorf("branch %s already exists in %s; pass --branch NAME or delete it", branch, src.Repo)
	}
	edits, err := Edits(p)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "krmplan-index-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	idx := gitcli.Repo{Dir: src.Repo, Env: []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}}
	if _, err := idx.Run(nil, "read-tree", src.Commit); err != nil {
		return nil, err
	}
	files := make([]string, 0, len(edits))
	for f := range edits {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		entry, err := repo.Line("ls-tree", src.Commit, "--", f)
		fs := strings.Fields(entry)
		if err != nil || len(fs) < 3 {
			return nil, fmt.Errorf("%s: not in commit %.12s", f, src.Commit)
		}
		old, err := repo.Run(nil, "cat-file", "blob", fs[2])
		if err != nil {
			return nil, err
		}
		spliced, err := Splice(old, edits[f])
		if err != nil {
			return nil, err
		}
		blob, err := repo.Run(spliced, "hash-object", "-w", "--no-filters", "--stdin")
		if err != nil {
			return nil, err
		}
		info := fmt.Sprintf("%s,%s,%s", fs[0], strings.TrimSpace(string(blob)), f)
		if _, err := idx.Run(nil, "update-index", "--cacheinfo", info); err != nil {
			return nil, err
		}
	}
	tree, err := idx.Line("write-tree")
	if err != nil {
		return nil, err
	}
	out, err := repo.Run([]byte(CommitMessage(p)), "commit-tree", tree, "-p", src.Commit, "-F", "-")
	if err != nil {
		var ge *gitcli.Error
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "identity") {
			return nil, fmt.Errorf("git has no author identity in %s: set user.name and user.email (git config user.email you@example.com)", src.Repo)
		}
		return nil, err
	}
	commit := strings.TrimSpace(string(out))
	// The all-zero old value makes git refuse if the branch appeared meanwhile.
	if _, err := repo.Run(nil, "update-ref", "-m", "krmplan render", ref, commit, strings.Repeat("0", len(commit))); err != nil {
		return nil, fmt.Errorf("create branch %s: %w", branch, err)
	}
	diff, err := repo.Run(nil, "diff", src.Commit, commit)
	if err != nil {
		return nil, err
	}
	return &SpliceResult{Branch: branch, Commit: commit, Diff: diff}, nil
}

// CommitMessage is the splice commit's message: a subject summarising the
// change, a body listing every change, and a Plan-Id trailer.
func CommitMessage(p *planner.Plan) string {
	var b strings.Builder
	b.WriteString("quota: " + subject(p) + "\n\n")
	for _, c := range p.Changes {
		who := strings.ToLower(c.Kind) + " " + c.Object
		if c.Queue != "" {
			who += " queue " + c.Queue
		}
		fmt.Fprintf(&b, "- %s: %s %s -> %s\n", who, c.Field, c.Before, c.After)
	}
	for _, f := range p.Findings {
		if f.Level == planner.LevelWarning {
			fmt.Fprintf(&b, "\nWarning: %s\n", f.Message)
		}
	}
	fmt.Fprintf(&b, "\nPlan-Id: %s\n", p.PlanID)
	return b.String()
}

// subject says "move 1 card from A to B on POOL" when the plan moves gpu
// guarantee between exactly two queues of one pool, else "N quota changes".
func subject(p *planner.Plan) string {
	cs := p.Changes
	if len(cs) == 2 && cs[0].Field == "gpu.deserved" && cs[1].Field == "gpu.deserved" && cs[0].Pool == cs[1].Pool &&
		cs[0].Action == planner.ActionUpdate && cs[1].Action == planner.ActionUpdate {
		var v [2][2]quota.Value // before, after of each change
		ok := true
		for i, c := range cs {
			var err1, err2 error
			v[i][0], err1 = quota.Parse(string(c.Before))
			v[i][1], err2 = quota.Parse(string(c.After))
			ok = ok && err1 == nil && err2 == nil && !v[i][0].IsUnlimited() && !v[i][1].IsUnlimited()
		}
		// One queue gives up exactly what the other gains. (Deltas are
		// compared as before/after pairs: a delta of -1 is not "unlimited".)
		if ok {
			from, to := 0, 1
			if v[0][1].Cmp(v[0][0]) > 0 {
				from, to = 1, 0
			}
			given := v[from][0].Sub(v[from][1])
			if v[from][1].Cmp(v[from][0]) < 0 && v[to][1].Sub(v[to][0]).Equal(given) {
				return fmt.Sprintf("move %s from %s to %s on %s", quota.Amount(quota.GPU, given), cs[from].Object, cs[to].Object, cs[from].Pool)
			}
		}
	}
	if len(cs) == 1 {
		return "1 quota change"
	}
	return fmt.Sprintf("%d quota changes", len(cs))
}
