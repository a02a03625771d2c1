package atomicfile

import (
	"errors"
	"fmt"
	"io"
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

// StageFrom writes what a WriterTo writes: a regular file staged and
// committed, a FIFO-like target written into at Commit; a WriterTo that
// fails leaves the target as it was and no temporary file, with its
// error named after the path.
func TestStageFrom(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := StageFrom(p, parts{"ne", "w\n"}, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil || readFile(t, p) != "new\n" {
		t.Fatalf("committed: %q, %v", readFile(t, p), err)
	}
	want := "write " + p + ": disk full"
	if _, err := StageFrom(p, parts{"half", ""}, 0o644); err == nil || err.Error() != want {
		t.Errorf("a failing writer: %v, want %s", err, want)
	}
	if got := readFile(t, p); got != "new\n" || fmt.Sprint(entries(t, dir)) != "[plan.json]" {
		t.Errorf("after a failing writer: %q, files %v", got, entries(t, dir))
	}
	if s, err = StageFrom(os.DevNull, parts{"x", "y"}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Errorf("into %s: %v", os.DevNull, err)
	}
}

// parts is an io.WriterTo that writes its parts one by one, and fails
// with "disk full" after the first when the second is empty.
type parts [2]string

func (p parts) WriteTo(w io.Writer) (int64, error) {
	n, err := io.WriteString(w, p[0])
	if err != nil {
		return int64(n), err
	}
	if p[1] == "" {
		return int64(n), errors.New("disk full")
	}
	m, err := io.WriteString(w, p[1])
	return int64(n + m), err
}
