package commit

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

func num(n int64) tenancy.Value { return tenancy.Number(quota.FromInt(n)) }

// queueChange is a change of gpu.deserved of object's queue i on pool.
func queueChange(k tenancy.Kind, object string, i int, pool string, before, after int64) tenancy.Change {
	return tenancy.Change{Action: tenancy.ActionUpdate, Field: k.Object(object).Queue(i).Field(gpuDeserved),
		Queue: object + "-" + pool, Pool: pool, Before: num(before), After: num(after)}
}

// newProject is the changes of a new project with one queue.
func newProject(name string) []tenancy.Change {
	o := tenancy.KindProject.Object(name)
	return []tenancy.Change{
		{Action: tenancy.ActionCreate, Field: o.Field(tenancy.FieldParent), After: tenancy.String("platform")},
		{Action: tenancy.ActionCreate, Field: o.Queue(0).Field(gpuDeserved), Queue: name + "-h100", Pool: "h100", After: num(2)},
	}
}

// renamed is the destroy of project from that a moved block renames to.
func renamed(from, to string) tenancy.Change {
	c := tenancy.DestroyObject(tenancy.KindProject.Object(from))
	c.MovedTo = to
	return c
}

func TestSubject(t *testing.T) {
	limit := tenancy.QuotaFieldOf(quota.GPU, tenancy.Limit)
	ws := tenancy.KindProject.Object("workspace")
	many := newProject("inference")
	for i := range 12 {
		many = append(many, queueChange(tenancy.KindProject, "team-"+string(rune('a'+i)), 0, "h100", 1, 2))
	}
	for _, tc := range []struct {
		name string
		cs   []tenancy.Change
		want string
	}{
		{"a move", []tenancy.Change{queueChange(tenancy.KindProject, "workspace", 0, "rtx", 3, 2), queueChange(tenancy.KindProject, "benchmark", 0, "rtx", 1, 2)},
			"move 1 card from workspace to benchmark on rtx"},
		{"a new project and a change", append(newProject("inference"), queueChange(tenancy.KindProject, "workspace", 0, "rtx", 3, 2)),
			"+project inference, workspace gpu 3→2"},
		{"two fields, two pools, a new queue", []tenancy.Change{
			queueChange(tenancy.KindProject, "workspace", 0, "rtx", 3, 2),
			{Action: tenancy.ActionUpdate, Field: ws.Queue(0).Field(limit), Queue: "workspace-rtx", Pool: "rtx", After: num(4)},
			queueChange(tenancy.KindProject, "workspace", 1, "h100", 1, 0),
			{Action: tenancy.ActionCreate, NewQueue: true, Field: ws.Queue(2).Field(tenancy.FieldQueueName), Queue: "workspace-b200", Pool: "b200", After: tenancy.String("workspace-b200")},
			{Action: tenancy.ActionCreate, NewQueue: true, Field: ws.Queue(2).Field(gpuDeserved), Queue: "workspace-b200", Pool: "b200", After: num(1)},
		}, "workspace 4 changes"},
		{"two fields, one pool", []tenancy.Change{
			queueChange(tenancy.KindProject, "workspace", 0, "rtx", 3, 2),
			{Action: tenancy.ActionUpdate, Field: ws.Queue(0).Field(limit), Queue: "workspace-rtx", Pool: "rtx", Before: num(4), After: num(3)},
			{Action: tenancy.ActionCreate, NewQueue: true, Field: ws.Queue(1).Field(gpuDeserved), Queue: "workspace-b200", Pool: "b200", After: num(1)},
		}, "workspace gpu 3→2 gpu.limit 4→3 +queue workspace-b200"},
		{"a big plan, cut", many, "+project inference, team-a gpu 1→2, team-b gpu 1→2 and 10 more"},
		{"nothing fits", []tenancy.Change{queueChange(tenancy.KindProject, strings.Repeat("n", 70), 0, "rtx", 3, 2)}, "0 to add, 1 to change, 0 to destroy"},
		{"a removed project and a removed queue", []tenancy.Change{
			tenancy.DestroyObject(tenancy.KindProject.Object("legacy")),
			tenancy.DestroyQueue(ws.Queue(1), "workspace-a100", "a100"),
		}, "-project legacy, workspace -queue workspace-a100"},
		{"a rename", append(newProject("language"), renamed("nlp", "language")), "rename project nlp to language"},
		{"a rename and a removal", append(append(newProject("language"), tenancy.DestroyObject(tenancy.KindNodePool.Object("a100"))), renamed("nlp", "language")),
			"rename project nlp to language, -node pool a100"},
		// Removals, as config makes them: a removed object is one change
		// of its metadata.name to null, a removed queue one of its name.
		{"a removed project", []tenancy.Change{tenancy.DestroyObject(tenancy.KindProject.Object("legacy"))}, "-project legacy"},
		{"removed queues and a node pool", []tenancy.Change{
			tenancy.DestroyQueue(tenancy.KindDepartment.Object("research").Queue(2), "r-old", "old"),
			tenancy.DestroyQueue(tenancy.KindProject.Object("legacy").Queue(0), "", "old"),
			tenancy.DestroyObject(tenancy.KindNodePool.Object("old")),
		}, "research -queue r-old, legacy -queue legacy-old, -node pool old"},
	} {
		p := &planner.Plan{Changes: tc.cs}
		p.Summary.Change = 1
		got := Subject(p)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if n := len([]rune("quota: " + got)); n > subjectWidth {
			t.Errorf("%s: %d columns", tc.name, n)
		}
	}
}

// render --message replaces the subject; the body still lists the changes.
func TestMessageSubjectGiven(t *testing.T) {
	p := &planner.Plan{PlanID: "id", Changes: newProject("inference")}
	got := Message(p, &SplicePlan{Subject: "tenancy: onboard the inference team"})
	want := "tenancy: onboard the inference team\n\n- project inference (new): parent \"platform\"\n" +
		"- project inference queue inference-h100 (new): gpu.deserved 2\n\nPlan-Id: id\n"
	if got != want {
		t.Errorf("message:\n%q\nwant:\n%q", got, want)
	}
}

// fitting picks the count the plain search from the top picks: the most
// items whose "a, b and N more" fits, on lists of every length around the
// width and of counts that lose a digit (10, 100 items).
func TestFitting(t *testing.T) {
	slow := func(items []string, room int) int {
		for k := len(items) - 1; k > 0; k-- {
			if utf8.RuneCountInString(strings.Join(items[:k], ", ")+fmt.Sprintf(" and %d more", len(items)-k)) <= room {
				return k
			}
		}
		return 0
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		items := make([]string, r.IntN(120))
		for i := range items {
			items[i] = strings.Repeat("é", r.IntN(12))
		}
		room := r.IntN(80)
		if got, want := fitting(items, room), slow(items, room); got != want {
			t.Fatalf("fitting(%q, %d) = %d, want %d", items, room, got, want)
		}
	}
}
