package snapshot

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/snapshot/gitref"
	"github.com/krmplan/krmplan/tenancy"
)

// GitSource names tenancy files at a git ref.
type GitSource struct {
	Repo string // a directory inside the repository
	Ref  string // any revision git understands; "" means HEAD
	// Paths are repository-relative files or folders; a folder stands for
	// every *.yaml and *.yml file under it at the ref.
	Paths []string
	// Absent are those of Paths that are read as empty when the ref lacks
	// them: in a plan between two refs, a file a pull request adds or
	// deletes (missing at exactly one of the refs; Missing finds them).
	// The tenancy may then hold no object at all.
	Absent []string
	// FromDir makes a relative path of Paths relative to Repo, a folder
	// of the work tree, as `git -C Repo show REF:./PATH` reads it (check
	// --ref, whose PATHs are what `check` without --ref reads), rather than
	// to the repository's root (--tenancy).
	FromDir bool
	// Beside, when set, runs on a goroutine of its own once the first
	// tenancy file has been read from git, beside its parse, and FromGit
	// waits for it; when FromGit succeeds it has run (before FromGit
	// returns, when no file was read), on an error perhaps not. git's
	// output comes through a pipe in 64 kB steps, each waiting for a free
	// core: work on the cores started then (a --cluster-data decode) does
	// not slow the read.
	Beside func()
}

// FromGit reads the tenancy files at the ref with git (never the work
// tree) and returns their state, with the commit id, each file's blob id
// and every value's position, and the repository profile (.krmplan.hcl at
// the root, at the same ref) when there is one. Nodes, queues and
// namespaces are marked as not read; a live overlay may add them. Errors name the file and line: a
// missing ref or file, a YAML error, a value that is not a number, the same
// object declared twice, a profile that does not parse (with its line).
func FromGit(src GitSource) (*State, error) {
	ref := src.Ref
	if ref == "" {
		ref = "HEAD"
	}
	// A bare repository is read as any other: the files come from git at
	// the ref, never from a work tree. Repo records the repository's own
	// folder (the work tree's top, or the bare repository).
	place, commit, err := gitref.Resolve(src.Repo, ref)
	if err != nil {
		return nil, err
	}
	top := place.Root
	repo := gitcli.Repo{Dir: top}
	// The ref's full name and the profile are read by git while the
	// tenancy files are found and parsed; wait waits for them, also on the
	// way out by an error (which is the tenancy's first, as before).
	wait := gitref.Aside(repo, commit, ref)
	defer wait()
	prefix := ""
	if src.FromDir {
		prefix, err = gitref.Prefix(place)
	}
	if err != nil {
		return nil, err
	}
	files, blobs, err := tenancyBlobs(repo, commit, ref, top, prefix, src)
	if err != nil {
		return nil, err
	}
	var t Parsed
	st := &State{Source: Source{Kind: "git", Repo: top, Ref: ref, Commit: commit}}
	if st.Source.Paths, err = sourcePaths(top, prefix, src.Paths); err != nil {
		return nil, err
	}
	for i, f := range files {
		blob, err := blobs[i], error(nil)
		if blob == nil {
			blob, err = gitref.TenancyBlob(repo, f.Path, f.Blob, ref)
		}
		if err != nil {
			return nil, err
		}
		if i == 0 && src.Beside != nil {
			defer src.startBeside()()
		}
		if err := t.parseFile(f.Path, blob); err != nil {
			return nil, err
		}
		t.ReadKustomizations(f.Path, blob, gitref.FileAt(repo, commit, ref))
		st.Source.Files = append(st.Source.Files, f)
	}
	if err := t.checkUnique(); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range st.Source.Files {
		paths = append(paths, f.Path)
	}
	if len(src.Absent) == 0 {
		if err := t.RequireObjects(paths, ref); err != nil {
			return nil, err
		}
	}
	if st.Source.RefName, st.Profile, err = wait(); err != nil {
		return nil, err
	}
	if src.Beside != nil {
		src.Beside() // no file was read
	}
	st.NodePools, st.Departments, st.Projects = t.NodePools, t.Departments, t.Projects
	st.ManagedNodes, st.KRMConfig, st.Other = t.ManagedNodes, t.KRMConfig, t.Other
	for _, what := range []string{SourceNodes, SourceQueues, SourceNamespaces} {
		st.NotRead = append(st.NotRead, NotRead{What: what, Reason: NoCluster})
	}
	return st, nil
}

// startBeside runs src.Beside on a goroutine of its own, once (it clears
// it), and returns the wait for it.
func (src *GitSource) startBeside() func() {
	beside, done := src.Beside, make(chan struct{})
	src.Beside = nil
	go func() { defer close(done); beside() }()
	return func() { <-done }
}

// sourcePaths are the --tenancy paths relative to the repository's top
// (gitref.RepoRelative), each once, in their order.
func sourcePaths(top, prefix string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		rel, err := gitref.RepoRelative(top, prefix, p)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out, nil
}

// Missing resolves src.Ref to its commit and returns those of src.Paths
// (as given) that the commit lacks: no file, and no file under a folder.
// The errors are FromGit's: a repository or a ref that cannot be read, a
// path outside the repository.
func Missing(src GitSource) (commit string, missing []string, err error) {
	ref := src.Ref
	if ref == "" {
		ref = "HEAD"
	}
	place, commit, err := gitref.Resolve(src.Repo, ref)
	if err != nil {
		return "", nil, err
	}
	repo := gitcli.Repo{Dir: place.Root}
	for _, p := range src.Paths {
		rel, err := gitref.RepoRelative(place.Root, "", p)
		if err != nil {
			return "", nil, err
		}
		// core.quotePath off: a name beyond ASCII is listed as it is, not quoted in octal
		out, err := repo.Line("-c", "core.quotePath=false", "ls-tree", "-r", "--full-tree", "--name-only", commit, "--", rel)
		if err != nil {
			return "", nil, fmt.Errorf("%s at %s: %w", rel, ref, err)
		}
		if out == "" {
			if err := gitref.InSubmodule(repo, commit, ref, rel); err != nil {
				return "", nil, err
			}
			missing = append(missing, p)
		}
	}
	return commit, missing, nil
}

// tenancyBlobs is tenancyFiles for src.Paths, with the content of files
// already read (nil for one not read yet). A single file is found and read
// by one git process (gitcli.Repo.BlobAt); anything else (a folder, a
// missing file, a path absent at the ref, several paths, any failure) is
// listed by tenancyFiles, whose errors then say what is wrong.
func tenancyBlobs(repo gitcli.Repo, commit, ref, top, prefix string, src GitSource) ([]SourceFile, [][]byte, error) {
	if len(src.Paths) == 1 && len(src.Absent) == 0 {
		if rel, err := gitref.RepoRelative(top, prefix, src.Paths[0]); err == nil {
			b, err := repo.BlobAt(commit, rel, inputfile.Tenancy.Max, func(int64) error { return gitcli.ErrNotBlob })
			if err == nil {
				return []SourceFile{{Path: rel, Blob: b.ID}}, [][]byte{b.Content}, nil
			}
		}
	}
	files, err := tenancyFiles(repo, commit, ref, top, prefix, src.Paths, src.Absent)
	return files, make([][]byte, len(files)), err
}

// tenancyFiles resolves the given paths at commit into files with blob
// ids; a path of absent that commit lacks stands for no file.
func tenancyFiles(repo gitcli.Repo, commit, ref, top, prefix string, paths, absent []string) ([]SourceFile, error) {
	if len(paths) == 0 {
		return nil, errors.New("no tenancy file given (--tenancy PATH)")
	}
	seen := map[string]bool{}
	var files []SourceFile
	for _, p := range paths {
		rel, err := gitref.RepoRelative(top, prefix, p)
		if err != nil {
			return nil, err
		}
		// core.quotePath off: a name beyond ASCII is listed as it is, not quoted in octal
		out, err := repo.Line("-c", "core.quotePath=false", "ls-tree", "-r", "-l", "--full-tree", commit, "--", rel)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", rel, ref, err)
		}
		if out == "" && slices.Contains(absent, p) {
			continue
		}
		if out == "" {
			return nil, gitref.NoFile(repo, commit, ref, rel, "no such file")
		}
		n := 0
		for _, line := range strings.Split(out, "\n") {
			// "<mode> blob <id> <size>\t<path>"
			meta, name, ok := strings.Cut(line, "\t")
			fs := strings.Fields(meta)
			if !ok || len(fs) != 4 || fs[1] != "blob" {
				continue
			}
			if name != rel && !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
				continue // in a folder, only YAML files are tenancy
			}
			if size, err := strconv.ParseInt(fs[3], 10, 64); err == nil && size > inputfile.Tenancy.Max {
				return nil, inputfile.Tenancy.TooLarge(name+" at "+ref, size)
			}
			n++
			if !seen[name] {
				seen[name] = true
				files = append(files, SourceFile{Path: name, Blob: fs[2]})
			}
		}
		if n == 0 {
			return nil, gitref.NoFile(repo, commit, ref, rel, "no *.yaml or *.yml file under it")
		}
	}
	return files, nil
}

// Duplicates lists every object declared a second time (same kind and
// name): both declarations are one cluster object, so the files disagree
// with themselves. Each error is at the later declaration and names the
// first.
func (t *Parsed) Duplicates() []*ParseError {
	type key struct{ kind, name string }
	first := map[key]*tenancy.Origin{}
	var out []*ParseError
	check := func(kind, name string, o *tenancy.Origin) {
		if o == nil {
			return
		}
		k := key{kind, name}
		if prev, ok := first[k]; ok {
			out = append(out, &ParseError{File: o.File, Line: o.Line,
				Msg: fmt.Sprintf("%s %q is declared twice (first at %s:%d); both are the same cluster object", kind, name, prev.File, prev.Line)})
			return
		}
		first[k] = o
	}
	for i := range t.NodePools {
		check(tenancy.KindNodePool.String(), t.NodePools[i].Metadata.Name, t.NodePools[i].Origin)
	}
	for i := range t.Departments {
		check(tenancy.KindDepartment.String(), t.Departments[i].Metadata.Name, t.Departments[i].Origin)
	}
	for i := range t.Projects {
		check(tenancy.KindProject.String(), t.Projects[i].Metadata.Name, t.Projects[i].Origin)
	}
	for _, s := range t.singletons {
		check(s.kind, s.name, s.origin)
	}
	return out
}

// checkUnique is the first of Duplicates, as an error.
func (t *Parsed) checkUnique() error {
	if d := t.Duplicates(); len(d) > 0 {
		return d[0]
	}
	return nil
}

// RequireObjects refuses a tenancy without any NodePool, Department or
// Project: the paths are wrong (a folder of other YAML, a kustomization
// alone), or the files are empty. A plan against it would see every object
// of desired.hcl as new. files are the files read and at says where
// ("HEAD", or "the work tree").
func (t *Parsed) RequireObjects(files []string, at string) error {
	if len(t.NodePools)+len(t.Departments)+len(t.Projects) > 0 {
		return nil
	}
	msg := fmt.Sprintf("no NodePool, Department or Project in %s at %s", words.List(files, 5), at)
	if len(t.Other) > 0 {
		var kinds []string
		seen := map[string]bool{}
		for _, o := range t.Other {
			k := o.Kind
			if k == "" {
				k = "a document without a kind"
			}
			if !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
		msg += fmt.Sprintf(" (only %s)", words.List(kinds, 5))
	}
	return errors.New(msg + "; name the files or folders that hold the tenancy")
}

// kindNames lists the names of the KRM kinds krmplan reads, in the kind
// table's order, for the YAML reader's messages.
func kindNames() []string {
	out := make([]string, len(tenancy.Kinds))
	for i, k := range tenancy.Kinds {
		out[i] = k.String()
	}
	return out
}
