// Package commit writes a plan into the tenancy's git repository: it reads
// the files at the snapshot's commit, has yamledit and companion compute
// the edits, verifies that the spliced tenancy holds exactly the plan's
// target, and writes one commit on a new local branch with git plumbing
// (Splice), or shows the diff without writing anything (Diff). The work
// tree, the index and HEAD are never touched, and nothing is pushed.
package commit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
)

// Result is what Splice made.
type Result struct {
	Branch string
	Commit string
	Diff   []byte // git diff <snapshot commit> <new commit>
	// Notes and Reminders are the splice plan's, also in the commit message.
	Notes     []string
	Reminders []string
}

// DefaultBranch is the branch a splice commit goes to unless named:
// krmplan/<first 12 hex digits of the plan id>.
func DefaultBranch(p *planner.Plan) string { return "krmplan/" + p.PlanID[:12] }

// gitFiles reads files of one commit with git.
type gitFiles struct {
	repo   gitcli.Repo
	commit string
}

// File implements RepoFiles.
func (g gitFiles) File(path string) (mode, blob string, data []byte, exists bool, err error) {
	out, err := g.repo.Line("ls-tree", "--full-tree", g.commit, "--", path)
	if err != nil {
		return "", "", nil, false, err
	}
	meta, name, ok := strings.Cut(out, "\t")
	fs := strings.Fields(meta)
	if !ok || name != path || len(fs) != 3 {
		return "", "", nil, false, nil
	}
	if fs[1] != "blob" {
		return "", "", nil, false, fmt.Errorf("%s: not a file at commit %.12s", path, g.commit)
	}
	data, err = g.repo.Run(nil, "cat-file", "blob", fs[2])
	if err != nil {
		return "", "", nil, false, err
	}
	return fs[0], fs[2], data, true, nil
}

// List implements RepoFiles.
func (g gitFiles) List(path string) ([]string, error) {
	out, err := g.repo.Line("ls-tree", "-r", "--full-tree", "--name-only", g.commit, "--", strings.TrimSuffix(path, "/"))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, name := range strings.Split(out, "\n") {
		if name == path || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
			if name != "" {
				files = append(files, name)
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// quarantine is a temporary object directory and index: git writes the new
// blobs, tree and commit there (reading the repository's objects as an
// alternate), so a refusal or failure leaves no object in the repository.
type quarantine struct {
	dir     string
	objects string // the repository's object directory
	git     gitcli.Repo
}

func newQuarantine(repo gitcli.Repo) (*quarantine, error) {
	objects, err := repo.Line("rev-parse", "--path-format=absolute", "--git-path", "objects")
	if err != nil { // git before 2.31 has no --path-format
		common, err2 := repo.Line("rev-parse", "--git-common-dir")
		if err2 != nil {
			return nil, err
		}
		if !filepath.IsAbs(common) {
			common = filepath.Join(repo.Dir, common)
		}
		objects = filepath.Join(common, "objects")
	}
	dir, err := os.MkdirTemp("", "krmplan-splice-*")
	if err != nil {
		return nil, err
	}
	q := &quarantine{dir: dir, objects: objects}
	if err := os.Mkdir(filepath.Join(dir, "objects"), 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	q.git = gitcli.Repo{Dir: repo.Dir, Env: append(append([]string(nil), repo.Env...),
		"GIT_OBJECT_DIRECTORY="+filepath.Join(dir, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES="+objects,
		"GIT_INDEX_FILE="+filepath.Join(dir, "index"))}
	return q, nil
}

func (q *quarantine) close() { os.RemoveAll(q.dir) }

// writeTree writes the splice plan's files over the tree of parent and
// returns the new tree id.
func (q *quarantine) writeTree(parent string, sp *SplicePlan) (string, error) {
	if _, err := q.git.Run(nil, "read-tree", parent); err != nil {
		return "", err
	}
	for _, f := range sp.Files {
		out, err := q.git.Run(f.New, "hash-object", "-w", "--no-filters", "--stdin")
		if err != nil {
			return "", err
		}
		info := fmt.Sprintf("%s,%s,%s", f.Mode, strings.TrimSpace(string(out)), f.Path)
		if _, err := q.git.Run(nil, "update-index", "--add", "--cacheinfo", info); err != nil {
			return "", err
		}
	}
	return q.git.Line("write-tree")
}

// diff is `git diff` between two tree-ish, with fixed prefixes and no
// external diff or text conversion, whatever the user's configuration.
func (q *quarantine) diff(from, to string) ([]byte, error) {
	return q.git.Run(nil, "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--no-relative",
		"--src-prefix=a/", "--dst-prefix=b/", from, to)
}

// migrate copies the quarantined objects into the repository's object
// directory, each through a temporary file and a rename.
func (q *quarantine) migrate() error {
	root := filepath.Join(q.dir, "objects")
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(q.objects, rel)
		if _, err := os.Stat(dst); err == nil {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		tmp, err := os.CreateTemp(filepath.Dir(dst), ".krmplan-obj-*")
		if err != nil {
			return err
		}
		if _, err := io.Copy(tmp, in); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
		if err := tmp.Chmod(0o444); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
		if err := tmp.Close(); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), dst); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		return nil
	})
}

// checkIdentity refuses to commit without an author and committer that
// the repository's git configuration (or GIT_AUTHOR_*/GIT_COMMITTER_*)
// sets: git's guess from the host name is not used (user.useConfigOnly).
func checkIdentity(repo gitcli.Repo) error {
	for _, who := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := repo.Run(nil, "-c", "user.useConfigOnly=true", "var", who); err != nil {
			var missing []string
			for _, k := range []string{"user.name", "user.email"} {
				if v, _ := repo.Line("config", "--get", k); strings.TrimSpace(v) == "" {
					missing = append(missing, k)
				}
			}
			what := "the author or committer identity is incomplete"
			if len(missing) > 0 {
				if len(missing) == 1 {
					what = missing[0] + " is not set"
				} else {
					what = strings.Join(missing, " and ") + " are not set"
				}
			}
			return fmt.Errorf("no git identity for the commit in %s: %s; set them with git -C %s config user.name \"Your Name\" and git -C %s config user.email you@example.com (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)",
				repo.Dir, what, repo.Dir, repo.Dir)
		}
	}
	return nil
}

// signArgs is ["-S"] when the repository's git config sets
// commit.gpgsign: git commit signs then, and git commit-tree (plumbing)
// does not read that setting, so krmplan passes -S itself. git picks the
// key (user.signingkey) and the format (gpg.format) as it always does.
func signArgs(repo gitcli.Repo) ([]string, error) {
	v, err := repo.Line("config", "--type=bool", "--get", "commit.gpgsign")
	var ge *gitcli.Error
	if err != nil && errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
		return nil, nil // unset
	}
	if err != nil {
		return nil, err
	}
	if v == "true" {
		return []string{"-S"}, nil
	}
	return nil, nil
}

// spliceRepo is the repository a splice or diff of p reads the snapshot's
// commit from: opts.Repo, else the one the snapshot was taken from. It
// refuses, before anything else, a repository that does not exist, is not
// a git repository or does not hold the snapshot's commit.
func spliceRepo(p *planner.Plan, opts Options) (gitcli.Repo, error) {
	src := p.Snapshot.Source
	dir, what, hint := opts.Repo, "the repository "+opts.Repo, ""
	if dir == "" {
		dir, what, hint = src.Repo, "the snapshot's repository "+src.Repo, " (pass --git-repo DIR)"
	}
	if dir == "" {
		return gitcli.Repo{}, errors.New("the snapshot does not name its repository (pass --git-repo DIR)")
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gitcli.Repo{}, fmt.Errorf("%s does not exist%s", what, hint)
	case err != nil:
		return gitcli.Repo{}, fmt.Errorf("%s: %w%s", what, err, hint)
	case !fi.IsDir():
		return gitcli.Repo{}, fmt.Errorf("%s is not a directory%s", what, hint)
	}
	repo := gitcli.Repo{Dir: dir}
	if _, err := repo.Run(nil, "rev-parse", "--git-dir"); err != nil {
		return gitcli.Repo{}, fmt.Errorf("%s is not a git repository%s", what, hint)
	}
	if _, err := repo.Run(nil, "cat-file", "-e", src.Commit+"^{commit}"); err != nil {
		return gitcli.Repo{}, fmt.Errorf("%s does not have the snapshot's commit %.12s (fetch it first)", what, src.Commit)
	}
	return repo, nil
}

// Splice writes the plan as one commit on a new local branch of the
// snapshot's repository (opts.Repo when set), whose parent is the
// snapshot's commit: value edits, insertions and new objects in the
// tenancy files, and the profile's expectations (and mirrors with
// opts.WithMirrors). Objects are written in a quarantine and moved into
// the repository only once the commit exists;
// the work tree, the index and HEAD are untouched, and nothing is pushed.
// It refuses, before writing anything: a missing repository or one without
// the snapshot's commit (spliceRepo), an existing branch, what
// Prepare refuses, a repository without an identity. With
// commit.gpgsign set the commit is signed as git commit would sign it.
func Splice(p *planner.Plan, branch string, opts Options) (*Result, error) {
	src := p.Snapshot.Source
	if src.Kind != "git" {
		return nil, errors.New("splice needs a snapshot taken from git (--git-repo); this plan's snapshot is from a cluster, render it with --format patch")
	}
	repo, err := spliceRepo(p, opts)
	if err != nil {
		return nil, err
	}
	if branch == "" {
		branch = DefaultBranch(p)
	}
	if _, err := repo.Run(nil, "check-ref-format", "--branch", branch); err != nil {
		return nil, fmt.Errorf("%q is not a valid branch name", branch)
	}
	ref := "refs/heads/" + branch
	if _, err := repo.Run(nil, "show-ref", "--verify", "--quiet", ref); err == nil {
		return nil, fmt.Errorf("branch %s already exists in %s; pass --branch NAME or delete it", branch, repo.Dir)
	}
	sp, q, tree, err := stageTree(p, repo, opts)
	if err != nil {
		return nil, err
	}
	defer q.close()
	// The commit's diff is the tree's: git works it out (tens of
	// milliseconds for a big file) while the commit is made.
	var diff []byte
	var diffErr error
	diffed := make(chan struct{})
	go func() {
		defer close(diffed)
		diff, diffErr = q.diff(src.Commit, tree)
	}()
	defer func() { <-diffed }()
	if err := checkIdentity(repo); err != nil {
		return nil, err
	}
	sign, err := signArgs(repo)
	if err != nil {
		return nil, err
	}
	args := append([]string{"-c", "user.useConfigOnly=true", "commit-tree", tree, "-p", src.Commit}, sign...)
	out, err := q.git.Run([]byte(Message(p, sp)), append(args, "-F", "-")...)
	if err != nil {
		if len(sign) > 0 {
			return nil, fmt.Errorf("commit.gpgsign is set in %s and git could not sign the commit (nothing was written): %w", repo.Dir, err)
		}
		return nil, err
	}
	commit := strings.TrimSpace(string(out))
	<-diffed
	if diffErr != nil {
		return nil, diffErr
	}
	if err := q.migrate(); err != nil {
		return nil, fmt.Errorf("move the new objects into %s: %w", q.objects, err)
	}
	// The all-zero old value makes git refuse if the branch appeared meanwhile.
	if _, err := repo.Run(nil, "update-ref", "-m", "krmplan render", ref, commit, strings.Repeat("0", len(commit))); err != nil {
		return nil, fmt.Errorf("create branch %s: %w", branch, err)
	}
	return &Result{Branch: branch, Commit: commit, Diff: diff, Notes: sp.Notes, Reminders: sp.Reminders}, nil
}

// DiffResult is what Diff made.
type DiffResult struct {
	Diff      []byte // the unified diff (git diff) of every file the commit would change
	Notes     []string
	Reminders []string
}

// Diff is Splice without the commit: the unified diff between
// the snapshot's commit and the tree the commit would have, for review or
// for `git apply` where local branches are not wanted. Nothing is written
// to the repository (no object, no ref).
func Diff(p *planner.Plan, opts Options) (*DiffResult, error) {
	src := p.Snapshot.Source
	if src.Kind != "git" {
		return nil, errors.New("a diff needs a snapshot taken from git (--git-repo); this plan's snapshot is from a cluster, render it with --format patch")
	}
	repo, err := spliceRepo(p, opts)
	if err != nil {
		return nil, err
	}
	sp, q, tree, err := stageTree(p, repo, opts)
	if err != nil {
		return nil, err
	}
	defer q.close()
	diff, err := q.diff(src.Commit, tree)
	if err != nil {
		return nil, err
	}
	return &DiffResult{Diff: diff, Notes: sp.Notes, Reminders: sp.Reminders}, nil
}

// stageTree splices the files at the snapshot's commit and writes them and
// their tree into a quarantine object store: nothing reaches the
// repository until the caller migrates it. The caller closes q.
func stageTree(p *planner.Plan, repo gitcli.Repo, opts Options) (*SplicePlan, *quarantine, string, error) {
	commit := p.Snapshot.Source.Commit
	sp, err := Prepare(p, gitFiles{repo: repo, commit: commit}, opts)
	if err != nil {
		return nil, nil, "", err
	}
	q, err := newQuarantine(repo)
	if err != nil {
		return nil, nil, "", err
	}
	tree, err := q.writeTree(commit, sp)
	if err != nil {
		q.close()
		return nil, nil, "", err
	}
	return sp, q, tree, nil
}

// Message is the splice commit's message: a subject summarising the
// change ("quota: move 1 card from workspace to benchmark on rtx-pro-6000",
// else "quota: N quota changes"), a body listing every change and the
// profile's values kept in step (expectations, mirrors), then the plan's
// warnings, the splice's notes and the profile's reminders, each a
// paragraph of its own, and a Plan-Id trailer. sp may be nil.
func Message(p *planner.Plan, sp *SplicePlan) string {
	var b strings.Builder
	b.WriteString("quota: " + subject(p) + "\n\n")
	for _, c := range p.Changes {
		b.WriteString(ChangeLine(c) + "\n")
	}
	for _, f := range p.Findings {
		if f.Level == planner.LevelWarning {
			fmt.Fprintf(&b, "\nWarning: %s\n", f.Message)
		}
	}
	if sp != nil && len(sp.KeptInStep) > 0 {
		b.WriteString("\nKept in step with the tenancy:\n")
		for _, k := range sp.KeptInStep {
			b.WriteString("- " + k + "\n")
		}
	}
	if sp != nil {
		for _, n := range sp.Notes {
			fmt.Fprintf(&b, "\nNote: %s\n", n)
		}
		for _, r := range sp.Reminders {
			fmt.Fprintf(&b, "\nReminder: %s\n", r)
		}
	}
	fmt.Fprintf(&b, "\nPlan-Id: %s\n", p.PlanID)
	return b.String()
}

// ChangeLine is one change as the commit message lists it:
//
//   - project benchmark queue benchmark-rtx: gpu.deserved 1 -> 2
//   - project workspace queue workspace-rtx: memory.limit (omitted) -> -1
//   - project ml queue ml-rtx (new): gpu.deserved 2
func ChangeLine(c planner.Change) string {
	who := strings.ToLower(c.Kind) + " " + c.Object
	if c.Queue != "" {
		who += " queue " + c.Queue
	}
	switch {
	case c.Action == planner.ActionCreate:
		return fmt.Sprintf("- %s (new): %s %s", who, c.Field, c.After)
	case string(c.Before) == "null":
		return fmt.Sprintf("- %s: %s (omitted) -> %s", who, c.Field, c.After)
	}
	return fmt.Sprintf("- %s: %s %s -> %s", who, c.Field, c.Before, c.After)
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
