package gitcli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// ChangedLines reads the new side's changed lines of a real git diff:
// changed, added and removed lines, a file with a space and one with
// non-ASCII in its name (quoted by git), content lines that look like
// headers, a deleted file, a new one; diff.relative and diff.noprefix
// set in the repository do not change the paths.
func TestChangedLines(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	r := Repo{Dir: dir}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		t.Helper()
		if _, err := r.Run(nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "T")
	git("config", "user.email", "t@example.com")
	write("sub/a.yaml", "1\n2\n3\n4\n5\n")
	write("b c.yaml", "x\ny\n")
	write("é.yaml", "x\n")
	write("gone.yaml", "x\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	write("sub/a.yaml", "1\ntwo\n3\n5\n+++ b/fake\n@@ -1 +1 @@\n")
	write("b c.yaml", "x\ny\nz\n")
	write("é.yaml", "é\n")
	write("new.yaml", "n\nn\n")
	git("rm", "-q", "gone.yaml")
	git("add", ".")
	git("commit", "-q", "-m", "head")
	git("config", "diff.relative", "true")
	git("config", "diff.noprefix", "true")

	got, err := (Repo{Dir: filepath.Join(dir, "sub")}).ChangedLines("main~1", "main")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int]bool{
		"sub/a.yaml": {2: true, 5: true, 6: true},
		"b c.yaml":   {3: true},
		"é.yaml":     {1: true},
		"new.yaml":   {1: true, 2: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := r.ChangedLines("nothere"); err == nil {
		t.Error("an unknown revision: no error")
	}
}

func TestHunkNew(t *testing.T) {
	for _, tc := range []struct {
		line     string
		start, n int
		err      bool
	}{
		{"@@ -1,2 +3,4 @@ x", 3, 4, false},
		{"@@ -1 +7 @@", 7, 1, false},
		{"@@ -3,1 +2,0 @@", 2, 0, false},
		{"@@ -1 -2 @@", 0, 0, true},
		{"@@ -1 +x,2 @@", 0, 0, true},
	} {
		start, n, err := hunkNew(tc.line)
		if fmt.Sprint(start, n, err != nil) != fmt.Sprint(tc.start, tc.n, tc.err) {
			t.Errorf("%q: %d %d %v", tc.line, start, n, err)
		}
	}
}
