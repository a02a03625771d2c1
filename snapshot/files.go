package snapshot

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/krmplan/krmplan/internal/gitcli"
)

// TooLargeError is the refusal of a tenancy file over MaxTenancyFileSize,
// made before the file is read.
type TooLargeError struct {
	File string
	Size int64 // -1 when only "more than the limit" is known
}

func (e *TooLargeError) Error() string {
	size := "more than that"
	if e.Size >= 0 {
		size = sizeText(e.Size)
	}
	return fmt.Sprintf("%s: the file is %s; krmplan reads tenancy files of up to 256 MiB", e.File, size)
}

// sizeText writes a byte count for a message: "300.0 MiB (314572800 bytes)".
func sizeText(n int64) string {
	return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
}

// ReadTenancyFile reads a tenancy file of the work tree: a regular file of
// at most MaxTenancyFileSize bytes, refused by its size before it is read
// (and read no further than the limit, should it grow meanwhile). A
// device, a FIFO or a folder is refused: /dev/zero would never end.
func ReadTenancyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s); a tenancy file is a YAML file", path, info.Mode().Type())
	}
	if info.Size() > MaxTenancyFileSize {
		return nil, &TooLargeError{File: path, Size: info.Size()}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxTenancyFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxTenancyFileSize {
		return nil, &TooLargeError{File: path, Size: -1}
	}
	return b, nil
}

// readBlob reads a tenancy file's blob from git, no further than
// MaxTenancyFileSize (a replace ref may put a larger blob under the id
// whose size ls-tree gave).
func readBlob(repo gitcli.Repo, f SourceFile) ([]byte, error) {
	b, err := repo.RunLimited(MaxTenancyFileSize, "cat-file", "blob", f.Blob)
	if errors.Is(err, gitcli.ErrOutputLimit) {
		return nil, &TooLargeError{File: f.Path, Size: -1}
	}
	return b, err
}
