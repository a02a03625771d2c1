package planfile_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/between"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// A plan between two refs keeps its head; decoding it checks that its
// changes are the ones between its base and its head, so a file whose
// head and changes disagree is refused even with a plan_id that matches.
func TestBetweenRefsDecodes(t *testing.T) {
	p := betweenRefsPlan(t)
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
	// The head is read as state.json is, as the snapshot is: its digest
	// checked, an error naming the file's line and /head/….
	h := bytes.Index(b, []byte("\n  \"head\": "))
	at := h + bytes.Index(b[h:], []byte(`{"metadata":{"name":"a"},"spec":{`))
	line := 1 + bytes.Count(b[:at], []byte("\n"))
	for _, c := range []struct{ from, to, want string }{
		{`{"metadata":{"name":"a"},"spec":{"parent":"d","queues":[{"name":"a-q","nodepool":"h100","resources":{"gpu":{"deserved":2,`,
			`{"metadata":{"name":"a"},"spec":{"parent":"d","queues":[{"name":"a-q","nodepool":"h100","resources":{"gpu":{"deserved":5,`,
			"plan.json: the plan's head is not one krmplan takes: the digest does not match the content (the file was changed after the snapshot was taken); make a new plan"},
		{`{"metadata":{"name":"a"},"spec":{`, `{"metadata":{"name":"a"},"x":1,"spec":{`,
			fmt.Sprintf(`plan.json: the plan's head is not one krmplan takes: line %d: /head/projects/0: unknown key "x"; make a new plan`, line)},
	} {
		// The first after the head's start is the head's (the base comes
		// after it).
		edited := reID(t, append(append([]byte{}, b[:h]...), bytes.Replace(b[h:], []byte(c.from), []byte(c.to), 1)...))
		if bytes.Equal(edited, b) {
			t.Fatalf("%s is not in the head", c.from)
		}
		if got := decodeErr(edited); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	// The head says 1, the changes 2: re-encoded with a matching id.
	one := quota.MustParse("1")
	p.Head.Projects[0].Spec.Queues[0].Resources.GPU.Deserved = &one
	p.Head.Seal() // as an editor who recomputes the digest
	b, err = planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "plan.json: the plan's change 1 sets gpu.deserved of queue a-q to 2, but the diff of the plan's base and head gives 1; make a new plan"
	if _, err := planfile.Decode("plan.json", b); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// A plan between two refs that forces a removal in use (--force-removal)
// records the force in desired.force_removals: decoding plans the diff
// again with the same removals forced, and a file whose force is dropped,
// or names nothing the head removes, is refused.
func TestBetweenRefsForcedRemovalDecodes(t *testing.T) {
	base := plantest.State(t, "t.yaml", []byte(tenancyYAML))
	cut := strings.Index(tenancyYAML, "---\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: c}")
	head := plantest.State(t, "t.yaml", []byte(tenancyYAML[:cut]))
	base.Source.Commit, head.Source.Commit = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
	base.NotRead = slices.DeleteFunc(base.NotRead, func(n snapshot.NotRead) bool { return n.What == snapshot.SourceQueues })
	base.LiveQueues = []snapshot.LiveQueue{{Name: "c-q", Allocated: map[string]string{"nvidia.com/gpu": "2"}}}
	base.Seal()
	head.Seal()
	p, err := between.Plan(base, head, nil)
	if err != nil {
		t.Fatal(err)
	}
	const inUse = "c-q: 2 cards in use: these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist)"
	if got := levelCodeMessage(p.Findings, "removal-in-use"); got != "error "+inUse+"; plan with --force-removal project=c to remove it anyway" {
		t.Errorf("without the force: %s", got)
	}
	c := tenancy.RemovalAddr{Object: tenancy.KindProject.Object("c")}
	if p, err = between.Plan(base, head, []tenancy.RemovalAddr{c}); err != nil {
		t.Fatal(err)
	}
	if got := levelCodeMessage(p.Findings, "forced-removal"); got != "warning "+inUse+"; --force-removal project=c allows it" || !p.Renderable() {
		t.Errorf("with the force: %s (renderable %v)", got, p.Renderable())
	}
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\"force_removals\": [\n      {\n        \"project\": \"c\"\n      }\n    ]") {
		t.Errorf("plan.json does not record the force:\n%s", b[:min(len(b), 3000)])
	}
	d, err := planfile.Decode("plan.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Desired.ForceRemovals) != 1 || d.Desired.ForceRemovals[0] != c || !d.Renderable() {
		t.Errorf("decoded: force %v, renderable %v", d.Desired.ForceRemovals, d.Renderable())
	}
	for _, e := range []struct {
		force []tenancy.RemovalAddr
		want  string
	}{
		{nil, `plan.json: the plan's change 1 (metadata.name of project c) has force true, but the diff of the plan's base and head gives none; make a new plan`},
		{[]tenancy.RemovalAddr{c, {Object: tenancy.KindProject.Object("a")}}, `plan.json: the plan's changes between its base and its head cannot be planned: --force-removal project=a: the head does not remove project "a"; its removals are project=c; make a new plan`},
	} {
		p.Desired.ForceRemovals = e.force
		if b, err = planfile.Encode(p); err != nil {
			t.Fatal(err)
		}
		if _, err := planfile.Decode("plan.json", b); err == nil || err.Error() != e.want {
			t.Errorf("force %v: got  %v\nwant %s", e.force, err, e.want)
		}
	}
}

// levelCodeMessage is the level and message of the finding of code in fs.
func levelCodeMessage(fs []planner.Finding, code planner.Code) string {
	for _, f := range fs {
		if f.Code == code {
			return string(f.Level) + " " + f.Message
		}
	}
	return "no " + string(code)
}

// betweenRefsPlan is the plan between two git refs of tenancyYAML, whose
// head lowers one project's gpu.deserved from 3 to 2.
func betweenRefsPlan(t *testing.T) *planner.Plan {
	t.Helper()
	base := plantest.State(t, "t.yaml", []byte(tenancyYAML))
	head := plantest.State(t, "t.yaml", []byte(strings.Replace(tenancyYAML, "gpu: {deserved: 3, limit: 4}", "gpu: {deserved: 2, limit: 4}", 1)))
	base.Source.Kind, base.Source.Commit, head.Source.Kind, head.Source.Commit = "git", "aaaaaaaaaaaaaaaa", "git", "bbbbbbbbbbbbbbbb"
	base.Seal()
	head.Seal()
	p, err := between.Plan(base, head, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
