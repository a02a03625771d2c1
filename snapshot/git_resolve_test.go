package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// A snapshot from git reads the same state whichever way git is asked:
// one process for the repository and the commit and one for a single
// file (a work tree), or a question each (a bare repository, a file
// named twice, a folder); and a refusal reads word for word as before.
func TestFromGitResolve(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wt, bare := filepath.Join(tmp, "wt"), filepath.Join(tmp, "bare.git")
	if err := os.MkdirAll(filepath.Join(wt, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"tenancy.yaml": yamlDept, "docs/notes.txt": "notes\n"} {
		if err := os.WriteFile(filepath.Join(wt, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, wt, "init", "-q", "-b", "main")
	git(t, wt, "add", "-A")
	git(t, wt, "commit", "-q", "-m", "one")
	git(t, tmp, "clone", "-q", "--bare", wt, bare)
	commit, _, err := Missing(GitSource{Repo: wt})
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	// Beside runs once when FromGit succeeds, beside the parse of the
	// first file; not when the file cannot be read.
	var calls atomic.Int32
	for _, paths := range [][]string{{"tenancy.yaml"}, {"tenancy.yaml", "./tenancy.yaml"}, {"missing.yaml"}} {
		calls.Store(0)
		_, err := FromGit(GitSource{Repo: wt, Paths: paths, Beside: func() { calls.Add(1) }})
		if want := map[bool]int32{true: 1, false: 0}[err == nil]; calls.Load() != want || (err != nil) != (paths[0] == "missing.yaml") {
			t.Errorf("%v: Beside ran %d times (error %v), want %d", paths, calls.Load(), err, want)
		}
	}
	for _, src := range []GitSource{
		{Repo: wt, Paths: []string{"tenancy.yaml"}},
		{Repo: filepath.Join(wt, "docs"), Ref: "main", Paths: []string{"tenancy.yaml"}},
		{Repo: wt, Paths: []string{"tenancy.yaml", "./tenancy.yaml"}},
		{Repo: bare, Paths: []string{"tenancy.yaml"}},
		{Repo: wt, Ref: commit, Paths: []string{"tenancy.yaml"}},
	} {
		st, err := FromGit(src)
		if err != nil {
			t.Fatalf("%+v: %v", src, err)
		}
		if st.Source.Commit != commit || len(st.Source.Files) != 1 || st.Source.Files[0].Blob == "" {
			t.Errorf("%+v: source %+v", src, st.Source)
		}
		st.Source.Repo, st.Source.Ref, st.Source.RefName, st.Source.Paths = "", "", "", nil
		st.TakenAt = "2026-01-01T00:00:00Z"
		if got := st.Seal(); want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("%+v: state differs:\n%s\nwant\n%s", src, got, want)
		}
	}
	short := commit[:12]
	for _, tc := range []struct {
		src  GitSource
		want string
	}{
		{GitSource{Repo: filepath.Join(tmp, "none"), Paths: []string{"tenancy.yaml"}}, filepath.Join(tmp, "none") + " is not in a git repository"},
		{GitSource{Repo: wt, Ref: "nope", Paths: []string{"tenancy.yaml"}}, wt + `: no commit "nope" in the repository`},
		{GitSource{Repo: wt, Ref: "main:docs", Paths: []string{"tenancy.yaml"}}, wt + `: no commit "main:docs" in the repository`},
		{GitSource{Repo: bare, Ref: "nope", Paths: []string{"tenancy.yaml"}}, bare + `: no commit "nope" in the repository`},
		{GitSource{Repo: wt, Paths: []string{"missing.yaml"}}, "missing.yaml: no such file at HEAD (commit " + short + ")"},
		{GitSource{Repo: bare, Ref: "main", Paths: []string{"missing.yaml"}}, "missing.yaml: no such file at main (commit " + short + ")"},
		{GitSource{Repo: wt, Paths: []string{"docs"}}, "docs: no *.yaml or *.yml file under it at HEAD (commit " + short + ")"},
		{GitSource{Repo: wt, Paths: []string{"../x.yaml"}}, "../x.yaml is outside the repository " + wt},
		{GitSource{Repo: wt}, "no tenancy file given (--tenancy PATH)"},
	} {
		if _, err := FromGit(tc.src); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %s", tc.src, err, tc.want)
		}
	}
}
