package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A staged write leaves the target as it was until Commit, which replaces
// it; Discard leaves it as it was and removes the temporary file; a second
// Commit is refused.
func TestStageCommitAndDiscard(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Stage(p, []byte("new\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "old\n" || len(entries(t, dir)) != 2 {
		t.Fatalf("staged: %q, files %v", got, entries(t, dir))
	}
	s.Discard()
	s.Discard()
	if got := readFile(t, p); got != "old\n" || fmt.Sprint(entries(t, dir)) != "[plan.json]" {
		t.Fatalf("discarded: %q, files %v", got, entries(t, dir))
	}
	if s, err = Stage(p, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "new\n" || fi.Mode() != 0o600 || fmt.Sprint(entries(t, dir)) != "[plan.json]" {
		t.Fatalf("committed: %q, mode %v, files %v", got, fi.Mode(), entries(t, dir))
	}
	want := "write " + p + ": committed or discarded already"
	if err := s.Commit(); err == nil || err.Error() != want {
		t.Errorf("a second commit: %v", err)
	}
}

// Staging refuses what Write refuses, with Write's error and nothing left
// behind.
func TestStageRefusals(t *testing.T) {
	dir := t.TempDir()
	want := "write " + dir + "/none/p.json: no such directory " + dir + "/none"
	if _, err := Stage(filepath.Join(dir, "none", "p.json"), []byte("x"), 0o644); err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("files left: %v", got)
	}
}
