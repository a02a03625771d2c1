package commit

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/render/companion"
	"github.com/krmplan/krmplan/render/yamledit"
)

// RepoFiles reads files of the snapshot's commit; Splice and Diff give one
// that runs git, tests give one over a map.
type RepoFiles interface {
	// File returns the git mode ("100644"), blob id and bytes of path at
	// the commit; exists is false when the commit has no such file.
	File(path string) (mode, blob string, data []byte, exists bool, err error)
	// List returns the *.yaml and *.yml files at path (a file or a folder)
	// at the commit, sorted.
	List(path string) ([]string, error)
}

// Options are the choices of `render --format splice|diff`.
type Options struct {
	// WithMirrors rewrites the profile's namespace ResourceQuota mirrors
	// (resource_quota_mirror); without it they are listed in the notes.
	WithMirrors bool
	// Repo is the git repository Splice and Diff read the snapshot's
	// commit from (and Splice writes the branch into);
	// "" is the repository the snapshot was taken from (Source.Repo).
	Repo string
	// Force lets Splice move an existing branch (not one checked out in a
	// work tree) to the new commit.
	Force bool
	// Subject, when not "", is the commit's subject line instead of the
	// one Subject writes (render --message): one line.
	Subject string
	// Preflight, when not nil, holds the repository's answers read ahead
	// (StartPreflight); they are used only for a plan of the same source.
	Preflight *Preflight
}

// FileChange is the new content of one file of a splice.
type FileChange struct {
	Path     string
	Mode     string // git file mode; "100644" for a new file
	Old, New []byte
	Created  bool // the file does not exist at the snapshot's commit
	// Deleted marks a tenancy file whose last document a removal takes
	// out: the commit drops it (New is empty).
	Deleted bool
}

// SplicePlan is everything a splice writes and says, before anything is
// written: the files, the notes for the reviewer and the reminders.
type SplicePlan struct {
	Files []FileChange // by path
	// Notes are "file:line: …" remarks: a comment beside a changed value
	// whose wording did not change, a mirror left alone, the profile's
	// cpu/memory note.
	Notes []string
	// Reminders are the profile's files that a person updates by hand.
	Reminders []string
	// KeptInStep lists the profile's values rewritten with the tenancy:
	// "ops/expected-quotas.sh: WORKSPACE_GPU 3 -> 2".
	KeptInStep []string
	// Subject is Options.Subject: the commit's subject when the user gave
	// one, "" for Subject's.
	Subject string
}

// Prepare computes the files a splice of p writes, reading them at
// the snapshot's commit through r. It changes only the bytes of changed
// values (and the padding after them), inserts missing fields, new queues
// and new objects in the style of their neighbours, adds a new file to the
// resources of its folder's kustomization.yaml, rewrites the profile's
// expectations (and mirrors with opts.WithMirrors), and checks that the
// new tenancy files parse to exactly the planned objects. Refusals are
// *yamledit.Error naming the file and line: a value reached through a YAML
// alias, a file that changed since the snapshot (stale bytes or blob), an
// expectations file or mirror that already disagreed.
func Prepare(p *planner.Plan, r RepoFiles, opts Options) (*SplicePlan, error) {
	sp, err := prepare(p, r, opts)
	if err != nil {
		return nil, err
	}
	if err := sp.verify(); err != nil {
		return nil, err
	}
	return sp.plan, nil
}

// prepare is Prepare but for the check that the spliced tenancy holds
// exactly the plan's target (verify): the caller runs it, and uses nothing
// of the plan before it passes.
func prepare(p *planner.Plan, r RepoFiles, opts Options) (*splice, error) {
	src := p.Snapshot.Source
	if src.Kind != "git" {
		return nil, errors.New("splice needs a snapshot taken from git (--git-repo); this plan's snapshot is from a cluster, render it with --format patch")
	}
	if len(p.Changes) == 0 {
		return nil, errors.New("the plan has no changes: nothing to render")
	}
	sp := &splice{p: p, r: r, files: map[string]*fileState{}, srcs: map[string][]byte{}, plan: &SplicePlan{Subject: opts.Subject}}
	if err := sp.readTenancy(); err != nil {
		return nil, err
	}
	if err := sp.edit(); err != nil {
		return nil, err
	}
	if err := sp.kustomize(); err != nil {
		return nil, err
	}
	if prof := p.Snapshot.Profile; prof != nil {
		if err := sp.companions(prof, opts); err != nil {
			return nil, err
		}
	}
	comments, err := sp.write()
	if err != nil {
		return nil, err
	}
	if len(sp.staleBlob) > 0 {
		return nil, errors.New(strings.Join(sp.staleBlob, "\n"))
	}
	sp.plan.Notes = append(comments, sp.plan.Notes...)
	if prof := p.Snapshot.Profile; prof != nil {
		sp.profileNotes(prof)
	}
	return sp, nil
}

// fileState is a file a splice reads or writes: its git mode and bytes at
// the snapshot's commit, or a file it creates.
type fileState struct {
	mode    string
	old     []byte
	created bool
}

// splice is the work of Prepare, step by step.
type splice struct {
	p         *planner.Plan
	r         RepoFiles
	files     map[string]*fileState // every file read or created, by path
	paths     []string              // the tenancy files, in the snapshot's order
	srcs      map[string][]byte     // their bytes at the commit
	staleBlob []string              // refusals of files that changed since the snapshot
	replaced  bool                  // a file's bytes are not its blob's (a git replace ref)
	ts        *yamledit.Set
	objs      specs // the changed objects' planned specs
	edits     map[string][]yamledit.Edit
	spans     map[string][]yamledit.Span
	tenancy   map[string][]byte // the tenancy files as spliced
	deleted   []string          // the tenancy files the removals leave empty, and those moves renames
	moves     map[string]string // the files renamed with their project: old path → new (renames.moves)
	plan      *SplicePlan
}

// readTenancy reads the snapshot's tenancy files at its commit and notes
// those whose blob is not the one the snapshot read.
func (sp *splice) readTenancy() error {
	src := sp.p.Snapshot.Source
	for _, sf := range src.Files {
		mode, blob, data, ok, err := sp.r.File(sf.Path)
		if err != nil {
			return err
		}
		if !ok {
			return &yamledit.Error{File: sf.Path, Msg: fmt.Sprintf("not in commit %.12s: take a new snapshot and plan again", src.Commit)}
		}
		if blob != sf.Blob {
			sp.staleBlob = append(sp.staleBlob, fmt.Sprintf("%s: the file at commit %.12s is blob %.12s, the snapshot read blob %.12s: the file changed since the snapshot; take a new snapshot and plan again", sf.Path, src.Commit, blob, sf.Blob))
		} else if !holdsBlob(sp.r, sf.Path, data, blob) {
			sp.replaced = true
		}
		sp.files[sf.Path] = &fileState{mode: mode, old: data}
		sp.paths = append(sp.paths, sf.Path)
		sp.srcs[sf.Path] = data
	}
	return nil
}

// holdsBlob is gitcli.HoldsBlob(data, blob), from r when r already knows
// it for path (a Preflight hashed the file while the plan was decoded).
func holdsBlob(r RepoFiles, path string, data []byte, blob string) bool {
	if pr, ok := r.(prefetchedFiles); ok {
		if a, ok := pr.pf.files[path]; ok && a.blob == blob && a.err == nil && a.exists {
			return a.holds
		}
	}
	return gitcli.HoldsBlob(data, blob)
}

// read returns a file's bytes at the snapshot's commit (exists is false
// when it has none), reading it once.
func (sp *splice) read(path string) ([]byte, bool, error) {
	if fs, ok := sp.files[path]; ok {
		return fs.old, !fs.created, nil
	}
	mode, _, data, ok, err := sp.r.File(path)
	if err != nil || !ok {
		return nil, ok, err
	}
	sp.files[path] = &fileState{mode: mode, old: data}
	return data, true, nil
}

// edit computes the tenancy's edits and the specs of the changed objects.
func (sp *splice) edit() error {
	p := sp.p
	// Files the snapshot read byte for byte are parsed only where edits
	// need them; a stale one is parsed whole, to refuse as before.
	ts, err := newSet(p.Snapshot, sp.paths, sp.srcs, len(sp.staleBlob) == 0 && !sp.replaced)
	if err != nil {
		return err
	}
	sp.ts = ts
	sp.objs = targetSpecs(p, changedObjects(p))
	rn, err := renameEdits(p, ts)
	if err != nil {
		return err
	}
	sp.plan.Notes = append(sp.plan.Notes, rn.notes...)
	if sp.edits, err = tenancyEdits(p, ts, rn); err != nil {
		return err
	}
	for f, es := range rn.edits {
		sp.edits[f] = append(sp.edits[f], es...)
	}
	removed, err := removalEdits(p, ts, rn)
	if err != nil {
		return err
	}
	sp.deleted = removed.Deleted
	if err := sp.moveFiles(rn); err != nil {
		return err
	}
	for f, es := range removed.Edits {
		sp.edits[f] = append(sp.edits[f], es...)
	}
	for _, f := range sp.deleted {
		if _, ok := sp.edits[f]; !ok {
			sp.edits[f] = nil // written as deleted, even without an edit
		}
	}
	for _, path := range ts.Created() {
		if _, exists, err := sp.read(path); err != nil {
			return err
		} else if exists {
			// The commit the branch starts from: the snapshot's, or the
			// tip of a ref that moved since (where a colleague may have
			// added the file).
			return &yamledit.Error{File: path, Msg: fmt.Sprintf("the placement file for new objects exists at commit %s but is not one of the snapshot's tenancy files; snapshot it too (--tenancy %s)",
				words.ShortID(sp.p.Snapshot.Source.Commit), path)}
		}
		sp.files[path] = &fileState{mode: "100644", created: true}
	}
	return nil
}

// companions adds the edits of the profile's expectations and mirrors, and
// the notes of the mirrors left alone.
func (sp *splice) companions(prof *profile.Profile, opts Options) error {
	before, after := companion.Of(&sp.p.Snapshot.Tenancy), companion.Of(sp.p.Target)
	ex, err := companion.Expectations(prof, before, after, sp.read)
	if err != nil {
		return err
	}
	mi, notes, err := companion.Mirrors(prof, before, after, sp.paths, sp.r.List, sp.read, opts.WithMirrors)
	if err != nil {
		return err
	}
	for _, m := range []map[string][]yamledit.Edit{ex, mi} {
		files := make([]string, 0, len(m))
		for f := range m {
			files = append(files, f)
		}
		sort.Strings(files)
		for _, f := range files {
			sp.edits[f] = append(sp.edits[f], m[f]...)
			for _, e := range m[f] {
				sp.plan.KeptInStep = append(sp.plan.KeptInStep, fmt.Sprintf("%s: %s %s -> %s", f, e.What, e.Old, e.New))
			}
		}
	}
	sp.plan.Notes = append(sp.plan.Notes, notes...)
	return nil
}

// write splices every edited file, in path order, and returns the notes
// about comments beside changed values.
func (sp *splice) write() ([]string, error) {
	names := make([]string, 0, len(sp.edits))
	for f := range sp.edits {
		names = append(names, f)
	}
	sort.Strings(names)
	sp.tenancy = map[string][]byte{}
	for f, b := range sp.srcs {
		sp.tenancy[f] = b
	}
	var comments []string
	sp.spans = map[string][]yamledit.Span{}
	for _, f := range names {
		fs := sp.files[f]
		if fs == nil {
			return nil, fmt.Errorf("%s: edited but never read", f)
		}
		out, spans, err := yamledit.SpliceSpans(fs.old, sp.edits[f])
		if err != nil {
			return nil, err
		}
		sp.spans[f] = spans
		comments = append(comments, sp.ts.CommentNotes(f, fs.old, sp.edits[f])...)
		gone := slices.Contains(sp.deleted, f)
		if to, moved := sp.moves[f]; moved {
			// The file under its new name holds what the edits made of it.
			sp.tenancy[to] = out
			sp.plan.Files = append(sp.plan.Files, FileChange{Path: to, Mode: fs.mode, New: out, Created: true})
		}
		if _, isTenancy := sp.srcs[f]; (isTenancy || sp.ts.IsCreated(f)) && !gone {
			sp.tenancy[f] = out
		} else if gone {
			delete(sp.tenancy, f)
			out = nil
		}
		sp.plan.Files = append(sp.plan.Files, FileChange{Path: f, Mode: fs.mode, Old: fs.old, New: out, Created: fs.created, Deleted: gone})
	}
	sort.SliceStable(sp.plan.Files, func(i, j int) bool { return sp.plan.Files[i].Path < sp.plan.Files[j].Path })
	return comments, nil
}

// verify checks that the spliced tenancy holds exactly the plan's target:
// cheaply where it can (verifyTouched), else by parsing and comparing
// everything, which names what is wrong.
func (sp *splice) verify() error {
	if verifyTouched(sp.p, sp.ts, sp.objs, sp.tenancy, sp.spans) {
		return nil
	}
	err := checkTarget(targetSpecs(sp.p, nil), sp.tenancy)
	switch {
	case err == nil:
		return nil
	case sp.replaced:
		return fmt.Errorf("%v; the bytes git gives for the tenancy at commit %.12s are not those of the blobs the snapshot read (a git replace ref?): nothing was written; take a new snapshot and plan again", err, sp.p.Snapshot.Source.Commit)
	case sp.ts.TouchesAnchor(sp.spans):
		return fmt.Errorf("%v; an edited document holds a YAML anchor (&), which an alias in another document may share: nothing was written; edit the value by hand, or render with --format patch", err)
	}
	return fmt.Errorf("%v; nothing was written: please report this with the plan file", err)
}

// profileNotes adds the profile's cpu/memory note (when the plan changes
// a cpu or memory quota) and its reminders.
func (sp *splice) profileNotes(prof *profile.Profile) {
	if prof.CPUMemoryNote != "" {
		for i := range sp.p.Changes {
			if r := sp.p.Changes[i].Resource(); r == quota.CPU || r == quota.Memory {
				sp.plan.Notes = append(sp.plan.Notes, fmt.Sprintf("%s: cpu or memory quotas change: %s", prof.File, prof.CPUMemoryNote))
				break
			}
		}
	}
	for _, rm := range prof.Reminders {
		s := rm.File + " is updated by hand"
		if rm.Note != "" {
			s += ": " + rm.Note
		}
		sp.plan.Reminders = append(sp.plan.Reminders, s)
	}
}

// checkTarget parses the new tenancy files and compares every object with
// the plan's target: the splice must write exactly the planned objects.
func checkTarget(want specs, files map[string][]byte) error {
	got, where, err := parsedObjects(files)
	if err != nil {
		return fmt.Errorf("the spliced files would not parse (%v)", err)
	}
	for _, k := range sortedAddrs(want) {
		if got[k] != want[k] {
			return fmt.Errorf("the spliced files would not hold the planned %s (%s: %s, planned %s)", k, where[k], got[k], want[k])
		}
	}
	for _, k := range sortedAddrs(got) {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("the spliced files would hold %s in %s, which the plan does not have", k, where[k])
		}
	}
	return nil
}
