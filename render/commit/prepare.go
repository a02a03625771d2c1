package commit

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/planner"
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
}

// FileChange is the new content of one file of a splice.
type FileChange struct {
	Path     string
	Mode     string // git file mode; "100644" for a new file
	Old, New []byte
	Created  bool // the file does not exist at the snapshot's commit
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
}

// Prepare computes the files a splice of p writes, reading them at
// the snapshot's commit through r. It changes only the bytes of changed
// values (and the padding after them), inserts missing fields, new queues
// and new objects in the style of their neighbours, rewrites the profile's
// expectations (and mirrors with opts.WithMirrors), and checks that the
// new tenancy files parse to exactly the planned objects. Refusals are
// *SpliceError naming the file and line: a value reached through a YAML
// alias, a file that changed since the snapshot (stale bytes or blob), an
// expectations file or mirror that already disagreed.
func Prepare(p *planner.Plan, r RepoFiles, opts Options) (*SplicePlan, error) {
	src := p.Snapshot.Source
	if src.Kind != "git" {
		return nil, errors.New("splice needs a snapshot taken from git (--git-repo); this plan's snapshot is from a cluster, render it with --format patch")
	}
	if len(p.Changes) == 0 {
		return nil, errors.New("the plan has no changes: nothing to render")
	}
	type fileState struct {
		mode    string
		old     []byte
		created bool
	}
	files := map[string]*fileState{}
	var staleBlob []string
	replaced := false // a file's bytes are not its blob's (a git replace ref)
	paths := make([]string, 0, len(src.Files))
	srcs := map[string][]byte{}
	for _, sf := range src.Files {
		mode, blob, data, ok, err := r.File(sf.Path)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &yamledit.Error{File: sf.Path, Msg: fmt.Sprintf("not in commit %.12s: take a new snapshot and plan again", src.Commit)}
		}
		if blob != sf.Blob {
			staleBlob = append(staleBlob, fmt.Sprintf("%s: the file at commit %.12s is blob %.12s, the snapshot read blob %.12s: the file changed since the snapshot; take a new snapshot and plan again", sf.Path, src.Commit, blob, sf.Blob))
		} else if !gitcli.HoldsBlob(data, blob) {
			replaced = true
		}
		files[sf.Path] = &fileState{mode: mode, old: data}
		paths = append(paths, sf.Path)
		srcs[sf.Path] = data
	}
	read := func(path string) ([]byte, bool, error) {
		if fs, ok := files[path]; ok {
			return fs.old, !fs.created, nil
		}
		mode, _, data, ok, err := r.File(path)
		if err != nil || !ok {
			return nil, ok, err
		}
		files[path] = &fileState{mode: mode, old: data}
		return data, true, nil
	}
	// Files the snapshot read byte for byte are parsed only where edits
	// need them; a stale one is parsed whole, to refuse as before.
	ts, err := newSet(&p.Snapshot, paths, srcs, len(staleBlob) == 0 && !replaced)
	if err != nil {
		return nil, err
	}
	prof := p.Snapshot.Profile
	// The changed objects' targets (a change that cannot apply is refused
	// with them); with a profile, every object's, for the target's view.
	// They do not depend on the edits: work them out meanwhile, and report
	// an error of the edits first, as before.
	keep := changedKeys(p)
	if prof != nil {
		keep = nil
	}
	var objs map[string]string
	var objsErr error
	targets := make(chan struct{})
	go func() {
		defer close(targets)
		objs, objsErr = targetObjects(p, keep)
	}()
	edits, err := tenancyEdits(p, ts)
	<-targets
	if err != nil {
		return nil, err
	}
	for _, path := range ts.Created() {
		if _, exists, err := read(path); err != nil {
			return nil, err
		} else if exists {
			return nil, &yamledit.Error{File: path, Msg: "the placement file for new objects exists at the snapshot's commit but is not one of the snapshot's tenancy files; snapshot it too (--tenancy " + path + ")"}
		}
		files[path] = &fileState{mode: "100644", created: true}
	}
	if objsErr != nil {
		return nil, objsErr
	}
	plan := &SplicePlan{}
	if prof != nil {
		before := companion.Before(&p.Snapshot)
		after, err := companion.Target(objs)
		if err != nil {
			return nil, err
		}
		ex, err := companion.Expectations(prof, before, after, read)
		if err != nil {
			return nil, err
		}
		list := func(path string) ([]string, error) { return r.List(path) }
		mi, notes, err := companion.Mirrors(prof, before, after, paths, list, read, opts.WithMirrors)
		if err != nil {
			return nil, err
		}
		for _, m := range []map[string][]yamledit.Edit{ex, mi} {
			files := make([]string, 0, len(m))
			for f := range m {
				files = append(files, f)
			}
			sort.Strings(files)
			for _, f := range files {
				edits[f] = append(edits[f], m[f]...)
				for _, e := range m[f] {
					plan.KeptInStep = append(plan.KeptInStep, fmt.Sprintf("%s: %s %s -> %s", f, e.What, e.Old, e.New))
				}
			}
		}
		plan.Notes = append(plan.Notes, notes...)
	}
	names := make([]string, 0, len(edits))
	for f := range edits {
		names = append(names, f)
	}
	sort.Strings(names)
	newTenancy := map[string][]byte{}
	for f, b := range srcs {
		newTenancy[f] = b
	}
	var comments []string
	spans := map[string][]yamledit.Span{}
	for _, f := range names {
		fs := files[f]
		if fs == nil {
			return nil, fmt.Errorf("%s: edited but never read", f)
		}
		out, sp, err := yamledit.SpliceSpans(fs.old, edits[f])
		if err != nil {
			return nil, err
		}
		spans[f] = sp
		comments = append(comments, yamledit.CommentNotes(f, fs.old, edits[f])...)
		if _, isTenancy := srcs[f]; isTenancy || ts.IsCreated(f) {
			newTenancy[f] = out
		}
		plan.Files = append(plan.Files, FileChange{Path: f, Mode: fs.mode, Old: fs.old, New: out, Created: fs.created})
	}
	if len(staleBlob) > 0 {
		return nil, errors.New(strings.Join(staleBlob, "\n"))
	}
	if !verifyTouched(p, ts, objs, newTenancy, spans) {
		// Not vouched for cheaply: parse and compare everything, which
		// names what is wrong.
		if keep != nil {
			if objs, err = targetObjects(p, nil); err != nil {
				return nil, err
			}
		}
		if err := checkTarget(objs, newTenancy); err != nil {
			switch {
			case replaced:
				return nil, fmt.Errorf("%v; the bytes git gives for the tenancy at commit %.12s are not those of the blobs the snapshot read (a git replace ref?): nothing was written; take a new snapshot and plan again", err, src.Commit)
			case ts.TouchesAnchor(spans):
				return nil, fmt.Errorf("%v; an edited document holds a YAML anchor (&), which an alias in another document may share: nothing was written; edit the value by hand, or render with --format patch", err)
			}
			return nil, fmt.Errorf("%v; nothing was written: please report this with the plan file", err)
		}
	}
	plan.Notes = append(comments, plan.Notes...)
	if prof != nil {
		if prof.CPUMemoryNote != "" {
			for _, c := range p.Changes {
				if c.Resource == "cpu" || c.Resource == "memory" {
					plan.Notes = append(plan.Notes, fmt.Sprintf("%s: cpu or memory quotas change: %s", prof.File, prof.CPUMemoryNote))
					break
				}
			}
		}
		for _, rm := range prof.Reminders {
			s := rm.File + " is updated by hand"
			if rm.Note != "" {
				s += ": " + rm.Note
			}
			plan.Reminders = append(plan.Reminders, s)
		}
	}
	return plan, nil
}

// checkTarget parses the new tenancy files and compares every object with
// the plan's target: the splice must write exactly the planned objects.
func checkTarget(want map[string]string, files map[string][]byte) error {
	got, where, err := parsedObjects(files)
	if err != nil {
		return fmt.Errorf("the spliced files would not parse (%v)", err)
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			return fmt.Errorf("the spliced files would not hold the planned %s (%s: %s, planned %s)", k, where[k], got[k], want[k])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("the spliced files would hold %s in %s, which the plan does not have", k, where[k])
		}
	}
	return nil
}
