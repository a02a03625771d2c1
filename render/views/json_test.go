package views

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

func jsonOf(t *testing.T, p *planner.Plan) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := JSON(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestJSONGolden(t *testing.T) {
	for _, name := range []string{"move-one-card", "oversubscribed"} {
		t.Run(name, func(t *testing.T) {
			plantest.Golden(t, "golden", name+".json", jsonOf(t, plantest.SamplePlan(t, name+".hcl")))
		})
	}
}

func TestJSONShape(t *testing.T) {
	p := plantest.SamplePlan(t, "oversubscribed.hcl")
	var doc struct {
		FormatVersion   string `json:"format_version"`
		PlanID          string `json:"plan_id"`
		Renderable      bool   `json:"renderable"`
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string        `json:"actions"`
				Before  json.RawMessage `json:"before"`
				After   json.RawMessage `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
		Diagnostics []struct {
			Code     string `json:"code"`
			Severity string `json:"severity"`
			Summary  string `json:"summary"`
			Range    *struct {
				Filename string             `json:"filename"`
				Start    struct{ Line int } `json:"start"`
			} `json:"range"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(jsonOf(t, p), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.FormatVersion != JSONFormatVersion || doc.PlanID != p.PlanID || doc.Renderable {
		t.Errorf("header: %+v", doc)
	}
	if len(doc.ResourceChanges) != 1 || doc.ResourceChanges[0].Address != "project.benchmark" ||
		strings.Join(doc.ResourceChanges[0].Change.Actions, ",") != "update" {
		t.Fatalf("resource_changes: %+v", doc.ResourceChanges)
	}
	if !strings.Contains(compact(doc.ResourceChanges[0].Change.Before), `"gpu":{"deserved":1,`) ||
		!strings.Contains(compact(doc.ResourceChanges[0].Change.After), `"gpu":{"deserved":2,`) {
		t.Errorf("before/after: %s / %s", doc.ResourceChanges[0].Change.Before, doc.ResourceChanges[0].Change.After)
	}
	d := doc.Diagnostics[0]
	if d.Code != "projects-over-department" || d.Severity != "error" || d.Range == nil || d.Range.Filename != "tenancy.yaml" || d.Range.Start.Line != 40 ||
		d.Summary != "platform-rtx: the projects are guaranteed 5 cards in total, but the department only has 4 cards — 1 card of those guarantees cannot be met" {
		t.Errorf("first diagnostic: %+v", d)
	}
}

// TestJSONCreate: a new object is ["create"] with a null before.
func TestJSONCreate(t *testing.T) {
	p := plantest.Plan(t, plantest.SampleState(t), "d.hcl", []byte(`project "new" {
  department = "platform"
  queue "rtx-pro-6000" {
    name = "new-rtx"
  }
}
`))
	doc := NewPlanJSON(p)
	rc := doc.ResourceChanges[0]
	if rc.Address != "project.new" || strings.Join(rc.Change.Actions, ",") != "create" || string(rc.Change.Before) != "null" ||
		!strings.Contains(string(rc.Change.After), `"name":"new-rtx"`) {
		t.Errorf("%+v", rc)
	}
	st := doc.Steps[len(doc.Steps)-1]
	if st.Action != string(planner.StepCreate) || st.Address != "project.new" || len(st.Manifest) == 0 || st.Ops != nil {
		t.Errorf("step: %+v", st)
	}
}

// TestJSONDocumented: every key the JSON views write is described in
// docs/json-format.md, so the schema and its documentation move together.
// Keys inside before, after, manifest and ops are KRM's and RFC 6902's.
func TestJSONDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/json-format.md")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				keys[k] = true
				switch k {
				case "before", "after", "manifest", "ops", "variables":
					if _, isMap := c.(map[string]any); isMap || k == "ops" {
						continue
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	for _, p := range []*planner.Plan{plantest.SamplePlan(t, "move-one-card.hcl"), plantest.SamplePlan(t, "oversubscribed.hcl"), plantest.DemoPlan(t, "move-h100-cards.hcl")} {
		var v any
		if err := json.Unmarshal(jsonOf(t, p), &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	var check any
	b, _ := json.Marshal(CheckJSON{Source: CheckSource{Repo: "r", Ref: "x", Commit: "c"}, Diagnostics: DiagnosticsOf([]planner.Finding{{Code: "c", Level: planner.LevelError,
		Object: tenancy.KindProject.Object("p"), Queue: "q", Pool: "p", Resource: "gpu", Where: []tenancy.Location{{File: "f", Line: 1}, {File: "g", Line: 2}}}})})
	if err := json.Unmarshal(b, &check); err != nil {
		t.Fatal(err)
	}
	walk(check)
	walk(fullFairShareDoc())
	var missing []string
	for k := range keys {
		if !bytes.Contains(doc, []byte("`"+k+"`")) {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/json-format.md does not describe: %s", strings.Join(missing, ", "))
	}
}

// compact is the JSON b without insignificant space.
func compact(b json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}
