// Package gitref answers what a git snapshot asks of a ref before and
// beside reading its tenancy files: where the repository is and which
// commit the ref names (Resolve), the ref's full name and the repository
// profile at that commit (Aside, read while the tenancy parses), where a
// --tenancy path lies in the repository (RepoRelative), and why a path has
// no file there (NoFile; InSubmodule when it lies in a submodule).
package gitref

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/profile"
)

// Resolve finds the repository that holds dir (gitcli.Place) and the
// commit ref names. In a work tree both come from one git process
// (gitcli.LocateCommit); otherwise, and whenever that one fails, they are
// asked one by one, so that the errors are those of each question: "DIR
// is not in a git repository" (gitcli.Locate), `ROOT: no commit "REF" in
// the repository`.
func Resolve(dir, ref string) (gitcli.Place, string, error) {
	if place, commit, ok := gitcli.LocateCommit(dir, ref); ok {
		return place, commit, nil
	}
	place, err := gitcli.Locate(dir)
	if err != nil {
		return gitcli.Place{}, "", err
	}
	commit, err := gitcli.Repo{Dir: place.Root}.Line("rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return gitcli.Place{}, "", fmt.Errorf("%s: no commit %q in the repository", place.Root, ref)
	}
	return place, commit, nil
}

// Prefix is place.Dir's path from the top of its work tree ("sub/dir/",
// git rev-parse --show-prefix; "" at the top), what a relative --tenancy
// path of `check --ref` is relative to; "" in a bare repository or a git
// directory, whose paths are from the root.
func Prefix(place gitcli.Place) (string, error) {
	if place.Bare || place.InGitDir {
		return "", nil
	}
	b, err := gitcli.Repo{Dir: place.Dir}.Run(nil, "rev-parse", "--show-prefix")
	if err != nil {
		return "", fmt.Errorf("%s: %w", place.Dir, err)
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// Aside reads, on its own goroutine, the full name of ref (FullName) and
// the repository profile at commit (Profile); the function it returns
// waits for them, and may be called more than once.
func Aside(repo gitcli.Repo, commit, ref string) func() (string, *profile.Profile, error) {
	var name string
	var p *profile.Profile
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		name = FullName(repo, ref)
		p, err = Profile(repo, commit, ref)
	}()
	return func() (string, *profile.Profile, error) {
		<-done
		return name, p, err
	}
}

// FullName is the full name of the ref that ref names now (refs/heads/main
// for main, or for HEAD on that branch), or "" when ref names a fixed
// commit (a commit id, main~1, a detached HEAD): what render follows to
// see whether the ref moved. ref has resolved to a commit, so it is not an
// option.
func FullName(repo gitcli.Repo, ref string) string {
	if strings.HasPrefix(ref, "-") {
		return ""
	}
	name, err := repo.Line("rev-parse", "--symbolic-full-name", ref)
	if err != nil || !strings.HasPrefix(name, "refs/") || strings.ContainsAny(name, "\n") {
		return ""
	}
	return name
}

// Profile reads .krmplan.hcl at the root of commit, nil when absent.
// Errors name the file and ref: not a file, over inputfile.Profile's
// size, a profile that does not parse.
func Profile(repo gitcli.Repo, commit, ref string) (*profile.Profile, error) {
	out, err := repo.Line("ls-tree", "--long", "--full-tree", commit, "--", profile.FileName)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", profile.FileName, ref, err)
	}
	fs := strings.Fields(out) // mode, type, blob, size, path
	if len(fs) < 4 {
		return nil, nil
	}
	if fs[1] != "blob" {
		return nil, fmt.Errorf("%s at %s: not a file", profile.FileName, ref)
	}
	if n, err := strconv.ParseInt(fs[3], 10, 64); err != nil {
		return nil, fmt.Errorf("%s at %s: git ls-tree gave no size: %q", profile.FileName, ref, out)
	} else if n > inputfile.Profile.Max {
		return nil, inputfile.Profile.TooLarge(profile.FileName+" at "+ref, n)
	}
	src, err := repo.Run(nil, "cat-file", "blob", fs[2])
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", profile.FileName, ref, err)
	}
	p, err := profile.Parse(profile.FileName, src)
	if err != nil {
		return nil, fmt.Errorf("the repository profile at %s is invalid: %w", ref, err)
	}
	p.Blob = fs[2]
	return p, nil
}

// TenancyBlob reads the blob id of the tenancy file path from git, no
// further than inputfile.Tenancy's size (a replace ref may put a larger
// blob under the id whose size ls-tree gave); errors name the file and
// the ref.
func TenancyBlob(repo gitcli.Repo, path, id, ref string) ([]byte, error) {
	b, err := repo.RunLimited(inputfile.Tenancy.Max, "cat-file", "blob", id)
	switch {
	case errors.Is(err, gitcli.ErrOutputLimit):
		return nil, fmt.Errorf("%s at %s: more than %d bytes, the most krmplan reads of a %s", path, ref, inputfile.Tenancy.Max, inputfile.Tenancy.Name)
	case err != nil:
		return nil, fmt.Errorf("%s at %s: %w", path, ref, err)
	}
	return b, nil
}

// FileAt reads a file named by its repository path at commit (a
// kustomization's patch); the error says only that there is no such file
// at ref.
func FileAt(repo gitcli.Repo, commit, ref string) func(name string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		b, err := repo.Run(nil, "cat-file", "blob", commit+":"+name)
		if err != nil {
			return nil, fmt.Errorf("no such file at %s", ref)
		}
		return b, nil
	}
}

// Submodule is the git submodule at commit that is the repository path
// rel (slash-separated, from the top) or holds it: its path and the commit
// the tree records for it (a gitlink, mode 160000, type commit), or two ""
// when rel lies in no submodule. A snapshot reads the repository's own
// tree, in which a submodule is that commit id and none of its files, so
// a path in one is "no such file" to ls-tree; this tells why. One git
// ls-tree lists rel and each folder above it (git descends the tree to
// each; a submodule ends the descent).
func Submodule(repo gitcli.Repo, commit, rel string) (sub, id string, err error) {
	if rel == "." || rel == "" {
		return "", "", nil // the top is no submodule
	}
	args := []string{"-c", "core.quotePath=false", "ls-tree", "-z", "--full-tree", commit, "--"}
	for p := rel; p != "."; p = path.Dir(p) {
		args = append(args, p)
	}
	out, err := repo.Run(nil, args...)
	if err != nil {
		return "", "", err
	}
	for entry := range strings.SplitSeq(string(out), "\x00") {
		// "<mode> <type> <id>\t<path>"
		meta, name, _ := strings.Cut(entry, "\t")
		if fs := strings.Fields(meta); len(fs) == 3 && fs[1] == "commit" && (name == rel || strings.HasPrefix(rel, name+"/")) {
			return name, fs[2], nil
		}
	}
	return "", "", nil
}

// InSubmodule is the error of the path rel (clean, from the top), which
// git lists nothing of at commit (ref as given) because it is or lies in
// a submodule (Submodule): that the submodule's files are not this
// repository's, and how to read them. It is nil when rel lies in no
// submodule, or when git cannot tell, so that the caller's own error
// ("no such file") stands.
func InSubmodule(repo gitcli.Repo, commit, ref, rel string) error {
	sub, id, err := Submodule(repo, commit, rel)
	if err != nil || sub == "" {
		return nil
	}
	what, in := rel+": "+sub+" is a git submodule", "."
	if rel == sub {
		what = sub + ": a git submodule"
	} else {
		in = rel[len(sub)+1:]
	}
	return fmt.Errorf("%s at %s (commit %.12s), which records only the submodule's commit %.12s: a snapshot of this repository does not read a submodule's files; "+
		"snapshot the submodule's own repository instead: --git-repo %s --ref %.12s --tenancy %s (%s from this repository's top)", what, ref, commit, id, sub, id, in, sub)
}

// NoFile is the error of the --tenancy path rel (from the top), which
// has no tenancy file at commit (ref as given): why, when it is or lies in
// a submodule (InSubmodule), else "REL: WHAT at REF (commit ID)", WHAT
// being "no such file" or "no *.yaml or *.yml file under it".
func NoFile(repo gitcli.Repo, commit, ref, rel, what string) error {
	if err := InSubmodule(repo, commit, ref, rel); err != nil {
		return err
	}
	return fmt.Errorf("%s: %s at %s (commit %.12s)", rel, what, ref, commit)
}

// RepoRelative is the --tenancy path p relative to the repository's top
// folder, slash-separated and clean; absolute or not, it must lie inside.
// A relative p is relative to prefix, a folder's path from the top ("" for
// the top, else ending in "/").
func RepoRelative(top, prefix, p string) (string, error) {
	rel, err := prefix+p, error(nil)
	if filepath.IsAbs(p) {
		rel, err = filepath.Rel(top, p)
	}
	rel = strings.TrimSuffix(path.Clean(filepath.ToSlash(rel)), "/")
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") { // also a relative ../x, which git would refuse in its own words
		return "", fmt.Errorf("%s is outside the repository %s", p, top)
	}
	return rel, nil
}
