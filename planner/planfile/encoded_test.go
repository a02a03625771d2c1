package planfile_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/krmplan/krmplan/internal/testio"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
)

// EncodeParts writes what EncodeFrom returns, and as many bytes as Len
// says, for a plan with one embedded snapshot and for one with two (a
// plan between two git refs); a writer that fails stops WriteTo with its
// error.
func TestEncodedWritesTheFile(t *testing.T) {
	one, _, _ := planOf(t, move)
	for name, p := range map[string]*planner.Plan{"one snapshot": one, "between two refs": betweenRefsPlan(t)} {
		want, err := planfile.EncodeFrom(p, planfile.Sources{})
		if err != nil {
			t.Fatal(err)
		}
		id := p.PlanID
		e, err := planfile.EncodeParts(p, planfile.Sources{})
		if err != nil {
			t.Fatal(err)
		}
		if p.PlanID != id {
			t.Errorf("%s: plan id %s, EncodeFrom's %s", name, p.PlanID, id)
		}
		var b bytes.Buffer
		n, err := e.WriteTo(&b)
		if err != nil || n != int64(len(want)) || !bytes.Equal(b.Bytes(), want) || e.Len() != len(want) {
			t.Errorf("%s: WriteTo wrote %d bytes (%v), Len %d; want EncodeFrom's %d bytes", name, n, err, e.Len(), len(want))
		}
		if !bytes.Equal(e.Bytes(), want) {
			t.Errorf("%s: Bytes are not EncodeFrom's", name)
		}
		full := errors.New("disk full")
		half := len(want) / 2
		if n, err := e.WriteTo(&testio.FailAfter{Left: half, Err: full}); err != full || n != int64(half) {
			t.Errorf("%s: WriteTo to a writer that fails = %d, %v; want %d, %v", name, n, err, half, full)
		}
	}
}
