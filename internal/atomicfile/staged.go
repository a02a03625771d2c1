package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Staged is Write in two halves, for a caller with other work to do
// meanwhile: Stage does the slow half (the bytes written to a temporary
// file beside the target and synced), Commit the rename that replaces the
// target, and Discard removes the temporary file, leaving the target as it
// was. A path that Write writes straight into (a device, a FIFO, an open
// file) has nothing to stage: Commit writes it.
type Staged struct {
	sp    spot
	data  io.WriterTo
	fail  func(error) error
	tmp   string
	guard *signalGuard // until Commit or Discard: a signal removes tmp
}

// Stage writes data for path as Write does, short of replacing it. Its
// errors are Write's, naming path; on one, nothing is left behind.
func Stage(path string, data []byte, perm os.FileMode) (*Staged, error) {
	return StageFrom(path, content(data), perm)
}

// StageFrom is Stage of what data writes (data.WriteTo, called once): a
// file of tens of megabytes kept in parts (planfile.Encoded) is written
// without being copied into one buffer first.
func StageFrom(path string, data io.WriterTo, perm os.FileMode) (*Staged, error) {
	if path == "" {
		return nil, errors.New("write: no file name")
	}
	fail := func(err error) error { return fmt.Errorf("write %s: %w", path, bare(err)) }
	sp, err := locate(path)
	if err != nil {
		return nil, fail(err)
	}
	s := &Staged{sp: sp, data: data, fail: fail}
	if sp.into != "" {
		return s, nil
	}
	if sp.exists {
		perm = sp.perm
	}
	if s.tmp, s.guard, err = stage(sp.dir, sp.target, data, perm); err != nil {
		return nil, fail(err)
	}
	return s, nil
}

// Commit replaces the target with the staged bytes (or writes them into
// it); on an error the target is untouched and the temporary file gone.
func (s *Staged) Commit() error {
	if s.sp.into != "" {
		return writeInto(s.sp.into, s.sp.flag, s.data, s.fail)
	}
	if s.guard == nil {
		return s.fail(errors.New("committed or discarded already"))
	}
	defer s.done()
	if err := s.guard.rename(s.sp.target); err != nil {
		os.Remove(s.tmp)
		return s.fail(err)
	}
	syncDir(s.sp.dir)
	return nil
}

// Discard removes the temporary file: the target stays as it was.
func (s *Staged) Discard() {
	if s.guard == nil {
		return
	}
	s.guard.mu.Lock()
	if s.guard.tmp != "" {
		os.Remove(s.guard.tmp)
		s.guard.tmp = ""
	}
	s.guard.mu.Unlock()
	s.done()
}

// done stops the signal guard, once.
func (s *Staged) done() {
	s.guard.stop()
	s.guard = nil
}
