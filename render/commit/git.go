// Package commit writes a plan into the tenancy's git repository: it reads
// the files at the snapshot's commit, has yamledit and companion compute
// the edits, verifies that the spliced tenancy holds exactly the plan's
// target, and writes one commit on a new local branch with git plumbing
// (Splice), or shows the diff without writing anything (Diff). The work
// tree, the index and HEAD are never touched, and nothing is pushed.
package commit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Result is what Splice made.
type Result struct {
	Branch string
	Commit string
	// Repo is the repository the branch is in; Replaced is the commit the
	// branch held before (--force), "" for a new branch.
	Repo     gitcli.Place
	Replaced string
	Diff     []byte // git diff <snapshot commit> <new commit>
	// Notes and Reminders are the splice plan's, also in the commit message.
	Notes     []string
	Reminders []string
}

// DefaultBranch is the branch a splice commit goes to unless named:
// krmplan/<first 12 hex digits of the plan id>.
func DefaultBranch(p *planner.Plan) string { return "krmplan/" + p.PlanID[:12] }

// gitFiles reads files of one commit with git (through batch, when not
// nil, rather than a git process per file).
type gitFiles struct {
	repo   gitcli.Repo
	commit string
	batch  *gitcli.Batch
}

// File implements RepoFiles.
func (g gitFiles) File(path string) (mode, blob string, data []byte, exists bool, err error) {
	// core.quotePath off: a name beyond ASCII is listed as it is, not quoted in octal
	out, err := g.repo.Line("-c", "core.quotePath=false", "ls-tree", "--full-tree", g.commit, "--", path)
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
	data, err = g.blob(fs[2])
	if err != nil {
		return "", "", nil, false, err
	}
	return fs[0], fs[2], data, true, nil
}

// blob is the blob id's bytes: `git cat-file blob`'s, and its error when
// the batch has no such blob.
func (g gitFiles) blob(id string) ([]byte, error) {
	if g.batch != nil {
		if _, kind, data, ok, err := g.batch.Object(id); err == nil && ok && kind == "blob" {
			return data, nil
		}
	}
	return g.repo.Run(nil, "cat-file", "blob", id)
}

// List implements RepoFiles.
func (g gitFiles) List(path string) ([]string, error) {
	// core.quotePath off: a name beyond ASCII is listed as it is, not quoted in octal
	out, err := g.repo.Line("-c", "core.quotePath=false", "ls-tree", "-r", "--full-tree", "--name-only", g.commit, "--", strings.TrimSuffix(path, "/"))
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

// quarantine is a temporary object directory: git writes the new blobs,
// trees and commit there (reading the repository's objects as an
// alternate), so a refusal or failure leaves no object in the repository.
// No index is used at all (trees are made with git mktree), so no index
// setting (core.splitIndex, index.version, core.fsmonitor,
// core.untrackedCache, ...) can leave a file in the repository.
type quarantine struct {
	dir     string
	objects string // the repository's object directory
	git     gitcli.Repo
	// hashConfig is git configuration (-c k=v) for writing the blobs.
	hashConfig []string
	// trees are folders of the parent commit read ahead (Preflight).
	trees map[string]folder
}

func newQuarantine(repo gitcli.Repo) (*quarantine, error) {
	objects, err := objectsDir(repo)
	if err != nil {
		return nil, err
	}
	return newQuarantineAt(repo, objects)
}

// objectsDir is the repository's object directory (absolute).
func objectsDir(repo gitcli.Repo) (string, error) {
	objects, err := repo.Line("rev-parse", "--path-format=absolute", "--git-path", "objects")
	if err != nil { // git before 2.31 has no --path-format
		common, err2 := repo.Line("rev-parse", "--git-common-dir")
		if err2 != nil {
			return "", err
		}
		if !filepath.IsAbs(common) {
			common = filepath.Join(repo.Dir, common)
		}
		objects = filepath.Join(common, "objects")
	}
	return objects, nil
}

// newQuarantineAt is newQuarantine for a repository whose object
// directory is known.
func newQuarantineAt(repo gitcli.Repo, objects string) (*quarantine, error) {
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
		"GIT_ALTERNATE_OBJECT_DIRECTORIES="+objects)}
	return q, nil
}

func (q *quarantine) close() { os.RemoveAll(q.dir) }

// writeTree writes the splice plan's files over the tree of parent and
// returns the new tree id: the blobs with git hash-object, then each
// folder on the way to a changed file, deepest first, as its entries at
// parent with the changed ones replaced (a deleted file left out), through
// git mktree. A file where parent has a folder (or the reverse) is refused.
// first, when not nil, is startBlob's process for the first file written.
func (q *quarantine) writeTree(parent string, sp *SplicePlan, first *gitcli.Started) (string, error) {
	trees := map[string]map[string]treeEntry{} // folder ("" the root) -> name -> new entry
	for _, f := range sp.Files {
		id := ""
		if !f.Deleted {
			var out []byte
			var err error
			if first != nil {
				out, err = first.Wait()
				first = nil
			} else {
				out, err = q.git.Run(f.New, q.hashArgs()...)
			}
			if err != nil {
				return "", err
			}
			id = strings.TrimSpace(string(out))
		}
		dir, name := path.Split(f.Path)
		dir = strings.TrimSuffix(dir, "/")
		for d := dir; ; d = parentDir(d) {
			if trees[d] == nil {
				trees[d] = map[string]treeEntry{}
			}
			if d == "" {
				break
			}
		}
		trees[dir][name] = treeEntry{mode: f.Mode, kind: "blob", id: id} // id "": the file goes
	}
	dirs := make([]string, 0, len(trees))
	for d := range trees {
		dirs = append(dirs, d)
	}
	// Deepest first, so a folder's new id is known before its parent's.
	sort.Slice(dirs, func(i, j int) bool {
		if di, dj := depth(dirs[i]), depth(dirs[j]); di != dj {
			return di > dj
		}
		return dirs[i] < dirs[j]
	})
	for _, d := range dirs {
		id, err := q.mktree(parent, d, trees[d])
		if err != nil {
			return "", err
		}
		if d == "" {
			return id, nil
		}
		trees[parentDir(d)][path.Base(d)] = treeEntry{mode: "040000", kind: "tree", id: id}
	}
	return "", errors.New("no root tree") // unreachable: the root is always among dirs
}

// hashArgs is the git command that writes a blob read from stdin.
func (q *quarantine) hashArgs() []string {
	return append(slices.Clip(q.hashConfig), "hash-object", "-w", "--no-filters", "--stdin")
}

// startBlob starts writing the blob of the first file sp writes (nil when
// it only deletes), for writeTree to wait for: so git hashes the largest
// work of a splice while the splice's check starts.
func (q *quarantine) startBlob(sp *SplicePlan) (*gitcli.Started, error) {
	for _, f := range sp.Files {
		if !f.Deleted {
			return q.git.Start(f.New, q.hashArgs()...)
		}
	}
	return nil, nil
}

// treeEntry is one entry of a git tree.
type treeEntry struct{ mode, kind, id string }

// mktree writes the folder dir of commit with the entries in changed
// replacing (or joining) its own, and returns the new tree id. A folder
// that commit lacks starts empty.
func (q *quarantine) mktree(commit, dir string, changed map[string]treeEntry) (string, error) {
	spec := treeSpec(commit, dir)
	f, ok := q.trees[spec]
	if !ok {
		f.exists, f.kind, f.listing, f.err = readFolder(q.git, nil, spec)
	}
	if f.exists && f.kind != "tree" {
		return "", fmt.Errorf("%s is a file at commit %.12s, not a folder: a file cannot be written under it", dir, commit)
	}
	if f.err != nil {
		return "", f.err
	}
	old := f.listing
	var in bytes.Buffer
	for _, rec := range bytes.Split(old, []byte{0}) {
		meta, name, ok := strings.Cut(string(rec), "\t")
		if !ok {
			continue
		}
		if e, ok := changed[name]; ok {
			if f := strings.Fields(meta); len(f) == 3 && (f[1] == "tree") != (e.kind == "tree") {
				return "", fmt.Errorf("%s is a %s at commit %.12s: it cannot be replaced by a %s", path.Join(dir, name), f[1], commit, e.kind)
			}
			continue
		}
		in.WriteString(meta + "\t" + name + "\x00")
	}
	for _, n := range slices.Sorted(maps.Keys(changed)) {
		if e := changed[n]; e.id != "" {
			fmt.Fprintf(&in, "%s %s %s\t%s\x00", e.mode, e.kind, e.id, n)
		}
	}
	out, err := q.git.Run(in.Bytes(), "mktree", "-z")
	return strings.TrimSpace(string(out)), err
}

// readFolder is what git has at the tree spec (cat-file -t, through batch
// when not nil): whether it exists, its type, and for a tree its
// `git ls-tree -z --full-tree` listing (or the error of that).
func readFolder(git gitcli.Repo, batch *gitcli.Batch, spec string) (exists bool, kind string, listing []byte, err error) {
	if batch != nil {
		var ok bool
		if _, kind, _, ok, err = batch.Object(spec); err == nil {
			exists = ok
		} else {
			batch = nil // git's own answer, as without a batch
		}
	}
	if batch == nil {
		kind, err = git.Line("cat-file", "-t", spec)
		exists = err == nil
	}
	if !exists || kind != "tree" {
		return exists, kind, nil, nil
	}
	listing, err = git.Run(nil, "ls-tree", "-z", "--full-tree", spec)
	return true, kind, listing, err
}

// parentDir is the folder holding the slash-separated folder d ("" the root).
func parentDir(d string) string {
	if i := strings.LastIndexByte(d, '/'); i >= 0 {
		return d[:i]
	}
	return ""
}

// depth is the number of folders in the path d: 0 for the root.
func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// diff is `git diff` between two tree-ish as git's defaults write it
// (gitcli.Repo.Diff: three lines of context, renames found), whatever
// the configuration.
func (q *quarantine) diff(from, to string) ([]byte, error) {
	return q.git.Diff(3, "--find-renames", from, to)
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
// commit from: opts.Repo, else the one the snapshot was taken from, and
// where it is (gitcli.Locate: a work tree, a bare repository, a folder
// inside one). It refuses, before anything else, a folder that does not
// exist, is not in a git repository or whose repository does not hold the
// snapshot's commit.
func spliceRepo(p *planner.Plan, opts Options) (gitcli.Repo, gitcli.Place, error) {
	if pf := opts.Preflight.answers(p, opts); pf != nil {
		return pf.repo, pf.place, pf.repoErr
	}
	return spliceRepoAt(p.Snapshot.Source, opts.Repo)
}

// spliceRepoAt is spliceRepo for the snapshot source src and --git-repo
// optRepo.
func spliceRepoAt(src snapshot.Source, optRepo string) (gitcli.Repo, gitcli.Place, error) {
	repo, place, err := locateRepo(src, optRepo, gitcli.Locate)
	if err != nil {
		return gitcli.Repo{}, gitcli.Place{}, err
	}
	if _, err := repo.Run(nil, "cat-file", "-e", src.Commit+"^{commit}"); err != nil {
		return gitcli.Repo{}, gitcli.Place{}, noCommit(place, src.Commit)
	}
	return repo, place, nil
}

// noCommit is the refusal of a repository without the snapshot's commit.
func noCommit(place gitcli.Place, commit string) error {
	return fmt.Errorf("the repository %s does not have the snapshot's commit %.12s (fetch it first)", place, commit)
}

// locateRepo is the first half of spliceRepoAt: the folder exists and is
// in a git repository (as locate, gitcli.Locate or its like, finds it).
func locateRepo(src snapshot.Source, optRepo string, locate func(string) (gitcli.Place, error)) (gitcli.Repo, gitcli.Place, error) {
	dir, what, hint := optRepo, "the repository "+optRepo, ""
	if dir == "" {
		dir, what, hint = src.Repo, "the snapshot's repository "+src.Repo, " (pass --git-repo DIR)"
	}
	if dir == "" {
		return gitcli.Repo{}, gitcli.Place{}, errors.New("the snapshot does not name its repository (pass --git-repo DIR)")
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gitcli.Repo{}, gitcli.Place{}, fmt.Errorf("%s does not exist%s", what, hint)
	case err != nil:
		return gitcli.Repo{}, gitcli.Place{}, fmt.Errorf("%s: %w%s", what, err, hint)
	case !fi.IsDir():
		return gitcli.Repo{}, gitcli.Place{}, fmt.Errorf("%s is not a directory%s", what, hint)
	}
	place, err := locate(dir)
	var refused *gitcli.RefusedError
	if errors.As(err, &refused) {
		return gitcli.Repo{}, gitcli.Place{}, fmt.Errorf("git refuses %s: %s", what, refused.Reason)
	} else if err != nil {
		return gitcli.Repo{}, gitcli.Place{}, fmt.Errorf("%s is not a git repository%s", what, hint)
	}
	return gitcli.Repo{Dir: dir}, place, nil
}

// Splice writes the plan as one commit on a new local branch of the
// snapshot's repository (opts.Repo when set), whose parent is the
// snapshot's commit: value edits, insertions and new objects in the
// tenancy files, and the profile's expectations (and mirrors with
// opts.WithMirrors). Objects are written in a quarantine and moved into
// the repository only once the commit exists; no index is used, the work
// tree, the index and HEAD are untouched, and nothing is pushed. The
// repository gains only the new objects and the branch (with its reflog,
// as git writes one for every branch it creates).
// It refuses, before writing anything: a missing repository or one without
// the snapshot's commit (spliceRepo), a branch name git refuses or reads
// as another branch, an existing branch unless opts.Force (checkBranch),
// what Prepare refuses, a repository without an identity. With
// commit.gpgsign set the commit is signed as git commit would sign it.
func Splice(p *planner.Plan, branch string, opts Options) (*Result, error) {
	if err := betweenRefs(p, "splice"); err != nil {
		return nil, err
	}
	src := p.Snapshot.Source
	if src.Kind != "git" {
		return nil, errors.New("splice needs a snapshot taken from git (--git-repo); this plan's snapshot is from a cluster, render it with --format patch")
	}
	repo, place, err := spliceRepo(p, opts)
	if err != nil {
		return nil, err
	}
	if branch == "" {
		branch = DefaultBranch(p)
	}
	p, moved, err := atTip(p, repo, opts.Preflight.answers(p, opts))
	if err != nil {
		return nil, err
	}
	src = p.Snapshot.Source
	nb, st, err := branchAndTree(p, repo, place, branch, opts, moved)
	if err != nil {
		return nil, err
	}
	sp, q, tree := st.plan, st.q, st.tree
	defer q.close()
	if err := st.check(nil); err != nil { // before anything asks for a signature
		return nil, err
	}
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
	// The old value (all zeros for a new branch) makes git refuse if the
	// branch appeared or moved meanwhile.
	old := nb.old
	if old == "" {
		old = strings.Repeat("0", len(commit))
	}
	if _, err := repo.Run(nil, "update-ref", "-m", "krmplan render", nb.ref, commit, old); err != nil {
		return nil, fmt.Errorf("create branch %s: %w", branch, err)
	}
	return &Result{Branch: branch, Commit: commit, Repo: place, Replaced: nb.old, Diff: diff, Notes: sp.Notes, Reminders: sp.Reminders}, nil
}

// branchAndTree is checkBranch and stageTree at the same time (git's
// answers about the branch while the splice is computed), with
// checkBranch's refusal first, as when it ran first; on a refusal the
// staged tree is dropped, its check waited for.
func branchAndTree(p *planner.Plan, repo gitcli.Repo, place gitcli.Place, branch string, opts Options, moved string) (newBranch, *staged, error) {
	type answer struct {
		nb  newBranch
		err error
	}
	checked := make(chan answer, 1)
	go func() {
		nb, err := checkBranch(repo, place, branch, p.Snapshot.Source.Commit, opts.Force)
		checked <- answer{nb, err}
	}()
	st, err := stageTree(p, repo, opts, moved, false)
	b := <-checked
	if b.err != nil {
		if err == nil {
			_ = st.check(nil)
			st.q.close()
		}
		return newBranch{}, nil, b.err
	}
	return b.nb, st, err
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
	if err := betweenRefs(p, "diff"); err != nil {
		return nil, err
	}
	src := p.Snapshot.Source
	if src.Kind != "git" {
		return nil, errors.New("a diff needs a snapshot taken from git (--git-repo); this plan's snapshot is from a cluster, render it with --format patch")
	}
	repo, _, err := spliceRepo(p, opts)
	if err != nil {
		return nil, err
	}
	p, moved, err := atTip(p, repo, opts.Preflight.answers(p, opts))
	if err != nil {
		return nil, err
	}
	st, err := stageTree(p, repo, opts, moved, true)
	if err != nil {
		return nil, err
	}
	defer st.q.close()
	diff, err := st.q.diff(p.Snapshot.Source.Commit, st.tree)
	if err := st.check(err); err != nil {
		return nil, err
	}
	return &DiffResult{Diff: diff, Notes: st.plan.Notes, Reminders: st.plan.Reminders}, nil
}

// Message is the splice commit's message: a subject (sp.Subject, from
// render --message, else Subject: "quota: +project inference, workspace
// gpu 3→2"), a body listing every change and the
// profile's values kept in step (expectations, mirrors), then the plan's
// warnings, the splice's notes and the profile's reminders, each a
// paragraph of its own, and a Plan-Id trailer. Every line from the plan
// has its control characters escaped (escape.Controls): git log shows the
// message as it is. sp may be nil.
func Message(p *planner.Plan, sp *SplicePlan) string {
	var b strings.Builder
	subject := "quota: " + Subject(p)
	if sp != nil && sp.Subject != "" {
		subject = sp.Subject
	}
	b.WriteString(escape.Controls(subject) + "\n\n")
	for _, c := range p.Changes {
		b.WriteString(escape.Controls(ChangeLine(c)) + "\n")
	}
	for _, f := range p.Findings {
		if f.Level == planner.LevelWarning {
			fmt.Fprintf(&b, "\nWarning: %s\n", escape.Controls(f.Message))
		}
	}
	if sp != nil && len(sp.KeptInStep) > 0 {
		b.WriteString("\nKept in step with the tenancy:\n")
		for _, k := range sp.KeptInStep {
			b.WriteString("- " + escape.Controls(k) + "\n")
		}
	}
	if sp != nil {
		for _, n := range sp.Notes {
			fmt.Fprintf(&b, "\nNote: %s\n", escape.Controls(n))
		}
		for _, r := range sp.Reminders {
			fmt.Fprintf(&b, "\nReminder: %s\n", escape.Controls(r))
		}
	}
	fmt.Fprintf(&b, "\nPlan-Id: %s\n", escape.Controls(p.PlanID))
	return b.String()
}

// ChangeLine is one change as the commit message lists it:
//
//   - project benchmark queue benchmark-rtx: gpu.deserved 1 -> 2
//   - project workspace queue workspace-rtx: memory.limit (omitted) -> -1
//   - project ml queue ml-rtx (new): gpu.deserved 2
func ChangeLine(c tenancy.Change) string {
	who := strings.ToLower(c.Object().Kind.String()) + " " + c.Object().Name
	if c.Queue != "" {
		who += " queue " + c.Queue
	}
	switch {
	case c.Action == tenancy.ActionDestroy:
		return fmt.Sprintf("- %s (removed)", who)
	case c.Action == tenancy.ActionCreate:
		return fmt.Sprintf("- %s (new): %s %s", who, c.Field.Field, c.After)
	case c.Before.IsNull():
		return fmt.Sprintf("- %s: %s (omitted) -> %s", who, c.Field.Field, c.After)
	}
	return fmt.Sprintf("- %s: %s %s -> %s", who, c.Field.Field, c.Before, c.After)
}

// betweenRefs refuses to splice (or diff) a plan between two git refs:
// its head is already the commit that holds the change, so there is
// nothing to write; what such a plan renders is the patch script for a
// cluster that runs the base.
func betweenRefs(p *planner.Plan, format string) error {
	if p.Head == nil {
		return nil
	}
	return fmt.Errorf("this plan is between two git refs: its head %s (commit %s) already holds the change, so there is no %s to write; render it with --format patch for a cluster that runs the base %s",
		p.Head.Source.Ref, words.ShortID(p.Head.Source.Commit), format, p.Snapshot.Source.Ref)
}
