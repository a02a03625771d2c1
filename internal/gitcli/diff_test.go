package gitcli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// ChangedLines reads the new side's changed lines of a real git diff:
// changed, added and removed lines, a file with a space and one with
// non-ASCII in its name (quoted by git), content lines that look like
// headers, a deleted file, a new one; diff.relative and diff.noprefix
// set in the repository do not change the paths, nor diff.interHunkContext
// the lines.
func TestChangedLines(t *testing.T) {
	r, git := testRepo(t)
	dir := r.Dir
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
	// Two lines of context between hunks would make lines 3 and 4 of
	// sub/a.yaml count as changed.
	git("config", "diff.interHunkContext", "2")
	git("config", "diff.algorithm", "histogram")

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

// Diff writes git's default patch whatever the configuration: a global
// configuration that sets every setting Diff overrides, an attributes
// file that calls YAML binary, a GIT_DIFF_OPTS and settings in
// GIT_CONFIG_PARAMETERS give the bytes of none at all.
func TestDiffWhateverTheConfiguration(t *testing.T) {
	r, git := testRepo(t)
	dir := r.Dir
	lines := func(changed ...int) string {
		var b strings.Builder
		for i := 1; i <= 30; i++ {
			if slices.Contains(changed, i) {
				fmt.Fprintf(&b, "line %d changed\n", i)
			} else {
				fmt.Fprintf(&b, "line %d\n", i)
			}
		}
		return b.String()
	}
	for _, f := range []string{"a.yaml", "é.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(lines()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("commit", "-q", "-m", "base")
	for _, f := range []string{"a.yaml", "é.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(lines(5, 15)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("commit", "-q", "-am", "head")

	want, err := r.Diff(3, "--find-renames", "main~1", "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, hunk := range []string{"@@ -2,7 +2,7 @@ line 1\n", "@@ -12,7 +12,7 @@ line 11\n", "diff --git a/a.yaml b/a.yaml\n", `diff --git "a/\303\251.yaml" "b/\303\251.yaml"` + "\n"} {
		if !strings.Contains(string(want), hunk) {
			t.Fatalf("the default patch has no %q:\n%s", hunk, want)
		}
	}
	if i, j := strings.Index(string(want), "a/a.yaml"), strings.Index(string(want), "251.yaml"); i > j {
		t.Errorf("the files are not in git's order:\n%s", want)
	}
	order := filepath.Join(t.TempDir(), "order")
	if err := os.WriteFile(order, []byte("é.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A user's attributes that call YAML binary (no patch at all).
	attributes := filepath.Join(t.TempDir(), "attributes")
	if err := os.WriteFile(attributes, []byte("*.yaml -diff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(config, []byte("[diff]\n\tcontext = 1\n\tinterHunkContext = 10\n\talgorithm = histogram\n"+
		"\tindentHeuristic = false\n\torderFile = "+order+"\n\tsuppressBlankEmpty = true\n\tmnemonicPrefix = true\n\tnoprefix = true\n"+
		"\trelative = true\n\texternal = false\n[core]\n\tabbrev = 16\n\tquotePath = false\n\tattributesFile = "+attributes+
		"\n[color]\n\tui = always\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", config)
	t.Setenv("GIT_DIFF_OPTS", "--unified=9") // which git lets override -U
	// Kept (environ), but Diff's own -c come after them.
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.abbrev'='20' 'core.quotePath'='false'")
	got, err := r.Diff(3, "--find-renames", "main~1", "main")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("with the configuration:\n%s\nwant git's default:\n%s", got, want)
	}
}

// testRepo is a new repository (branch main, an author) in a folder of
// its own, with git kept from the user's and the system's configuration,
// and a function that runs git in it and fails the test on an error.
func testRepo(t *testing.T) (Repo, func(args ...string)) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r := Repo{Dir: t.TempDir()}
	git := func(args ...string) {
		t.Helper()
		if _, err := r.Run(nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "T")
	git("config", "user.email", "t@example.com")
	return r, git
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
