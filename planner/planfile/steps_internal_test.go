package planfile

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/planner"
)

// A step of an edited file whose op or manifest holds a value of
// megabytes is refused with the values clipped, each compacted once to
// be compared and shown: diffStep allocates under two bytes per byte of
// the two values (compact's buffer and its string, the values losing a
// third to spaces), where compacting each again for the message took over
// three.
func TestDiffStepCompactsAValueOnce(t *testing.T) {
	const n = 1 << 21 // elements of each value: "1, " or "2, " apiece
	value := func(e string) json.RawMessage { return json.RawMessage("[" + strings.Repeat(e+", ", n) + e + "]") }
	head := func(e string) string { return "[" + strings.Repeat(e+",", 99) + e + "… (4194307 bytes)" }
	op := func(e string) planner.Step {
		return planner.Step{Ops: []planner.Op{{Op: "replace", Path: "/a", Value: value(e)}}}
	}
	for name, c := range map[string]struct {
		got, want planner.Step
		msg       string
	}{
		"an op's value": {op("1"), op("2"), "op 1 is replace /a " + head("1") + ", the changes give replace /a " + head("2")},
		"a manifest": {planner.Step{Manifest: value("1")}, planner.Step{Manifest: value("2")},
			"the manifest is " + head("1") + ", the changes give " + head("2")},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d := diffStep(c.got, c.want)
		runtime.ReadMemStats(&after)
		if d != c.msg {
			t.Errorf("%s:\n got %.600s\nwant %s", name, d, c.msg)
		}
		values := 2 * len(value("1"))
		if made := after.TotalAlloc - before.TotalAlloc; made > 2*uint64(values) {
			t.Errorf("%s: diffStep allocated %d bytes for two values of %d in all, more than 2 per byte", name, made, values)
		}
	}
}
