package gitcli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// batchRepo is a repository with one commit holding a.yaml and sub/b.yaml.
func batchRepo(t *testing.T) (Repo, string) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	r := Repo{Dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.yaml": "a: 1\n", "sub/b.yaml": "b: 2\nno final newline"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c"}} {
		if _, err := r.Run(nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	head, err := r.Line("rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return r, head
}

// One cat-file --batch process answers what cat-file -e, -t and blob
// answer: a commit, a tree, blobs byte for byte (one without a final
// newline), names that name nothing; a name with a newline is refused
// without reaching git, and the process ends cleanly.
func TestBatch(t *testing.T) {
	r, head := batchRepo(t)
	b, err := r.Batch()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, kind, data string
		ok               bool
	}{
		{head + "^{commit}", "commit", "", true},
		{head + ":sub", "tree", "", true},
		{head + ":a.yaml", "blob", "a: 1\n", true},
		{"main:sub/b.yaml", "blob", "b: 2\nno final newline", true},
		{head + ":nope.yaml", "", "", false},
		{strings.Repeat("0", 40) + "^{commit}", "", "", false},
		{"no such ref missing", "", "", false},
	} {
		id, kind, data, ok, err := b.Object(c.name)
		if err != nil || ok != c.ok || kind != c.kind || (c.data != "" && string(data) != c.data) {
			t.Errorf("%q: %s %s %q %v %v", c.name, id, kind, data, ok, err)
		}
		if ok {
			want, err := r.Line("rev-parse", c.name)
			if err != nil || id != want {
				t.Errorf("%q: id %s, rev-parse %s %v", c.name, id, want, err)
			}
		}
	}
	if _, _, _, _, err := b.Object("main\n" + head); err == nil || !strings.Contains(err.Error(), "holds a newline") {
		t.Errorf("a name with a newline: %v", err)
	}
	if _, kind, _, ok, err := b.Object("main:a.yaml"); err != nil || !ok || kind != "blob" {
		t.Errorf("after the refused name: %s %v %v", kind, ok, err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if b.cmd.ProcessState == nil || !b.cmd.ProcessState.Exited() {
		t.Error("git was not waited for")
	}
	if _, _, _, _, err := b.Object("main"); err == nil {
		t.Error("a question after Close: no error")
	}
}

// A batch in a folder that no repository holds fails, and is waited for.
func TestBatchNoRepository(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	b, err := Repo{Dir: dir}.Batch()
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, _, err = b.Object("HEAD")
	if err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("Object: %v", err)
	}
	if err := b.Close(); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("Close: %v", err)
	}
	if b.cmd.ProcessState == nil {
		t.Error("git was not waited for")
	}
}

// Start runs git in the background, and Wait gives what Run gives: the
// output, or an *Error with git's stderr.
func TestStart(t *testing.T) {
	r, _ := batchRepo(t)
	s, err := r.Start([]byte("x\n"), "hash-object", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Wait()
	if want := BlobID([]byte("x\n")) + "\n"; err != nil || string(out) != want {
		t.Errorf("hash-object: %q %v, want %q", out, err, want)
	}
	s, err = r.Start(nil, "cat-file", "-t", "nope")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Wait()
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "nope") || ge.Args[0] != "cat-file" {
		t.Errorf("a failing command: %v", err)
	}
}

// LocateObjects says what Locate says, in every kind of folder, and the
// object directory where it can tell it in the same question.
func TestLocateObjects(t *testing.T) {
	tmp := initRepos(t, "wt", "new\nline")
	wt, nl, bare := filepath.Join(tmp, "wt"), filepath.Join(tmp, "new\nline"), filepath.Join(tmp, "bare.git")
	for _, tc := range []struct{ dir, objects string }{
		{wt, filepath.Join(wt, ".git/objects")},
		{filepath.Join(wt, "sub"), filepath.Join(wt, ".git/objects")},
		{nl, ""},
		{filepath.Join(wt, ".git"), ""},
		{bare, ""},
		{filepath.Join(bare, "refs"), ""},
		{tmp, ""},
	} {
		want, wantErr := Locate(tc.dir)
		got, objects, err := LocateObjects(tc.dir)
		if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) || objects != tc.objects {
			t.Errorf("%q: %+v %q %v; Locate %+v %v", tc.dir, got, objects, err, want, wantErr)
		}
	}
}

// initRepos makes, in a new folder that no repository holds (returned
// without symbolic links), a work tree of each name, with a folder sub,
// and a bare repository bare.git, with git's configuration isolated.
func initRepos(t *testing.T, names ...string) string {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(names, "--bare bare.git") {
		args := []string{"init", "-q", filepath.Join(tmp, n)}
		if b, ok := strings.CutPrefix(n, "--bare "); ok {
			args = []string{"init", "-q", "--bare", filepath.Join(tmp, b)}
		}
		if _, err := (Repo{Dir: tmp}).Run(nil, args...); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(n, "--bare ") {
			if err := os.Mkdir(filepath.Join(tmp, n, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tmp
}
