package jsonfile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/krmplan/krmplan/internal/testio"
)

// A file kept in parts writes MarshalLines' bytes, as many as Len says,
// and sums and overwrites its head as SumEmpty and Overwrite do on those
// bytes; a writer that fails stops WriteTo with its error and the bytes it
// took.
func TestLinesParts(t *testing.T) {
	withParallelMin(t, 1)
	for _, n := range []int{0, 1, 2, 7, 1000} {
		v := listsValue(n)
		want, err := marshalLinesSeq(&v)
		if err != nil {
			t.Fatal(err)
		}
		l, err := MarshalLinesParts(&v)
		if err != nil {
			t.Fatal(err)
		}
		if n >= 2 && len(l.segs) != 11 {
			t.Errorf("n=%d: %d parts, want 11 (5 big lists and the skeleton around them)", n, len(l.segs))
		}
		var b bytes.Buffer
		if w, err := l.WriteTo(&b); err != nil || w != int64(len(want)) || !bytes.Equal(b.Bytes(), want) || l.Len() != len(want) || !bytes.Equal(l.Bytes(), want) {
			t.Fatalf("n=%d: WriteTo wrote %d bytes (%v), Len %d:\n%s\nwant %d bytes:\n%s", n, w, err, l.Len(), b.Bytes(), len(want), want)
		}
		wantSum, wantValues, _ := SumEmpty(want, "digest")
		if sum, values, err := l.SumEmpty("digest"); err != nil || sum != wantSum || len(values) != 1 || values[0] != wantValues[0] {
			t.Errorf("n=%d: SumEmpty = %s %q %v, want %s %q", n, sum, values, err, wantSum, wantValues)
		}
		if err := l.Overwrite(Member{Name: "digest", Value: "sha256:00"}, "sha256:11"); err != nil || !bytes.Contains(l.Bytes(), []byte(`"digest": "sha256:11"`)) {
			t.Errorf("n=%d: Overwrite: %v", n, err)
		}
		full := errors.New("disk full")
		half := len(want) / 2
		if w, err := l.WriteTo(&testio.FailAfter{Left: half, Err: full}); err != full || w != int64(half) {
			t.Errorf("n=%d: WriteTo to a writer that fails = %d, %v; want %d, %v", n, w, err, half, full)
		}
	}
}
