package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/krmplan/krmplan/internal/gitcli"
)

// The ref a snapshot follows: a branch, a remote-tracking branch, a tag and
// HEAD on a branch have a full name; a commit id, an expression and a
// detached HEAD name a fixed commit.
func TestRefName(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tenancy.yaml"), []byte(yamlDept), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "one")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	git(t, dir, "tag", "v1")
	git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")
	repo := gitcli.Repo{Dir: dir}
	id, err := repo.Line("rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"main": "refs/heads/main", "HEAD": "refs/heads/main", "": "refs/heads/main",
		"origin/main": "refs/remotes/origin/main", "v1": "refs/tags/v1",
		id: "", id[:12]: "", "main~1": "", "HEAD^": "", "main@{0}": "",
	} {
		st, err := FromGit(GitSource{Repo: dir, Ref: ref, Paths: []string{"tenancy.yaml"}})
		if err != nil {
			t.Fatalf("%q: %v", ref, err)
		}
		if st.Source.RefName != want {
			t.Errorf("ref %q: ref_name %q, want %q", ref, st.Source.RefName, want)
		}
	}
	git(t, dir, "checkout", "-q", "--detach")
	st, err := FromGit(GitSource{Repo: dir, Paths: []string{"tenancy.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Source.RefName != "" {
		t.Errorf("a detached HEAD: ref_name %q, want none", st.Source.RefName)
	}
}
