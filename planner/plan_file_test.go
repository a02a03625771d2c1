package planner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/snapshot"
)

// movePlan plans a over b's card in department d: Project a and b change,
// Project c and Department d do not.
func movePlan(t *testing.T) *Plan {
	t.Helper()
	p, _ := movePlanFrom(t)
	return p
}

// movePlanFrom is movePlan with the state it was made from.
func movePlanFrom(t *testing.T) (*Plan, *snapshot.State) {
	t.Helper()
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}"))+
		proj("a", "d", "", q("a-q", "h100", "{deserved: 3, limit: 4}"))+proj("b", "d", "", q("b-q", "h100", "{deserved: 1, limit: 4}"))+
		proj("c", "d", "", q("c-q", "h100", "{deserved: 0, limit: 4}")))
	p, diags := Build(before, &config.Overlay{File: "desired.hcl", Projects: []config.Project{
		{Name: "a", Queues: []config.Queue{{Pool: "h100", GPU: &config.Resource{Deserved: num("2")}}}},
		{Name: "b", Queues: []config.Queue{{Pool: "h100", GPU: &config.Resource{Deserved: num("2")}}}},
	}})
	if diags.HasErrors() || !p.Renderable {
		t.Fatalf("plan: %v %q", diags, messages(p.Findings))
	}
	return p, before
}

// The plan id is the sum of the file's bytes with plan_id empty, and File
// is Marshal's bytes without marshalling again.
func TestPlanIDIsTheFilesSum(t *testing.T) {
	p := movePlan(t)
	if !bytes.Equal(p.File(), p.Marshal()) {
		t.Fatal("File and Marshal differ")
	}
	blank := bytes.Replace(p.File(), []byte(`"plan_id": "`+p.PlanID+`"`), []byte(`"plan_id": ""`), 1)
	if got := jsonfile.Sum(blank); got != p.PlanID {
		t.Fatalf("plan_id %s, the sum of the file with it empty %s", p.PlanID, got)
	}
	d, err := Decode("plan.json", p.File())
	if err != nil || !bytes.Equal(d.File(), p.File()) || d.PlanID != p.PlanID {
		t.Fatalf("decode: %v", err)
	}
	want := "plan.json: the plan's content does not match its plan_id " + p.PlanID[:12] + " (it was changed after it was made); make a new plan"
	for name, edit := range map[string]func(string) string{
		"a value":    func(s string) string { return strings.Replace(s, `"deserved": 3`, `"deserved": 9`, 1) },
		"whitespace": func(s string) string { return strings.Replace(s, `"deserved": 3`, `"deserved":  3`, 1) },
		"the file":   func(s string) string { return strings.Replace(s, `"file": "desired.hcl"`, `"file": "other.hcl"`, 1) },
		"the members' order": func(s string) string {
			return strings.Replace(s, `"plan_id": "`+p.PlanID+`",`+"\n  "+`"renderable": true,`, `"renderable": true,`+"\n  "+`"plan_id": "`+p.PlanID+`",`, 1)
		},
	} {
		if _, err := Decode("plan.json", []byte(edit(string(p.File())))); err == nil || err.Error() != want {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// The embedded snapshot keeps the positions of the changed objects' values
// only; every object keeps its file and line, and the state planned from
// is not changed.
func TestEmbeddedSnapshotKeepsChangedPositions(t *testing.T) {
	p, before := movePlanFrom(t)
	for _, pr := range p.Snapshot.Projects {
		o := pr.Origin
		changed := pr.Metadata.Name != "c"
		if o == nil || o.File != "t.yaml" || o.Line == 0 || (len(o.Values) > 0) != changed {
			t.Errorf("project %s: origin %+v", pr.Metadata.Name, o)
		}
	}
	if o := p.Snapshot.Departments[0].Origin; o == nil || o.Line == 0 || len(o.Values) != 0 {
		t.Errorf("department d: origin %+v", o)
	}
	if pos := p.Snapshot.Projects[0].Origin.Values["/spec/queues/0/resources/gpu/deserved"]; pos.Text != "3" {
		t.Errorf("a's deserved: %+v", pos)
	}
	for _, pr := range before.Projects {
		if len(pr.Origin.Values) == 0 {
			t.Errorf("Build trimmed the positions of project %s in the state it planned from", pr.Metadata.Name)
		}
	}
}
