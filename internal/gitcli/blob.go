package gitcli

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
)

// BlobID is git's SHA-1 id of a blob holding b (what git hash-object
// prints in a repository of the default object format).
func BlobID(b []byte) string { return blobID(sha1.New(), b) }

// HoldsBlob reports whether b is the content of the blob id: an id of 64
// hex digits is of a repository in git's sha256 object format.
func HoldsBlob(b []byte, id string) bool {
	if len(id) == 2*sha256.Size {
		return blobID(sha256.New(), b) == id
	}
	return BlobID(b) == id
}

// blobID hashes b as git hashes a blob: "blob <length>\x00", then b.
func blobID(h hash.Hash, b []byte) string {
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
