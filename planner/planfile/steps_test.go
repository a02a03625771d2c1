package planfile_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// tampered lists edits of a plan whose file still matches its plan_id
// (Encode computes it again, as whoever edits a plan file can), and the
// refusal Decode gives each.
var tampered = []struct {
	name string
	edit func(p *planner.Plan)
	want string
}{
	{"a replaced value", func(p *planner.Plan) { p.Steps[0].Ops[2].Value = json.RawMessage("20") },
		`the plan's steps do not match its changes (the file was edited): step 1 (patch Project a): op 3 is replace /spec/queues/0/resources/gpu/deserved 20, the changes give replace /spec/queues/0/resources/gpu/deserved 2`},
	{"a tested value", func(p *planner.Plan) { p.Steps[0].Ops[1].Value = json.RawMessage("9") },
		`step 1 (patch Project a): op 2 is test /spec/queues/0/resources/gpu/deserved 9, the changes give test /spec/queues/0/resources/gpu/deserved 3`},
	{"a test removed", func(p *planner.Plan) { p.Steps[0].Ops = append(p.Steps[0].Ops[:1], p.Steps[0].Ops[2:]...) },
		`step 1 (patch Project a): op 2 is replace /spec/queues/0/resources/gpu/deserved 2, the changes give test /spec/queues/0/resources/gpu/deserved 3`},
	{"an extra op", func(p *planner.Plan) {
		p.Steps[0].Ops = append(p.Steps[0].Ops, planner.Op{Op: "replace", Path: "/spec/parent", Value: json.RawMessage(`"x"`)})
	}, `step 1 (patch Project a): op 4 (replace /spec/parent) is not one of the plan's changes`},
	{"another queue name", func(p *planner.Plan) { p.Steps[0].Ops[0].Value = json.RawMessage(`"b-q"`) },
		`step 1 (patch Project a): op 1 is test /spec/queues/0/name "b-q", the changes give test /spec/queues/0/name "a-q"`},
	{"a manifest value", func(p *planner.Plan) {
		last := &p.Steps[len(p.Steps)-1]
		last.Manifest = json.RawMessage(strings.Replace(string(last.Manifest), `"deserved":0`, `"deserved":8`, 1))
	}, `step 3 (create Project e): the manifest is {"apiVersion":"kai.resources/v1alpha1","kind":"Project","metadata":{"name":"e"},"spec":{"parent":"d","queues":[{"name":"e-q","nodepool":"h100","resources":{"gpu":{"deserved":8,`},
	{"a dropped step", func(p *planner.Plan) { p.Steps = p.Steps[1:] },
		`step 1 (patch Project b): the changes make patch Project a here`},
	{"another phase", func(p *planner.Plan) { p.Steps[1].Phase = planner.PhaseGrowDepartments },
		`step 2 (patch Project b): it is in phase "growing or new departments", its changes are in phase "growing or new projects"`},
	{"a change's before", func(p *planner.Plan) { p.Changes[0].Before = tenancy.Number(quota.MustParse("9")) },
		`the plan's changes do not apply to its snapshot (the file was edited): change 1 (update Project/a queue 0 gpu.deserved): it says the value was 9, the tenancy holds 3`},
	{"the summary", func(p *planner.Plan) { p.Summary.Change = 7 },
		`the plan's summary {Add:1 Change:7 Destroy:0 Errors:0 Warnings:0 Notes:6} is not that of its changes and findings, {Add:1 Change:2 Destroy:0 Errors:0 Warnings:0 Notes:6} (the file was edited)`},
}

func TestDecodeRefusesWhatTheChangesDoNotGive(t *testing.T) {
	for _, tc := range tampered {
		t.Run(tc.name, func(t *testing.T) {
			p, _, _ := planOf(t, add)
			tc.edit(p)
			b, err := planfile.Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			_, err = planfile.Decode("plan.json", b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %s", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "plan.json: the plan's ") || !strings.HasSuffix(err.Error(), "; make a new plan") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// renderable is derived from the findings, never trusted from the file.
func TestDecodeRefusesARenderableThatTheFindingsDeny(t *testing.T) {
	p, _, _ := planOf(t, move)
	p.Findings = append(p.Findings, planner.Finding{Code: "unsafe-order", Level: planner.LevelError, Message: "x"})
	p.Summary = planner.Summarize(p.Changes, p.Findings)
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := planfile.Decode("plan.json", b); err != nil {
		t.Fatalf("a plan with an error finding does not decode: %v", err)
	}
	forged := reseal(t, bytes.Replace(b, []byte(`"renderable": false,`), []byte(`"renderable": true,`), 1))
	_, err = planfile.Decode("plan.json", forged)
	if want := "plan.json: the plan says renderable true, but its findings say false (the file was edited); make a new plan"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// reseal computes the plan_id of edited plan.json bytes again.
func reseal(t *testing.T, b []byte) []byte {
	t.Helper()
	i := bytes.Index(b, []byte(`"plan_id": "`)) + len(`"plan_id": "`)
	blank := append(append([]byte{}, b[:i]...), b[i+64:]...)
	return append(append(append([]byte{}, b[:i]...), jsonfile.Sum(blank)...), b[i+64:]...)
}
