package gitcli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// revparseRepo is a work tree (its folder's name holds a newline) with
// one commit of a.yaml, sub/b.yaml and an empty sub/c, and a bare clone
// of it.
func revparseRepo(t *testing.T) (wt, bare, commit string) {
	t.Helper()
	tmp := initRepos(t)
	wt, bare = filepath.Join(tmp, "work\ntree"), filepath.Join(tmp, "clone.git")
	if err := os.MkdirAll(filepath.Join(wt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.yaml": "kind: A\n", "sub/b.yaml": "kind: B\n", "sub/c": ""} {
		if err := os.WriteFile(filepath.Join(wt, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := Repo{Dir: wt}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one"},
		{"clone", "-q", "--bare", ".", bare}} {
		if _, err := r.Run(nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	commit, err := r.Line("rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return wt, bare, commit
}

// LocateCommit answers in a work tree, from its top or a folder in it,
// for a revision that names a commit; it leaves every other case (a bare
// repository, a bad revision, a revision with a path, an option, no
// repository) to the questions asked one by one.
func TestLocateCommit(t *testing.T) {
	wt, bare, commit := revparseRepo(t)
	for _, dir := range []string{wt, filepath.Join(wt, "sub")} {
		p, got, ok := LocateCommit(dir, "HEAD")
		if want := (Place{Dir: dir, Root: wt}); !ok || p != want || got != commit {
			t.Errorf("LocateCommit(%q, HEAD) = %+v, %q, %v; want %+v, %q, true", dir, p, got, ok, want, commit)
		}
	}
	for _, tc := range []struct{ dir, rev string }{
		{bare, "HEAD"}, {filepath.Join(wt, ".git"), "HEAD"}, {wt, "nope"}, {wt, "HEAD:sub"},
		{wt, "HEAD:./sub"}, {wt, "--all"}, {wt, "HEAD~5"}, {os.TempDir(), "HEAD"},
	} {
		if p, got, ok := LocateCommit(tc.dir, tc.rev); ok {
			t.Errorf("LocateCommit(%q, %q) = %+v, %q; want no answer", tc.dir, tc.rev, p, got)
		}
	}
}

// BlobAt reads a file at a commit with its blob id; a folder, a missing
// path and a path cat-file --batch cannot carry are ErrNotBlob, and a file
// over the limit is the caller's error with its size, unread.
func TestBlobAt(t *testing.T) {
	wt, bare, commit := revparseRepo(t)
	for _, dir := range []string{wt, bare} {
		r := Repo{Dir: dir}
		b, err := r.BlobAt(commit, "sub/b.yaml", 100, nil)
		if err != nil || string(b.Content) != "kind: B\n" || b.ID != BlobID([]byte("kind: B\n")) {
			t.Errorf("%s: BlobAt(sub/b.yaml) = %q %q, %v", dir, b.ID, b.Content, err)
		}
		if b, err := r.BlobAt(commit, "sub/c", 100, nil); err != nil || len(b.Content) != 0 || b.ID != BlobID(nil) {
			t.Errorf("%s: BlobAt(sub/c) = %q %q, %v", dir, b.ID, b.Content, err)
		}
		for _, p := range []string{"sub", "missing.yaml", ".", "", "a\nb", ":/one"} {
			if b, err := r.BlobAt(commit, p, 100, nil); !errors.Is(err, ErrNotBlob) {
				t.Errorf("%s: BlobAt(%q) = %+v, %v; want ErrNotBlob", dir, p, b, err)
			}
		}
		tooLarge := errors.New("too large")
		var size int64
		_, err = r.BlobAt(commit, "a.yaml", 7, func(n int64) error { size = n; return tooLarge })
		if err != tooLarge || size != 8 {
			t.Errorf("%s: BlobAt over the limit: %v, size %d; want the caller's error, size 8", dir, err, size)
		}
	}
	if _, err := (Repo{Dir: wt}).BlobAt("0000000000000000000000000000000000000000", "a.yaml", 100, nil); !errors.Is(err, ErrNotBlob) {
		t.Errorf("BlobAt at a commit the repository lacks: %v; want ErrNotBlob", err)
	}
}
