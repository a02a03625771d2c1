package inputfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

var small = Kind{Name: "test file", Max: 1000}

func TestRegularFile(t *testing.T) {
	dir := t.TempDir()
	for n, want := range map[int]string{
		0:    "",
		1000: "",
		1001: "big: 1001 bytes, more than the 1000 bytes krmplan reads of a test file",
	} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p, filepath.Join(dir, "big")); err != nil {
			t.Fatal(err)
		}
		b, err := Read(filepath.Join(dir, "big"), small)
		got := ""
		if err != nil {
			got = strings.TrimPrefix(err.Error(), dir+"/")
		}
		if got != want || (err == nil && len(b) != n) {
			t.Errorf("%d bytes: %d read, error %q, want %q", n, len(b), got, want)
		}
	}
	missing := filepath.Join(dir, "missing")
	if _, err := Read(missing, Desired); !errors.Is(err, fs.ErrNotExist) || err.Error() != "desired file "+missing+" does not exist" {
		t.Errorf("missing file: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "big"), 0); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root reads any file
		if _, err := Read(filepath.Join(dir, "big"), State); err == nil || err.Error() != "--state file "+filepath.Join(dir, "big")+" cannot be read: permission denied" {
			t.Errorf("unreadable file: %v", err)
		}
	}
}

// What is no file of krmplan's is refused without reading: /dev/zero
// would never end.
func TestNotAFile(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{
		"/dev/zero": "/dev/zero is a character device (a terminal, /dev/zero, /dev/null): krmplan reads a snapshot (state.json) from a file or a pipe",
		"/dev/null": "/dev/null is a character device (a terminal, /dev/zero, /dev/null): krmplan reads a snapshot (state.json) from a file or a pipe",
		dir:         dir + " is a directory: krmplan reads a snapshot (state.json) from a file or a pipe",
	} {
		if _, err := Read(path, State); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}

// A FIFO is read up to the cap, and refused beyond it while it is read:
// a writer that never stops is cut off.
func TestFIFO(t *testing.T) {
	for n, want := range map[int]string{
		1000:    "",
		1001:    "more than 1000 bytes, the most krmplan reads of a test file",
		1 << 24: "more than 1000 bytes, the most krmplan reads of a test file",
	} {
		p := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.Write(bytes.Repeat([]byte("y"), n)) // fails with EPIPE once the reader stops
			f.Close()
		}()
		b, err := Read(p, small)
		got := ""
		if err != nil {
			got = strings.TrimPrefix(err.Error(), p+": ")
		}
		if got != want || (err == nil && len(b) != n) {
			t.Errorf("%d bytes: %d read, error %q, want %q", n, len(b), got, want)
		}
		<-done
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1_000_000_000: "1 GB", 64_000_000: "64 MB", 1000: "1000 bytes", 1_500_000: "1500000 bytes"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}

// A regular file is read into a buffer of its size by Stat and one byte,
// made once; one that grows or shrinks while it is read gives what it
// holds to its end, and a failing read its error.
func TestReadSized(t *testing.T) {
	data := strings.Repeat("0123456789", 1000)
	for _, tc := range []struct {
		name    string
		size    int64
		content string
		cap     int // of the buffer read into; 0: not checked
	}{
		{"as long as Stat said", 10000, data, 10001},
		{"empty", 0, "", 1},
		{"grown", 10, data, 0},
		{"grown by one byte", 9999, data, 0},
		{"shrunk", 20000, data, 20001},
	} {
		b, err := readSized(iotest.OneByteReader(strings.NewReader(tc.content)), tc.size)
		if err != nil || string(b) != tc.content || (tc.cap > 0 && cap(b) != tc.cap) {
			t.Errorf("%s: %d bytes (cap %d), %v; want %d bytes (cap %d)", tc.name, len(b), cap(b), err, len(tc.content), tc.cap)
		}
		b, err = readSized(strings.NewReader(tc.content), tc.size)
		if err != nil || string(b) != tc.content {
			t.Errorf("%s, in one read: %d bytes, %v", tc.name, len(b), err)
		}
	}
	broken := io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(syscall.EIO))
	if b, err := readSized(broken, 10); b != nil || !errors.Is(err, syscall.EIO) {
		t.Errorf("a failing read: %q, %v", b, err)
	}
}
