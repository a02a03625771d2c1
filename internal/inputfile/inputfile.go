// Package inputfile reads krmplan's input files (the snapshot, the plan,
// desired.hcl, --var-file, --cluster-data) with a cap on the size of each
// kind of file, enforced while reading: a regular file larger than its cap
// is refused from its size, before a byte is read, and a pipe or a FIFO
// (`--state <(…)`) is read up to its cap and refused beyond it. A device
// (/dev/zero, a terminal), a socket and a directory are refused without
// reading: none is a file of krmplan's.
//
// The caps are far above what a real tenancy needs (README, "Limits"): the
// snapshot of 50,000 projects is 200 MB, its cluster data 56 MB and its
// export to desired.hcl 29 MB. The memory of decoding a JSON file within
// its cap is bounded by its readers (jsonfile.Element, List and Map: at
// most 1 byte of list and map elements per byte read, after 64 kB).
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Kind is a kind of input file: what it is called in a refusal and the
// most bytes krmplan reads of it.
type Kind struct {
	Name string // "snapshot (state.json)"
	Max  int64  // bytes
	// Arg names the file as the user gives it, for a file that cannot be
	// opened: "--state file", "desired file".
	Arg string
}

// The kinds of input files and their caps.
var (
	State       = Kind{Name: "snapshot (state.json)", Max: 1_000_000_000, Arg: "--state file"}
	Plan        = Kind{Name: "plan (plan.json)", Max: 1_000_000_000, Arg: "plan file"}
	Desired     = Kind{Name: "desired file", Max: 64_000_000, Arg: "desired file"}
	VarFile     = Kind{Name: "--var-file", Max: 4_000_000, Arg: "--var-file"}
	ClusterData = Kind{Name: "cluster data file", Max: 256_000_000, Arg: "--cluster-data file"}
	// Tenancy is a tenancy YAML file, of the work tree (check) or a git
	// blob, whose size the git snapshot checks with TooLarge before it
	// reads the blob.
	Tenancy = Kind{Name: "tenancy file", Max: 256_000_000, Arg: "tenancy file"}
	// Patch is a kustomization's patch file, read for the kind and name
	// it patches.
	Patch = Kind{Name: "kustomize patch file", Max: 16_000_000, Arg: "kustomize patch file"}
	// Profile is the repository profile, .krmplan.hcl, read from git:
	// snapshot checks its size with TooLarge before it reads the blob.
	Profile = Kind{Name: "repository profile (.krmplan.hcl)", Max: 4_000_000, Arg: "repository profile"}
)

// Read returns the content of the file at path, or an error naming path
// as given: a directory, a device or a socket, a regular file of more
// than k.Max bytes, a pipe that gives more than k.Max bytes, or the error
// of opening or reading it — in krmplan's words for a file that cannot be
// opened (OpenError).
func Read(path string, k Kind) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, k.OpenError(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := k.notFile(path, fi.Mode()); err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() && fi.Size() > k.Max {
		return nil, k.TooLarge(path, fi.Size())
	}
	// One byte past the cap tells a pipe that is too long from one that
	// is exactly as long as the cap.
	r := io.LimitReader(f, k.Max+1)
	var b []byte
	over := false
	if fi.Mode().IsRegular() {
		b, err = readSized(r, fi.Size())
		over = int64(len(b)) > k.Max
	} else {
		b, over, err = readChunks(r, k.Max)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, bare(err))
	}
	if over {
		return nil, fmt.Errorf("%s: more than %s, the most krmplan reads of a %s", path, size(k.Max), k.Name)
	}
	return b, nil
}

// readSized reads r, a regular file of size bytes by its Stat, to its
// end into one buffer made for it: a file as long as Stat said is read
// into size+1 bytes (the byte past its end sees EOF) without the buffer
// growing or being cleared first, as a bytes.Buffer grown to size clears
// it (the pages of a plan.json of tens of megabytes, touched twice). A
// file that grows while it is read is read on, the buffer growing as
// append grows it (r is limited past the cap); one that shrinks gives
// the bytes it has.
func readSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readChunks reads r to its end in chunks of 1 MB, joined once at the
// end, and stops as soon as it holds more than max bytes (over): a buffer
// grown by doubling would hold up to three times what a pipe gives (an
// endless pipe cut off at 1 GB took 2 GB).
func readChunks(r io.Reader, max int64) (b []byte, over bool, err error) {
	var chunks [][]byte
	var total int64
	for {
		chunk := make([]byte, 1<<20)
		n, err := io.ReadFull(r, chunk)
		chunks = append(chunks, chunk[:n])
		if total += int64(n); total > max {
			return nil, true, nil
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return bytes.Join(chunks, nil), false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// OpenError is err, from opening the file at path, in krmplan's words,
// naming how the file was given: "desired file nope.hcl does not exist",
// "--state file s.json cannot be read: permission denied", "--var-file
// x/y.hcl: not a directory".
func (k Kind) OpenError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &openError{fmt.Sprintf("%s %s does not exist", k.Arg, path), err}
	case errors.Is(err, fs.ErrPermission):
		return &openError{fmt.Sprintf("%s %s cannot be read: permission denied", k.Arg, path), err}
	}
	return fmt.Errorf("%s %s: %w", k.Arg, path, bare(err))
}

// openError is OpenError's message, wrapping the error it says in words
// (errors.Is(err, fs.ErrNotExist) still holds).
type openError struct {
	msg string
	err error
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.err }

// TooLarge is the error for a file of n bytes, more than k.Max.
func (k Kind) TooLarge(path string, n int64) error {
	return fmt.Errorf("%s: %d bytes, more than the %s krmplan reads of a %s", path, n, size(k.Max), k.Name)
}

// notFile refuses what is not a regular file, a FIFO or a pipe.
func (k Kind) notFile(path string, m fs.FileMode) error {
	what := ""
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeCharDevice != 0:
		what = "a character device (a terminal, /dev/zero, /dev/null)"
	case m&fs.ModeDevice != 0:
		what = "a block device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	default:
		return nil
	}
	return fmt.Errorf("%s is %s: krmplan reads a %s from a file or a pipe", path, what, k.Name)
}

// size prints a cap: "1 GB", "64 MB" (powers of 10, as the caps are).
func size(n int64) string {
	switch {
	case n >= 1_000_000_000 && n%1_000_000_000 == 0:
		return fmt.Sprintf("%d GB", n/1_000_000_000)
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%d MB", n/1_000_000)
	}
	return fmt.Sprintf("%d bytes", n)
}

// bare is err without the file name of an *fs.PathError (the message
// names the file already).
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
