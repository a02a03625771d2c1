package atomicfile

import (
	"errors"
	"fmt"
	"os"
)

// File is one file of WriteAll: its path, its bytes, and the mode of a new
// file.
type File struct {
	Path string
	Data []byte
	Perm os.FileMode
}

// WriteAll writes files that belong together (a patch script and its
// rollback) so that a reader finds all of them new or all as they were:
// each is written to a temporary file beside it, synced, and only when
// every one is written are they renamed over their paths, in order. Should
// a rename fail, the files renamed before it get their old bytes back (or
// are removed, when they are new). Each path must be a regular file or a
// new one, found as Write finds it (links followed): a device, a FIFO or
// an open file cannot be taken back, and is refused. Errors name the path
// as given.
func WriteAll(files ...File) error {
	type staged struct {
		File
		sp    spot
		tmp   string
		old   []byte
		guard *signalGuard
	}
	var st []*staged
	defer func() {
		for _, s := range st {
			if s.tmp != "" {
				os.Remove(s.tmp) // renamed already, or left by an error
			}
			s.guard.stop()
		}
	}()
	for _, f := range files {
		if f.Path == "" {
			return errors.New("write: no file name")
		}
		fail := func(err error) error { return fmt.Errorf("write %s: %w", f.Path, bare(err)) }
		sp, err := locate(f.Path)
		switch {
		case err != nil:
			return fail(err)
		case sp.into != "":
			return fail(errors.New("not a regular file: it is written together with another file, and a device or an open file cannot be put back"))
		}
		s := &staged{File: f, sp: sp}
		perm := f.Perm
		if sp.exists {
			perm = sp.perm
			if s.old, err = os.ReadFile(sp.target); err != nil {
				return fail(err)
			}
		}
		if s.tmp, s.guard, err = stage(sp.dir, sp.target, content(f.Data), perm); err != nil {
			return fail(err)
		}
		st = append(st, s)
	}
	for i, s := range st {
		if err := s.guard.rename(s.sp.target); err != nil {
			for _, done := range st[:i] {
				if done.sp.exists {
					_ = writeRename(done.sp.dir, done.sp.target, content(done.old), done.sp.perm, func(e error) error { return e })
				} else {
					os.Remove(done.sp.target)
				}
			}
			return fmt.Errorf("write %s: %w", s.Path, bare(err))
		}
		s.tmp = ""
		syncDir(s.sp.dir)
	}
	return nil
}

// Streams reports whether Write writes straight into path (a device, a
// FIFO, an open file such as /dev/stdout) rather than replacing a regular
// file; false too when path cannot be written (Write says why).
func Streams(path string) bool {
	sp, err := locate(path)
	return err == nil && sp.into != ""
}
