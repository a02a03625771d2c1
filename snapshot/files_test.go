package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// A tenancy file over 256 MB is refused by its size, before it is read:
// in the work tree (a sparse file, so the test writes nothing) and at a
// git ref (ls-tree's size); a device such as /dev/zero is not a file.
func TestTenancyFileSizeCap(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxTenancyFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := big + ": 256000001 bytes, more than the 256 MB krmplan reads of a tenancy file"
	if _, err := ReadTenancyFile(big); err == nil || err.Error() != want {
		t.Errorf("work tree:\n got %v\nwant %s", err, want)
	}
	if _, err := ReadTenancyFile("/dev/zero"); err == nil || err.Error() != "/dev/zero is a character device (a terminal, /dev/zero, /dev/null): krmplan reads a tenancy file from a file or a pipe" {
		t.Errorf("/dev/zero: %v", err)
	}
	exact := filepath.Join(dir, "exact.yaml")
	if err := os.WriteFile(exact, []byte(yamlDept), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadTenancyFile(exact); err != nil || string(b) != yamlDept {
		t.Errorf("a small file: %v", err)
	}

	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "big.yaml", "exact.yaml")
	git(t, dir, "commit", "-q", "-m", "big")
	_, err = FromGit(GitSource{Repo: dir, Paths: []string{"big.yaml"}})
	if want := "big.yaml at HEAD: 256000001 bytes, more than the 256 MB krmplan reads of a tenancy file"; err == nil || err.Error() != want {
		t.Errorf("git:\n got %v\nwant %s", err, want)
	}
}

// A --tenancy path outside the repository is refused in krmplan's words,
// relative (read from the repository's top folder) or absolute; one that
// only passes through a parent folder and comes back in is read.
func TestTenancyPathOutsideRepository(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "t"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t", "d.yaml"), []byte(yamlDept), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "t")
	git(t, dir, "commit", "-q", "-m", "t")
	top, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x", "..", "t/../../x", "/etc/passwd"} {
		_, err := FromGit(GitSource{Repo: dir, Paths: []string{p}})
		if want := p + " is outside the repository " + top; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", p, err, want)
		}
	}
	if _, err := FromGit(GitSource{Repo: dir, Paths: []string{"t/../t"}}); err != nil {
		t.Errorf("t/../t: %v", err)
	}
}
