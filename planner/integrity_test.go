package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
)

// reseal recomputes the plan id after an edit, as someone who tampers with
// a plan file can.
func reseal(p *Plan) []byte {
	p.seal()
	return p.File()
}

func TestDecodeRefusesStepsThatDisagreeWithChanges(t *testing.T) {
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}"))+
		proj("a", "d", "", q("a-q", "h100", "{deserved: 3, limit: 4}"))+proj("b", "d", "", q("b-q", "h100", "{deserved: 1, limit: 4}")))
	ov := &config.Overlay{File: "desired.hcl",
		Projects: []config.Project{
			{Name: "a", Queues: []config.Queue{{Pool: "h100", GPU: &config.Resource{Deserved: num("2")}}}},
			{Name: "b", Queues: []config.Queue{{Pool: "h100", GPU: &config.Resource{Deserved: num("2")}}}},
			{Name: "c", Department: &config.Str{Value: "d"}, Queues: []config.Queue{{Pool: "h100", Name: &config.Str{Value: "c-q"}}}},
		}}
	fresh := func() *Plan {
		p, diags := Build(before, ov)
		if diags.HasErrors() || !p.Renderable {
			t.Fatalf("plan: %v %q", diags, messages(p.Findings))
		}
		return p
	}
	if _, err := Decode("plan.json", fresh().Marshal()); err != nil {
		t.Fatalf("an untouched plan is refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(p *Plan)
		want string
	}{
		{"a replaced value", func(p *Plan) { p.Steps[0].Ops[2].Value = json.RawMessage("20") },
			`step 1 (patch Project a): op 3 (replace /spec/queues/0/resources/gpu/deserved): the value 20 is not the change's 2`},
		{"a tested value", func(p *Plan) { p.Steps[0].Ops[1].Value = json.RawMessage("9") },
			`step 1 (patch Project a): op 2 (test /spec/queues/0/resources/gpu/deserved): the value 9 is not the change's 3`},
		{"a test removed", func(p *Plan) { p.Steps[0].Ops = append(p.Steps[0].Ops[:1], p.Steps[0].Ops[2:]...) },
			`step 1 (patch Project a): /spec/queues/0/resources/gpu/deserved is replaced without a test of the value as read`},
		{"an extra op", func(p *Plan) {
			p.Steps[0].Ops = append(p.Steps[0].Ops, Op{Op: opReplace, Path: "/spec/parent", Value: json.RawMessage(`"x"`)})
		}, `step 1 (patch Project a): op 4 (replace /spec/parent): not one of the plan's changes`},
		{"another queue name", func(p *Plan) { p.Steps[0].Ops[0].Value = json.RawMessage(`"b-q"`) },
			`step 1 (patch Project a): op 1 (test /spec/queues/0/name): the queue name tested is not the snapshot's`},
		{"a manifest value", func(p *Plan) {
			last := &p.Steps[len(p.Steps)-1]
			last.Manifest = json.RawMessage(strings.Replace(string(last.Manifest), `"deserved":0`, `"deserved":8`, 1))
		}, `(create Project c): the manifest's /spec/queues/0/resources/gpu/deserved: holds 8, the change says 0`},
		{"a dropped step", func(p *Plan) { p.Steps = p.Steps[1:] },
			`change gpu.deserved of Project a is in 0 steps, not in exactly one`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fresh()
			tc.edit(p)
			_, err := Decode("plan.json", reseal(p))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %s", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "plan.json: the plan's steps do not match its changes (the file was edited): ") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
