// Package atomicfile writes krmplan's output files (-o, --out) so that a
// reader sees the old content or the whole new content, never a partial
// file: the bytes go to a temporary file in the same directory, which is
// synced and then renamed over the target. A SIGINT, SIGTERM or SIGHUP
// during the write removes the temporary file before the signal ends the
// process.
//
// What is not a plain file is treated as a shell redirection would treat
// it: a symbolic link is followed and its target written (the link stays a
// link), and a device, a FIFO or an open file (/dev/null, /dev/stdout, a
// named pipe) is written straight into, never replaced.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// maxLinks bounds a chain of symbolic links, as the kernel does (ELOOP).
const maxLinks = 40

// Write writes data to path:
//
//   - a new or existing regular file is replaced atomically (a temporary
//     file in its directory, synced, renamed over it); a new file gets mode
//     perm, an existing one keeps its mode;
//   - a symbolic link (or a chain of them) is followed, and its target is
//     written as above; a dangling link creates its target;
//   - an existing device or FIFO is opened and written straight into, with
//     no temporary file and no rename;
//   - a link of /proc (/dev/stdout, /dev/fd/1 lead to /proc/self/fd/1) is
//     an open file: it is appended to, so `-o /dev/stdout >> log` keeps
//     the log;
//   - a directory or a socket is refused.
//
// Errors name path as given, never the temporary file ("write
// out/p.json: no such directory out"). On any error a regular target is
// untouched and the temporary file removed.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFrom(path, content(data), perm)
}

// WriteFrom is Write of what data writes (data.WriteTo, called once).
func WriteFrom(path string, data io.WriterTo, perm os.FileMode) error {
	s, err := StageFrom(path, data, perm)
	if err != nil {
		return err
	}
	return s.Commit()
}

// spot is where Write puts a path's bytes: into an open file (into, with
// the open flags flag), or renamed over target in dir, a regular file
// that exists (with mode perm) or not.
type spot struct {
	into   string
	flag   int
	dir    string
	target string
	exists bool
	perm   os.FileMode
}

// locate finds where Write puts path's bytes (see Write).
func locate(path string) (spot, error) {
	if strings.HasSuffix(path, string(filepath.Separator)) {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return spot{}, errors.New("is a directory")
		}
		return spot{}, errors.New("a file name cannot end in " + string(filepath.Separator))
	}
	// What the kernel finds at path, following every link, including the
	// "magic" ones of /proc (/dev/stdout -> /proc/self/fd/1 -> pipe:[…]),
	// whose text is not a path.
	pfi, perr := os.Stat(path)
	if perr == nil {
		switch {
		case pfi.IsDir():
			return spot{}, errors.New("is a directory")
		case pfi.Mode()&fs.ModeSocket != 0:
			return spot{}, errors.New("is a socket; write to a regular file, a device or a FIFO")
		case !pfi.Mode().IsRegular():
			return spot{into: path, flag: os.O_WRONLY}, nil // a device, a FIFO
		}
	}
	dir, base, err := resolve(path)
	if err == errMagicLink {
		// Append: the open file may be one the shell opened with >>, and
		// a new open of it starts at offset 0.
		return spot{into: path, flag: os.O_WRONLY | os.O_APPEND}, nil
	}
	if err != nil {
		return spot{}, err
	}
	realDir, err := filepath.EvalSymlinks(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if perr == nil {
			return spot{into: path, flag: os.O_WRONLY | os.O_TRUNC}, nil
		}
		return spot{}, fmt.Errorf("no such directory %s", dir)
	case errors.Is(err, syscall.ENOTDIR):
		return spot{}, fmt.Errorf("%s is not a directory", fileAbove(dir))
	case err != nil:
		return spot{}, err
	}
	if fi, err := os.Stat(realDir); err != nil {
		return spot{}, err
	} else if !fi.IsDir() {
		return spot{}, fmt.Errorf("%s is not a directory", dir)
	}
	target := filepath.Join(realDir, base)
	fi, err := os.Lstat(target)
	switch {
	case perr == nil && (err != nil || !os.SameFile(pfi, fi)):
		// A regular file that the links' text does not lead to: write it
		// where the kernel finds it.
		return spot{into: path, flag: os.O_WRONLY | os.O_TRUNC}, nil
	case errors.Is(err, fs.ErrNotExist):
		return spot{dir: realDir, target: target}, nil
	case err != nil:
		return spot{}, err
	case fi.Mode().IsRegular():
		return spot{dir: realDir, target: target, exists: true, perm: fi.Mode().Perm()}, nil
	case fi.IsDir():
		return spot{}, errors.New("is a directory")
	}
	return spot{into: target, flag: os.O_WRONLY}, nil
}

// writeInto opens path with flag and writes data into it, as the shell's
// `> path` does: for a device or a FIFO, which a rename would replace.
func writeInto(path string, flag int, data io.WriterTo, fail func(error) error) error {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return fail(err)
	}
	if _, err := data.WriteTo(f); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	return nil
}

// content is a file's bytes as an io.WriterTo, written in one Write.
type content []byte

func (c content) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(c)
	return int64(n), err
}

// errMagicLink is resolve's answer for a link of /proc (/dev/stdout ->
// /proc/self/fd/1): it stands for an open file, whose name may be
// "pipe:[…]" or a file the shell opened to append to. Such a path is
// written into, never replaced.
var errMagicLink = errors.New("a /proc link")

// resolve follows path while it is a symbolic link and returns the
// directory and the name of the final target (which may not exist). The
// directory is not cleaned: "link/../x" must go through link's target.
func resolve(path string) (dir, base string, err error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
			dir, base = split(p)
			return dir, base, nil
		}
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				d, _ := split(p)
				return "", "", fmt.Errorf("%s is not a directory", fileAbove(d))
			}
			return "", "", err
		}
		d, _ := split(p)
		if real, err := filepath.EvalSymlinks(d); err == nil && strings.HasPrefix(real, "/proc/") {
			return "", "", errMagicLink
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", "", err
		}
		if !filepath.IsAbs(t) {
			t = d + string(filepath.Separator) + t
		}
		p = t
	}
	return "", "", errors.New("too many levels of symbolic links")
}

// fileAbove is the first of dir and its parents that exists, the file
// that makes a path under dir "not a directory"; dir if there is none.
func fileAbove(dir string) string {
	for d := dir; ; {
		if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
			return d
		}
		up, _ := split(d)
		if up == d || d == "." {
			return dir
		}
		d = up
	}
}

// split is filepath.Split without cleaning, and "." for no directory.
func split(p string) (dir, base string) {
	i := strings.LastIndex(p, string(filepath.Separator))
	switch {
	case i < 0:
		return ".", p
	case i == 0:
		return string(filepath.Separator), p[1:]
	}
	return p[:i], p[i+1:]
}

// writeRename writes data to a temporary file in dir and renames it over
// target.
func writeRename(dir, target string, data io.WriterTo, perm os.FileMode, fail func(error) error) error {
	tmp, guard, err := stage(dir, target, data, perm)
	if err != nil {
		return fail(err)
	}
	defer guard.stop()
	if err := guard.rename(target); err != nil {
		os.Remove(tmp)
		return fail(err)
	}
	syncDir(dir)
	return nil
}

// stage writes data with mode perm to a new temporary file in dir, named
// after target, synced and closed, and returns its name and the guard that
// removes it on a signal until it is renamed (guard.rename) or the guard
// stopped (removeOnSignal). On an error there is no temporary file, and
// the guard is stopped.
func stage(dir, target string, data io.WriterTo, perm os.FileMode) (tmpName string, guard *signalGuard, err error) {
	// The signals are watched before the temporary file exists: a signal
	// between its creation and the watch left it behind.
	g := removeOnSignal()
	tmp, err := g.create(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		g.stop()
		return "", nil, fmt.Errorf("cannot create a file in %s: %w", dir, bare(err))
	}
	// g, not guard, which each error's return sets to nil before this runs.
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			g.stop()
		}
	}()
	if afterCreate != nil {
		afterCreate(tmp.Name())
	}
	if _, err = data.WriteTo(tmp); err != nil {
		return "", nil, err
	}
	if err = tmp.Chmod(perm); err != nil {
		return "", nil, err
	}
	if err = tmp.Sync(); err != nil {
		return "", nil, err
	}
	if err = tmp.Close(); err != nil {
		return "", nil, err
	}
	return tmp.Name(), g, nil
}

// syncDir makes the renames in dir durable; a file system that cannot sync
// a directory has still renamed.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// inRename, when set (by a test), runs once the temporary file is renamed,
// the guard's lock still held (a signal then waits for it).
//
// inCreate and afterCreate, when set (by a test), run once the temporary
// file exists: inCreate while the guard's lock is held (a signal then
// waits for it), afterCreate once it is released.
var (
	inCreate    func(tmp string)
	afterCreate func(tmp string)
	inRename    func(tmp string)
)

// cleanupSignals are the signals that end krmplan from outside: Ctrl-C,
// kill, a closed terminal.
var cleanupSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalGuard removes the temporary file of a write when one of
// cleanupSignals arrives before stop is called, and then lets the signal
// end the process as it would have (the exit status still says which
// signal): Ctrl-C or kill during a write left a .NAME.tmp-* file.
type signalGuard struct {
	// mu is held while the temporary file is created and while it is
	// renamed: a signal that arrives meanwhile removes it once it exists,
	// or finds it renamed. The signal's handler keeps mu until the signal
	// ends the process, so that the write never goes on to its rename
	// (and to an error about the file it removed). Every receiver of these
	// signals in krmplan is a guard (WriteAll holds one per file), and each
	// sends the signal on once its file is removed: the last one stopped
	// restores the default action, and the signal ends the process.
	mu   sync.Mutex
	tmp  string // the temporary file, from its creation to its rename
	stop func()
}

// removeOnSignal starts watching cleanupSignals (those not ignored from
// the start: under nohup a SIGHUP ends nothing, and stays so).
func removeOnSignal() *signalGuard {
	g := &signalGuard{}
	var watched []os.Signal
	for _, s := range cleanupSignals {
		if !signal.Ignored(s) {
			watched = append(watched, s)
		}
	}
	ch := make(chan os.Signal, 1)
	if len(watched) > 0 {
		signal.Notify(ch, watched...)
	}
	// end removes the temporary file and ends the process by sig. The lock
	// is kept, so that the write never goes on to its rename (and to an
	// error about the file it removed).
	end := func(sig os.Signal) {
		g.mu.Lock()
		if g.tmp != "" {
			os.Remove(g.tmp)
		}
		// With no other receiver, Stop restores the signal's default
		// action, and the signal sent again ends the process.
		signal.Stop(ch)
		if s, ok := sig.(syscall.Signal); ok {
			endBy(s)
		}
		g.mu.Unlock() // not a signal of this system: nothing to send on
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case sig := <-ch:
			end(sig)
		case <-done:
			// A signal that came as stop was called is not lost (stop and the
			// signal can be ready at once): the file is renamed or still to
			// be removed, and the signal then ends the process.
			select {
			case sig := <-ch:
				end(sig)
			default:
			}
		}
	}()
	g.stop = func() {
		signal.Stop(ch)
		close(done)
		<-finished
	}
	return g
}

// rename renames the temporary file over target under the guard.
func (g *signalGuard) rename(target string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := os.Rename(g.tmp, target); err != nil {
		return err
	}
	if inRename != nil {
		inRename(g.tmp)
	}
	g.tmp = ""
	return nil
}

// create creates the temporary file (os.CreateTemp) under the guard.
func (g *signalGuard) create(dir, pattern string) (*os.File, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		g.tmp = f.Name()
		if inCreate != nil {
			inCreate(g.tmp)
		}
	}
	return f, err
}

// bare is err without the file names of *fs.PathError and *os.LinkError,
// which would name the temporary file.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
