package guard

import (
	"encoding/json"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// A queue entry without a name is named by the KAI Queue name KRM derives
// for it and its node pool, as the plan names it; one with a name by its
// name; a value tested before its queue's name by the index (issue 16).
func TestOfNames(t *testing.T) {
	test := func(path, value string) planner.Op {
		return planner.Op{Op: planner.OpTest, Path: path, Value: json.RawMessage(value)}
	}
	st := planner.Step{Action: planner.StepDelete, Object: tenancy.KindProject.Object("nlp"), Ops: []planner.Op{
		test("/spec/queues/0/name", `""`), test("/spec/queues/0/nodepool", `"h100"`),
		test("/spec/queues/0/resources/gpu/deserved", `2`),
		test("/spec/queues/1/resources/gpu/limit", `4`),
		test("/spec/queues/1/name", `"nlp-a100"`), test("/spec/queues/1/nodepool", `"a100"`),
		test("/spec/queues/2/name", `""`), test("/spec/queues/2/nodepool", `"default"`),
		test("/spec/queues/3/name", `""`), test("/spec/queues/3/resources/gpu/deserved", `1`),
		test("/spec/parent", `"research"`),
	}}
	var got []string
	for _, g := range Of(st) {
		got = append(got, g.What)
	}
	want := []string{
		"the name of queue nlp-h100 (node pool h100)", "nodepool of queue nlp-h100 (node pool h100)",
		"gpu.deserved of queue nlp-h100 (node pool h100)",
		"gpu.limit of queue 1",
		"the name of queue 1", "nodepool of queue nlp-a100",
		"the name of queue nlp (node pool default)", "nodepool of queue nlp (node pool default)",
		"the name of queue 3", "gpu.deserved of queue 3",
		"parent of project nlp",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("guard %d: %q, want %q", i, got[i], want[i])
		}
	}
}
