package planfile_test

import (
	"bytes"
	"cmp"
	"fmt"
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
	resealed := func(file []byte, old, new string) []byte { return resealed(t, p.PlanID, file, old, new) }
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
		"steps":    {resealed(file, `"steps": [`, `"steps": [`+empties), "plan.json: not a krmplan plan: line 63: /steps/530: " + tooMany(68592, 2963)},
		"projects": {snapshot(`"projects": [`, `"projects": [`+empties), "plan.json: the plan's snapshot is not one krmplan takes: line 207: /snapshot/projects/0: the project has no metadata.name; kubectl refuses an object without one; make a new plan"},
		"queues":   {snapshot(`"queues":[`, `"queues":[`+empties), "plan.json: the plan's snapshot is not one krmplan takes: line 205: /snapshot/departments/0/spec/queues/1080: " + tooMany(69400, 3854) + "; make a new plan"},
		"findings": {resealed(file, `"findings": [`, `"findings": [`+empties), "plan.json: not a krmplan plan: line 117: /findings/425: " + tooMany(69392, 3763)},
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

// resealed is file (of plan id) with the first old replaced by new and
// the plan_id made right, as anyone may (it is a sha256 of the file).
func resealed(t *testing.T, id string, file []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(file, []byte(old)) {
		t.Fatalf("the plan file has no %q", old)
	}
	b := bytes.Replace(file, []byte(`"plan_id": "`+id+`"`), []byte(`"plan_id": ""`), 1)
	b = bytes.Replace(b, []byte(old), []byte(new), 1)
	return bytes.Replace(b, []byte(`"plan_id": ""`), []byte(`"plan_id": "`+jsonfile.Sum(b)+`"`), 1)
}

// tooMany is jsonfile.TooManyError's words.
func tooMany(made, read int64) string {
	return (&jsonfile.TooManyError{Made: made, Read: read}).Error()
}

// TestDecodeBoundsHostileListsAndMaps: plan.json's lists of numbers (a
// step's changes), its maps (the desired file's variables) and its lists
// of structs other than steps and findings (a step's ops, a finding's
// places, the forced removals) are counted as the steps are: a great many
// short elements, with a plan_id that matches, are refused at the element
// where they pass the bound, having allocated a few times the file's
// bytes at most (before: 37 to 170 bytes per byte, a million of them),
// the forced removals less than twice (before: 2.6 times, encoding/json's
// Decoder making 2.5 kB of each removal read).
func TestDecodeBoundsHostileListsAndMaps(t *testing.T) {
	p, file, _ := planOf(t, move)
	allocBound := map[string]uint64{"the forced removals": 2}
	const n = 4 << 20 // the refusals come early, whatever a list's length
	elems := func(elem string) string { return strings.Repeat(elem+",", n/(len(elem)+1)) }
	resealed := func(old, new string) []byte { return resealed(t, p.PlanID, file, old, new) }
	var vars strings.Builder
	for i := range n / 9 {
		fmt.Fprintf(&vars, "%q:\"\",", fmt.Sprintf("%x", i))
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"a step's changes": {resealed("\"changes\": [\n        0", "\"changes\": ["+elems("0")+"\n        0"), "line 69: /steps/0/changes/11048: " + tooMany(89144, 23602)},
		"a step's ops":     {resealed(`"ops": [`, `"ops": [`+elems("{}")), "line 72: /steps/0/ops/1251: " + tooMany(70872, 5293)},
		"a finding's where": {resealed(`"already_present": true`, `"where": [`+elems("{}")+`{}], "already_present": true`),
			"line 122: /findings/0/where/969: " + tooMany(71232, 5675)},
		"the variables":       {resealed(`"desired": {`, `"desired": {"variables": {`+vars.String()+`"z":""},`), "line 192: /desired/variables/bc9: " + tooMany(97960, 32401)},
		"the forced removals": {resealed(`"desired": {`, `"desired": {"force_removals": [`+elems(`{"project":"a"}`)+`{"project":"a"}],`), "line 192: /desired/force_removals/2859: " + tooMany(116808, 51263)},
	} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := planfile.Decode("plan.json", c.b)
		runtime.ReadMemStats(&m1)
		if want := "plan.json: not a krmplan plan: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", name, err, want)
		}
		bound := cmp.Or(allocBound[name], 4)
		if got := m1.TotalAlloc - m0.TotalAlloc; got > bound*uint64(len(c.b)) {
			t.Errorf("%s: the decoding allocated %d bytes for a file of %d, more than %d per byte", name, got, len(c.b), bound)
		}
	}
}
