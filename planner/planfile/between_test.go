package planfile_test

import (
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner/between"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/quota"
)

// A plan between two refs keeps its head; decoding it checks that its
// changes are the ones between its base and its head, so a file whose
// head and changes disagree is refused even with a plan_id that matches.
func TestBetweenRefsDecodes(t *testing.T) {
	base := plantest.State(t, "t.yaml", []byte(tenancyYAML))
	head := plantest.State(t, "t.yaml", []byte(strings.Replace(tenancyYAML, "gpu: {deserved: 3, limit: 4}", "gpu: {deserved: 2, limit: 4}", 1)))
	base.Source.Kind, base.Source.Commit, head.Source.Kind, head.Source.Commit = "git", "aaaaaaaaaaaaaaaa", "git", "bbbbbbbbbbbbbbbb"
	p, err := between.Plan(base, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || p.Changes[0].Describe() != "gpu.deserved of queue a-q" {
		t.Fatalf("changes %+v", p.Changes)
	}
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := planfile.Decode("plan.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Head == nil || d.Head.Source.Commit != "bbbbbbbbbbbbbbbb" {
		t.Fatalf("the decoded plan's head: %+v", d.Head)
	}
	// The head says 1, the changes 2: re-encoded with a matching id.
	one := quota.MustParse("1")
	p.Head.Projects[0].Spec.Queues[0].Resources.GPU.Deserved = &one
	b, err = planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "plan.json: the plan's change 1 sets gpu.deserved of queue a-q to 2, but the diff of the plan's base and head gives 1; make a new plan"
	if _, err := planfile.Decode("plan.json", b); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
