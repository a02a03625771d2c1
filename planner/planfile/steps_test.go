package planfile_test

import (
	"bytes"
	"encoding/json"
	"errors"
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
// refusal Decode gives each: planned again, its inputs make other steps,
// changes or a summary.
var tampered = []struct {
	name string
	edit func(p *planner.Plan)
	want string
}{
	{"a replaced value", func(p *planner.Plan) { p.Steps[0].Ops[2].Value = json.RawMessage("20") },
		`the plan's step 1 (patch Project a): op 3 is replace /spec/queues/0/resources/gpu/deserved 20, the changes give replace /spec/queues/0/resources/gpu/deserved 2`},
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
		`the plan's change 1 says gpu.deserved of queue a-q was 9, but the plan's snapshot holds 3`},
	{"a change's after", func(p *planner.Plan) { p.Changes[1].After = tenancy.Number(quota.MustParse("40")) },
		`the plan's change 2 sets gpu.deserved of queue b-q to 40, but desired.hcl gives 2`},
	{"a change's source", func(p *planner.Plan) { p.Changes[1].Source.Line = 9 },
		`the plan's change 2 (gpu.deserved of queue b-q) has source desired.hcl:9,24-8,25 (bytes 118-119), but desired.hcl gives desired.hcl:8,24-8,25 (bytes 118-119)`},
	{"a dropped change", func(p *planner.Plan) { p.Changes = p.Changes[1:] },
		`the plan's change 1 (gpu.deserved of queue b-q: 1 -> 2) is not the one desired.hcl gives there, gpu.deserved of queue a-q: 3 -> 2`},
	{"an added change", func(p *planner.Plan) { p.Changes = append(p.Changes, p.Changes[0]) },
		`the plan has 15 changes, but desired.hcl gives 14: change 15 (gpu.deserved of queue a-q: 3 -> 2) is not one of them`},
	{"the summary", func(p *planner.Plan) { p.Summary.Change = 7 },
		`the plan's summary is 1 to add, 7 to change, 0 to destroy, 0 errors, 0 warnings, 6 notes, but its changes and findings give 1 to add, 2 to change, 0 to destroy, 0 errors, 0 warnings, 6 notes`},
	{"order_verified", func(p *planner.Plan) { p.OrderVerified = false },
		`the plan says order_verified false, but verifying its steps again gives true`},
	{"a finding's message", func(p *planner.Plan) { p.Findings[0].Message = "all is well" },
		`the plan's finding 1 (note namespaces-not-read) has message "all is well", but re-checking it gives "namespace checks not run: namespaces not read (git snapshot without a cluster) — whether each project's namespace exists and is labelled kai/project=<project> was not checked"`},
	{"a dropped finding", func(p *planner.Plan) { p.Findings = p.Findings[:len(p.Findings)-1]; p.Summary.Notes-- },
		`re-checking the plan finds the note zero-weight "`},
	{"a finding's location", func(p *planner.Plan) {
		for i := range p.Findings {
			if len(p.Findings[i].Where) > 0 {
				p.Findings[i].Where[0].Line = 1
				return
			}
		}
	},
		`the plan's finding 4 (note zero-weight) has where [t.yaml:1:73], but re-checking it gives [t.yaml:19:73]`},
	{"a dropped variable", func(p *planner.Plan) { p.Desired.Variables = map[string]string{"x": "1"} },
		`the plan's resolved variables cannot be set again: <the plan's variables>:1,1-2: Value for undeclared variable; The file <the plan's variables> assigns a value to "x", but desired.hcl declares no variable of that name; add a variable block or remove the value.`},
	{"a variable that is code", func(p *planner.Plan) { p.Desired.Variables = map[string]string{"x = 1\ny": "1"} },
		`the plan's variable "x = 1\ny" is not a variable name`},
	{"the desired source", func(p *planner.Plan) {
		p.Desired.Source = strings.Replace(p.Desired.Source, "deserved = 2", "deserved = 3", 1)
	},
		`the plan's change 1 (gpu.deserved of queue a-q: 3 -> 2) is not the one desired.hcl gives there, gpu.deserved of queue b-q: 1 -> 2`},
	{"a desired source over the cap", func(p *planner.Plan) { p.Desired.Source += strings.Repeat("#", 64_000_000) },
		`the plan's desired.hcl: 64000201 bytes, more than the 64 MB krmplan reads of a desired file`},
	{"a desired source that does not load", func(p *planner.Plan) { p.Desired.Source += "bogus {}\n" },
		`the plan's desired file desired.hcl does not load: desired.hcl:17,1-6: Unsupported block type; Blocks of type "bogus" are not expected here.`},
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
			var de *planfile.DiffersError
			if !errors.As(err, &de) || de.File != "plan.json" || !strings.HasSuffix(err.Error(), "; make a new plan") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// A step that lists a million changes (the file's plan_id made right) is
// refused naming the first ten and how many more, not a message of
// megabytes.
func TestDecodeClipsAStepsChanges(t *testing.T) {
	p, _, _ := planOf(t, add)
	for i := range 1_000_000 {
		p.Steps[0].Changes = append(p.Steps[0].Changes, 100+i)
	}
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "plan.json: the plan's step 1 (patch Project a): it applies changes [0, 100, 101, 102, 103, 104, 105, 106, 107, 108 and 999991 more], the changes make it apply [0]; make a new plan"
	if _, err := planfile.Decode("plan.json", b); err == nil || err.Error() != want {
		t.Errorf("\n got %.400v\nwant %s", err, want)
	}
}

// reseal computes the plan_id of edited plan.json bytes again.
func reseal(t *testing.T, b []byte) []byte {
	t.Helper()
	i := bytes.Index(b, []byte(`"plan_id": "`)) + len(`"plan_id": "`)
	blank := append(append([]byte{}, b[:i]...), b[i+64:]...)
	return append(append(append([]byte{}, b[:i]...), jsonfile.Sum(blank)...), b[i+64:]...)
}
