package gitcli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A command runs in the repository it names, whatever repository the
// environment ties git to (a hook's GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE): those variables are dropped, the Repo's own are kept,
// and so is the configuration the environment carries
// (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT), as git keeps it for a
// submodule.
func TestEnvironmentOfAnotherRepository(t *testing.T) {
	commit := func(file string) (string, string) {
		t.Helper()
		r, git := testRepo(t)
		if err := os.WriteFile(filepath.Join(r.Dir, file), []byte(file+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", file)
		git("commit", "-q", "-m", file)
		head, err := r.Line("rev-parse", "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		return r.Dir, head
	}
	a, want := commit("a.yaml")
	other, _ := commit("other.yaml")
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, ".git", "index"))
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.abbrev'='20'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "krmplan.test")
	t.Setenv("GIT_CONFIG_VALUE_0", "kept")

	r := Repo{Dir: a}
	if got, err := r.Line("rev-parse", "HEAD"); err != nil || got != want {
		t.Errorf("rev-parse HEAD = %q, %v; want a's %s", got, err, want)
	}
	if got, err := r.Line("ls-files"); err != nil || got != "a.yaml" {
		t.Errorf("ls-files = %q, %v; want a's index", got, err)
	}
	if got, err := r.RunLimited(1<<10, "rev-parse", "--short", "HEAD"); err != nil || string(got) != want[:20]+"\n" {
		t.Errorf("rev-parse --short HEAD = %q, %v; want %s (GIT_CONFIG_PARAMETERS's core.abbrev)", got, err, want[:20])
	}
	if got, err := r.Line("config", "krmplan.test"); err != nil || got != "kept" {
		t.Errorf("config krmplan.test = %q, %v; want GIT_CONFIG_COUNT's kept", got, err)
	}
	b, err := r.Batch()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, _, data, ok, err := b.Object("HEAD:a.yaml"); err != nil || !ok || string(data) != "a.yaml\n" {
		t.Errorf("cat-file --batch HEAD:a.yaml = %q, %v, %v; want a's blob", data, ok, err)
	}

	env := environ([]string{"HOME=/h", "GIT_DIR=/x", "GIT_AUTHOR_NAME=n", "GIT_OBJECT_DIRECTORY=/y"}, []string{"GIT_OBJECT_DIRECTORY=/q"})
	if w := []string{"HOME=/h", "GIT_AUTHOR_NAME=n", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OBJECT_DIRECTORY=/q"}; !slices.Equal(env, w) {
		t.Errorf("environ = %q, want %q", env, w)
	}
}
