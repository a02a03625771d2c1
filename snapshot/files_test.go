package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tenancy file over 256 MiB is refused by its size, before it is read:
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
	_, err = ReadTenancyFile(big)
	want := big + ": the file is 256.0 MiB (268435457 bytes); krmplan reads tenancy files of up to 256 MiB"
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != want {
		t.Errorf("work tree:\n got %v\nwant %s", err, want)
	}
	if _, err := ReadTenancyFile("/dev/zero"); err == nil || err.Error() != "/dev/zero: not a regular file (Dc---------); a tenancy file is a YAML file" {
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
	if err == nil || !errors.As(err, &tl) || !strings.HasPrefix(err.Error(), "big.yaml: the file is 256.0 MiB (268435457 bytes); krmplan reads tenancy files of up to 256 MiB at HEAD (blob ") {
		t.Errorf("git: %v", err)
	}
}
