package commit

// Render reads a large plan file and plans it again before it renders;
// the splice's first questions to git (is the repository there, does it
// hold the snapshot's commit, where is its ref now, the tenancy files at
// the commit, the folders a new tree is made of) need only the plan's
// source. A Preflight asks them while the plan file is decoded, on the
// other core, and Splice and Diff take its answers where they would ask
// git, in the order they ask today: a refusal is the same, and comes at
// the same point, as without it.

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
)

// maxPrefetchedFolders bounds the folders whose trees a Preflight reads
// ahead: the root and those of the first tenancy files.
const maxPrefetchedFolders = 8

// Preflight holds the repository's answers for one plan source, read in
// the background (StartPreflight). Its zero value and nil answer nothing.
type Preflight struct {
	src     snapshot.Source
	repoOpt string
	done    chan struct{}

	repo    gitcli.Repo
	place   gitcli.Place
	repoErr error // spliceRepo's refusal
	failed  bool  // git could not be asked: nothing here is used
	tip     string
	tipErr  error
	objects string // the repository's object directory, "" unknown
	files   map[string]prefetched
	trees   map[string]folder // by tree spec (COMMIT^{tree}, COMMIT:dir)
}

// prefetched is one tenancy file at the snapshot's commit, as
// gitFiles.File returned it, and whether its bytes hash to its blob id.
type prefetched struct {
	mode, blob string
	data       []byte
	exists     bool
	holds      bool
	err        error
}

// folder is what git has at a tree spec: whether it exists, its type,
// and its `git ls-tree -z` listing (a tree's).
type folder struct {
	exists  bool
	kind    string
	listing []byte
	err     error
}

// StartPreflight starts asking, in the background, what a splice or diff
// of a plan whose snapshot source is src asks first, in the repository
// repoOpt (--git-repo; "" the snapshot's). Only a git source is asked
// about. The caller must call Wait before it exits, whether or not it
// uses the answers (Options.Preflight).
func StartPreflight(src snapshot.Source, repoOpt string) *Preflight {
	return StartPreflightIf(src, repoOpt, nil)
}

// StartPreflightIf is StartPreflight that first asks approved (when not
// nil), on the preflight's own goroutine: when it says no, no git runs
// and the Preflight answers nothing, so that Splice and Diff ask git
// themselves, as without one.
func StartPreflightIf(src snapshot.Source, repoOpt string, approved func() bool) *Preflight {
	pf := &Preflight{src: src, repoOpt: repoOpt, done: make(chan struct{})}
	go func() {
		defer close(pf.done)
		switch {
		case approved != nil && !approved():
			pf.failed = true
		case src.Kind == "git":
			pf.ask()
		}
	}()
	return pf
}

// Wait returns once every git process of the preflight has ended.
func (pf *Preflight) Wait() {
	if pf != nil {
		<-pf.done
	}
}

// answers returns pf, finished, when it was asked about p's source in the
// repository opts names; else nil (ask git as if there were none).
func (pf *Preflight) answers(p *planner.Plan, opts Options) *Preflight {
	if pf == nil || pf.done == nil {
		return nil
	}
	<-pf.done
	if pf.failed {
		return nil
	}
	a, b := pf.src, p.Snapshot.Source
	if pf.repoOpt != opts.Repo || a.Kind != b.Kind || a.Repo != b.Repo || a.Commit != b.Commit || a.RefName != b.RefName ||
		!slices.Equal(a.Files, b.Files) || b.Kind != "git" {
		return nil
	}
	return pf
}

// ask asks git, in the order Splice and Diff do, and stops at the first
// refusal (nothing after it is asked then).
func (pf *Preflight) ask() {
	src := pf.src
	pf.repo, pf.place, pf.repoErr = locateRepo(src, pf.repoOpt, func(dir string) (gitcli.Place, error) {
		place, objects, err := gitcli.LocateObjects(dir)
		pf.objects = objects
		return place, err
	})
	if pf.repoErr != nil {
		return
	}
	batch, err := pf.repo.Batch()
	if err != nil {
		pf.failed = true
		return
	}
	defer batch.Close()
	switch _, _, _, ok, err := batch.Object(src.Commit + "^{commit}"); {
	case err != nil: // git could not answer: Splice and Diff ask it themselves
		pf.failed = true
		return
	case !ok:
		pf.repoErr = noCommit(pf.place, src.Commit)
		return
	}
	if src.RefName != "" {
		pf.tip, pf.tipErr = batchTip(pf.repo, batch, src.RefName)
	}
	if pf.objects == "" {
		pf.objects, _ = objectsDir(pf.repo)
	}
	pf.files = map[string]prefetched{}
	g := gitFiles{repo: pf.repo, commit: src.Commit, batch: batch}
	dirs := []string{""}
	for _, f := range src.Files {
		var a prefetched
		a.mode, a.blob, a.data, a.exists, a.err = g.File(f.Path)
		a.holds = a.err == nil && a.exists && a.blob == f.Blob && gitcli.HoldsBlob(a.data, a.blob)
		pf.files[f.Path] = a
		for d := path.Dir(f.Path); d != "." && d != "/" && len(dirs) < maxPrefetchedFolders; d = path.Dir(d) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	pf.trees = map[string]folder{}
	for _, d := range dirs {
		spec := treeSpec(src.Commit, d)
		var f folder
		f.exists, f.kind, f.listing, f.err = readFolder(pf.repo, batch, spec)
		pf.trees[spec] = f
	}
}

// batchTip is refTip through batch: the commit refName names now, ""
// when it names none (rev-parse --verify --quiet prints nothing then).
func batchTip(repo gitcli.Repo, batch *gitcli.Batch, refName string) (string, error) {
	id, _, _, ok, err := batch.Object(refName + "^{commit}")
	switch {
	case err != nil: // a name the batch cannot ask about
		return refTip(repo, refName)
	case !ok:
		return "", nil
	}
	return id, nil
}

// prefetchedFiles is gitFiles that takes the files a Preflight read at
// the same commit.
type prefetchedFiles struct {
	gitFiles
	pf *Preflight
}

// File implements RepoFiles.
func (r prefetchedFiles) File(path string) (mode, blob string, data []byte, exists bool, err error) {
	if a, ok := r.pf.files[path]; ok {
		return a.mode, a.blob, a.data, a.exists, a.err
	}
	return r.gitFiles.File(path)
}

// UneditedRenderable reports whether plan.json's bytes b are the plan
// their plan_id line names (the sha256 of the bytes with plan_id empty)
// and say `"renderable": true`: a plan file edited after it was made, its
// plan_id line kept, may name another repository, and a plan with errors
// is refused before any git runs (planfile.Decode and script.Approve
// refuse them). A read of the bytes that only gates a Preflight
// (StartPreflightIf).
func UneditedRenderable(b []byte) bool {
	if !bytes.Contains(b[:min(len(b), 512)], []byte("\n  \"renderable\": true,\n")) {
		return false
	}
	sum, ids, err := jsonfile.SumEmpty(b, "plan_id")
	return err == nil && len(ids) == 1 && ids[0] == sum
}

// PlanSource is the snapshot source a plan file of format 4 names, read
// from its bytes without decoding them: the line `    "source": {...}`
// of its snapshot, the file's last member. ok is false when the file is
// not laid out so; what it gives is only a guess to start a Preflight
// with, which Splice and Diff use only when the decoded plan has the same
// source. The member's line is looked for from the start: the embedded
// states' own lines are indented past two spaces, so the first such line
// is the member's, and bytes.Index finds it in a fraction of the time
// bytes.LastIndex takes to search back through the snapshot (65 ms at
// 10,000 projects).
func PlanSource(b []byte) (snapshot.Source, bool) {
	i := bytes.Index(b, []byte("\n  \"snapshot\": {\n"))
	if i < 0 {
		return snapshot.Source{}, false
	}
	rest := b[i:]
	j := bytes.Index(rest, []byte("\n    \"source\": "))
	if j < 0 {
		return snapshot.Source{}, false
	}
	line := rest[j+len("\n    \"source\": "):]
	if k := bytes.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	var src snapshot.Source
	if err := json.Unmarshal(bytes.TrimSuffix(line, []byte(",")), &src); err != nil {
		return snapshot.Source{}, false
	}
	return src, true
}

// treeSpec names the folder dir ("" or "." the root) of commit.
func treeSpec(commit, dir string) string {
	if dir == "" || dir == "." {
		return commit + "^{tree}"
	}
	return commit + ":" + dir
}
