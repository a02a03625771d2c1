package planfile_test

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/planner/planfile"
)

// TestDecodeBoundsHostileLists: a plan.json whose lists (its steps, its
// findings, its snapshot's projects or a project's queues) hold millions
// of "{}", with a plan_id that matches, is refused at the first element
// without a name or once its elements are more bytes than the file's,
// having allocated a few times the file's bytes at most (before: 100 to
// 800 bytes per byte, planning it again included).
func TestDecodeBoundsHostileLists(t *testing.T) {
	p, file, before := planOf(t, move)
	const allocBound = 4
	empties := strings.Repeat("{},", 4<<20/3)
	// resealed is file with the first old replaced by new and the
	// plan_id made right, as anyone may (it is a sha256 of the file).
	resealed := func(file []byte, old, new string) []byte {
		if !bytes.Contains(file, []byte(old)) {
			t.Fatalf("the plan file has no %q", old)
		}
		b := bytes.Replace(file, []byte(`"plan_id": "`+p.PlanID+`"`), []byte(`"plan_id": ""`), 1)
		b = bytes.Replace(b, []byte(old), []byte(new), 1)
		return bytes.Replace(b, []byte(`"plan_id": ""`), []byte(`"plan_id": "`+jsonfile.Sum(b)+`"`), 1)
	}
	// snapshot is file with its snapshot's first old replaced by new, the
	// snapshot's digest and the plan_id made right.
	snapshot := func(old, new string) []byte {
		state := bytes.Replace(before.Marshal(), []byte(old), []byte(new), 1)
		sum, vals, err := jsonfile.SumEmpty(state, "taken_at", "digest")
		if err == nil {
			err = jsonfile.Overwrite(state, jsonfile.Member{Name: "digest", Value: vals[1]}, "sha256:"+sum)
		}
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(file, []byte("\n  \"snapshot\": "))
		embedded := bytes.ReplaceAll(bytes.TrimSuffix(state, []byte("\n")), []byte("\n"), []byte("\n  "))
		b := append(append(append([]byte(nil), file[:i]...), "\n  \"snapshot\": "...), embedded...)
		return resealed(append(b, "\n}\n"...), "", "")
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"steps":    {resealed(file, `"steps": [`, `"steps": [`+empties), "plan.json: not a krmplan plan: line 63: /steps/535: " + tooMany(68608, 2978)},
		"projects": {snapshot(`"projects": [`, `"projects": [`+empties), "plan.json: the plan's snapshot is not one krmplan takes: line 207: /snapshot/projects/0: the project has no metadata.name; kubectl refuses an object without one; make a new plan"},
		"queues":   {snapshot(`"queues":[`, `"queues":[`+empties), "plan.json: the plan's snapshot is not one krmplan takes: line 205: /snapshot/departments/0/spec/queues/1080: " + tooMany(69400, 3854) + "; make a new plan"},
		"findings": {resealed(file, `"findings": [`, `"findings": [`+empties), "plan.json: not a krmplan plan: line 117: /findings/431: " + tooMany(69376, 3781)},
	} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := planfile.Decode("plan.json", c.b)
		runtime.ReadMemStats(&m1)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v\nwant %s", name, err, c.want)
		}
		if got := m1.TotalAlloc - m0.TotalAlloc; got > allocBound*uint64(len(c.b)) {
			t.Errorf("%s: the decoding allocated %d bytes for a file of %d, more than %d per byte", name, got, len(c.b), allocBound)
		}
	}
}

// tooMany is jsonfile.TooManyError's words.
func tooMany(made, read int64) string {
	return (&jsonfile.TooManyError{Made: made, Read: read}).Error()
}
