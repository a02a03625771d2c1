package gitcli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// LocateCommit is Locate(dir) and the commit that rev names
// (`rev-parse --verify REV^{commit}` at the repository's root), asked of
// one git process instead of three. It answers only in the common case:
// dir is in a work tree (not in a bare repository, nor in a git
// directory), rev holds no ":" (a revision such as HEAD:./sub would name
// a path relative to dir), and rev names a commit. In every other case
// ok is false and the caller asks the three questions one by one, so
// that each failure keeps its own message.
func LocateCommit(dir, rev string) (p Place, commit string, ok bool) {
	if strings.Contains(rev, ":") || strings.HasPrefix(rev, "-") {
		return Place{}, "", false
	}
	b, err := Repo{Dir: dir}.Run(nil, "rev-parse", "--is-bare-repository", "--is-inside-git-dir",
		"--show-toplevel", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return Place{}, "", false
	}
	// "false\nfalse\n<top>\n<commit>\n": the top folder's name may hold a
	// newline of its own, so it is all between the flags and the last line.
	out := strings.TrimSuffix(string(b), "\n")
	flags, rest, ok1 := strings.Cut(out, "\n")
	inGitDir, rest, ok2 := strings.Cut(rest, "\n")
	i := strings.LastIndexByte(rest, '\n')
	if !ok1 || !ok2 || i < 1 || flags != "false" || inGitDir != "false" || !isObjectID(rest[i+1:]) {
		return Place{}, "", false
	}
	return Place{Dir: dir, Root: rest[:i]}, rest[i+1:], true
}

// isObjectID reports whether s is a full object id: 40 (SHA-1) or 64
// (SHA-256) lowercase hex digits.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Blob is a file read from a tree by BlobAt: its blob id and content.
type Blob struct {
	ID      string
	Content []byte
}

// ErrNotBlob is BlobAt's answer when the path is not a file at the
// commit (missing, a folder, a submodule), or cannot be asked of `git
// cat-file --batch` (it holds a newline): the caller lists the tree
// itself.
var ErrNotBlob = errors.New("not a blob at the commit")

// BlobAt reads the file path (repository-relative, as `git ls-tree
// --full-tree` names it) at commit with one `git cat-file --batch`: the
// id, type and size, then the content, in one process where ls-tree and
// cat-file blob take two. Unlike Batch.Object, it reads no more than max
// bytes of content: a larger blob (a hostile one, or a replace ref's) is
// not read, and tooLarge(size) is the error. A path that is not a file is
// ErrNotBlob.
func (r Repo) BlobAt(commit, path string, max int64, tooLarge func(size int64) error) (Blob, error) {
	if path == "" || path == "." || strings.ContainsAny(path, "\n\x00") || strings.HasPrefix(path, ":") {
		return Blob{}, ErrNotBlob
	}
	args := []string{"cat-file", "--batch"}
	cmd := r.command(args)
	cmd.Stdin = strings.NewReader(commit + ":" + path + "\n")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Blob{}, fmt.Errorf("git: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return Blob{}, fmt.Errorf("git: %w", err)
	}
	b, rerr := readBatchBlob(bufio.NewReaderSize(stdout, 1<<16), max, tooLarge)
	if rerr != nil {
		_ = cmd.Process.Kill() // it may still be writing a blob not read
	}
	werr := cmd.Wait()
	switch {
	case rerr != nil:
		return Blob{}, rerr
	case werr != nil:
		return Blob{}, exitError(args, errb.String(), werr)
	}
	return b, nil
}

// readBatchBlob reads BlobAt's one answer (readAnswer): a blob of at
// most max bytes, tooLarge(size) for a larger one, and ErrNotBlob for
// anything else git names or a line that is no answer.
func readBatchBlob(out *bufio.Reader, max int64, tooLarge func(int64) error) (Blob, error) {
	a, err := readAnswer(out, max)
	switch {
	case errors.Is(err, errUnexpected) || (err == nil && (!a.found || a.kind != "blob")):
		return Blob{}, ErrNotBlob
	case err != nil:
		return Blob{}, fmt.Errorf("git cat-file --batch: %w", err)
	case a.data == nil:
		return Blob{}, tooLarge(a.size)
	}
	return Blob{ID: a.id, Content: a.data}, nil
}
