package snapshot

import (
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
