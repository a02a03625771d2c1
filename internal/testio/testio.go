// Package testio holds writers for tests of code that writes files: one
// that fails partway, as a full disk does.
package testio

// FailAfter is a writer that takes Left bytes, then fails every write
// with Err (a full disk, a closed pipe).
type FailAfter struct {
	Left int
	Err  error
}

// Write takes what fits in Left and fails with Err when p does not fit.
func (f *FailAfter) Write(p []byte) (int, error) {
	if len(p) <= f.Left {
		f.Left -= len(p)
		return len(p), nil
	}
	n := f.Left
	f.Left = 0
	return n, f.Err
}
