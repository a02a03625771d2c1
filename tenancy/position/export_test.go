package position

import "unsafe"

// FromFile reports whether p holds a file's bytes (the fast path of
// UnmarshalJSONFrom) rather than a map, and the address of those bytes.
func FromFile(p Set) (bool, unsafe.Pointer) {
	if p.raw == nil {
		return false, nil
	}
	return true, unsafe.Pointer(unsafe.SliceData(p.raw))
}
