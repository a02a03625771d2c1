package snapshot

import (
	"errors"
	"fmt"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/inputfile"
)

// MaxTenancyFileSize is the largest tenancy file krmplan reads (256 MB):
// a larger one is refused before it is read (ReadTenancyFile, FromGit). A
// tenancy of 50,000 projects is about 45 MB.
const MaxTenancyFileSize = 256_000_000

// ReadTenancyFile reads a tenancy file of the work tree, as every input
// file is read (inputfile): refused by its size before it is read when it
// is over MaxTenancyFileSize, read no further than that from a pipe, and
// refused unread when it is a device (/dev/zero), a socket or a folder.
func ReadTenancyFile(path string) ([]byte, error) {
	return inputfile.Read(path, inputfile.Tenancy)
}

// readBlob reads a tenancy file's blob from git, no further than
// MaxTenancyFileSize (a replace ref may put a larger blob under the id
// whose size ls-tree gave); errors name the file and the ref.
func readBlob(repo gitcli.Repo, f SourceFile, ref string) ([]byte, error) {
	b, err := repo.RunLimited(MaxTenancyFileSize, "cat-file", "blob", f.Blob)
	switch {
	case errors.Is(err, gitcli.ErrOutputLimit):
		return nil, fmt.Errorf("%s at %s: more than %d bytes, the most krmplan reads of a %s", f.Path, ref, inputfile.Tenancy.Max, inputfile.Tenancy.Name)
	case err != nil:
		return nil, fmt.Errorf("%s at %s: %w", f.Path, ref, err)
	}
	return b, nil
}
