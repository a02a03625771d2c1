package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// WriteAll writes new files and replaces existing ones (keeping their
// mode), leaving no temporary file.
func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "apply.sh"), filepath.Join(dir, "apply.rollback.sh")
	if err := os.WriteFile(b, []byte("old rollback\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(File{a, []byte("apply\n"), 0o755}, File{b, []byte("rollback\n"), 0o755}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, a) + readFile(t, b); got != "apply\nrollback\n" {
		t.Errorf("content %q", got)
	}
	for p, mode := range map[string]os.FileMode{a: 0o755, b: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode(), err, mode)
		}
	}
	if got := entries(t, dir); strings.Join(got, " ") != "apply.rollback.sh apply.sh" {
		t.Errorf("files left in the directory: %v", got)
	}
}

// When one file cannot be written, none is: the first stays as it was.
func TestWriteAllNeither(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "apply.sh")
	if err := os.WriteFile(a, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ second, want string }{
		{filepath.Join(dir, "no", "x.sh"), "write " + dir + "/no/x.sh: no such directory " + dir + "/no"},
		{fifo, "write " + fifo + ": not a regular file: it is written together with another file, and a device or an open file cannot be put back"},
		{"", "write: no file name"},
	} {
		err := WriteAll(File{a, []byte("new\n"), 0o644}, File{tc.second, []byte("x\n"), 0o644})
		if err == nil || err.Error() != tc.want {
			t.Errorf("second file %q: %v, want %s", tc.second, err, tc.want)
		}
		if got := readFile(t, a); got != "old\n" {
			t.Errorf("second file %q: the first holds %q", tc.second, got)
		}
		if got := entries(t, dir); strings.Join(got, " ") != "apply.sh fifo" {
			t.Errorf("second file %q: files left in the directory: %v", tc.second, got)
		}
	}
}

// A rename that fails after the first file was renamed puts the first
// back: its old bytes when it existed, nothing when it was new.
func TestWriteAllPutsBack(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	if err := os.WriteFile(a, []byte("old a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Once c's temporary file exists, c becomes a folder that is not
	// empty: renaming a file over it fails.
	afterCreate = func(tmp string) {
		if strings.HasPrefix(filepath.Base(tmp), ".c.tmp-") {
			os.MkdirAll(filepath.Join(c, "x"), 0o755)
		}
	}
	defer func() { afterCreate = nil }()
	err := WriteAll(File{a, []byte("new a\n"), 0o644}, File{b, []byte("new b\n"), 0o644}, File{c, []byte("new c\n"), 0o644})
	if err == nil || err.Error() != "write "+c+": file exists" && err.Error() != "write "+c+": is a directory" {
		t.Fatalf("WriteAll: %v", err)
	}
	if got := readFile(t, a); got != "old a\n" {
		t.Errorf("a holds %q, want its old bytes", got)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode() != 0o600 {
		t.Errorf("a: mode %v, %v", fi.Mode(), err)
	}
	if got := entries(t, dir); strings.Join(got, " ") != "a c" {
		t.Errorf("files in the directory: %v, want a and the folder c", got)
	}
}
