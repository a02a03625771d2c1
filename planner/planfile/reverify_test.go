package planfile_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/internal/stacks"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
)

// overDepartment guarantees project a 4 cards: the department's projects
// then hold 5 of its 4, an error.
const overDepartment = "project \"a\" {\n  queue \"h100\" {\n    gpu = { deserved = 4 }\n  }\n}\n"

// overError is the error of overDepartment's plan.
const overError = "d-q: the projects are guaranteed 5 cards in total, but the department only has 4 cards — 1 card of those guarantees cannot be met"

// planAny is planFrom without the state.
func planAny(t *testing.T, desired string, vars ...string) (*planner.Plan, []byte) {
	t.Helper()
	p, b, _ := planFrom(t, desired, vars...)
	return p, b
}

// decodeErr decodes b and returns its error's text, "" for none.
func decodeErr(b []byte) string {
	if _, err := planfile.Decode("plan.json", b); err != nil {
		return err.Error()
	}
	return ""
}

// A plan with an error whose file is made to say it renders, in every way
// an editor can, is refused naming the error re-checking finds.
func TestDecodeRefusesAForgedRenderable(t *testing.T) {
	p, file := planAny(t, overDepartment)
	if p.Renderable() || decodeErr(file) != "" {
		t.Fatalf("the plan renders, or does not decode: %v", decodeErr(file))
	}
	flipped := reseal(t, bytes.Replace(file, []byte(`"renderable": false,`), []byte(`"renderable": true,`), 1))
	want := "plan.json: the plan says renderable, but re-checking it finds 1 error: " + overError + "; make a new plan"
	if got := decodeErr(flipped); got != want {
		t.Errorf("renderable flipped:\n got %s\nwant %s", got, want)
	}
	// The error finding dropped as well, and the summary made to agree.
	p.Findings = p.Findings[1:]
	p.Summary = planner.Summarize(p.Changes, p.Findings)
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeErr(b); got != want {
		t.Errorf("error dropped:\n got %s\nwant %s", got, want)
	}
	// renderable left false, the error dropped: the findings still claim
	// a plan that renders.
	b = reseal(t, bytes.Replace(b, []byte(`"renderable": true,`), []byte(`"renderable": false,`), 1))
	want = "plan.json: the plan holds no error finding, but re-checking it finds 1 error: " + overError + "; make a new plan"
	if got := decodeErr(b); got != want {
		t.Errorf("error dropped, renderable false:\n got %s\nwant %s", got, want)
	}
}

// An after-value raised in the changes and the steps together (a plan that
// is consistent in itself) is refused: desired.hcl gives another value.
func TestDecodeRefusesARaisedValue(t *testing.T) {
	_, file := planAny(t, move)
	raised := raise(t, file)
	want := "plan.json: the plan's change 1 sets gpu.deserved of queue a-q to 40, but desired.hcl gives 2; make a new plan"
	if got := decodeErr(reseal(t, []byte(raised))); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// An object renamed to shell code in the snapshot, the changes and the
// steps is refused: desired.hcl names another object. A plan made whole
// from such a snapshot and a desired file that names it (as consistent as
// an editor can make it), with its errors dropped, is refused too:
// re-checking finds the name invalid.
func TestDecodeRefusesARenamedObject(t *testing.T) {
	const evil = "a$(touch pwned)"
	p, _ := planAny(t, move)
	p.Snapshot.Projects[0].Metadata.Name = evil
	p.Snapshot.Seal() // as an editor who recomputes the digest
	for i := range p.Changes {
		if p.Changes[i].Field.Object.Name == "a" {
			p.Changes[i].Field.Object.Name = evil
		}
	}
	for i := range p.Steps {
		if p.Steps[i].Object.Name == "a" {
			p.Steps[i].Object.Name = evil
		}
	}
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `plan.json: the plan's desired file desired.hcl does not plan against its snapshot: desired.hcl:1,1-12: Missing department; project "a" is not in the snapshot: a new project needs department = "<name>", or department = "" for a root project (no department: its queues are root queues beside the departments).; make a new plan`
	if got := decodeErr(b); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}

	ov, diags := config.Load("desired.hcl", []byte(strings.Replace(move, `project "a"`, `project "`+evil+`"`, 1)), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	forged, diags := planner.Build(p.Snapshot, ov)
	if diags.HasErrors() || forged.Renderable() {
		t.Fatalf("the plan of the renamed object: %v, renderable %v", diags, forged.Renderable())
	}
	var kept []planner.Finding
	for _, f := range forged.Findings {
		if f.Level != planner.LevelError {
			kept = append(kept, f)
		}
	}
	forged.Findings, forged.OrderVerified = kept, true
	forged.Summary = planner.Summarize(forged.Changes, forged.Findings)
	if b, err = planfile.Encode(forged); err != nil {
		t.Fatal(err)
	}
	want = "plan.json: the plan says renderable, but re-checking it finds 1 error: project a$(touch pwned): the name is not a valid Kubernetes object name: "
	if got := decodeErr(b); !strings.HasPrefix(got, want) {
		t.Errorf("\n got %s\nwant %s…", got, want)
	}
}

// The plan's snapshot is state.json's bytes, read as state.json is: a
// value changed in it, the plan_id recomputed, is refused by the
// snapshot's digest; one whose digest is recomputed too is planned again,
// and refused for the change it makes.
func TestDecodeChecksTheSnapshotsDigest(t *testing.T) {
	_, file := planAny(t, move)
	edited := reID(t, bytes.Replace(file, []byte(`"deserved":1,`), []byte(`"deserved":2,`), 1))
	want := "plan.json: the plan's snapshot is not one krmplan takes: the digest does not match the content (the file was changed after the snapshot was taken); make a new plan"
	if got := decodeErr(edited); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	unindented := reID(t, bytes.Replace(file, []byte("\n      {\"metadata\""), []byte("\n {\"metadata\""), 1))
	want = "plan.json: not a krmplan plan: line 202: /snapshot: not indented as plan.json embeds state.json (two spaces more than state.json's own lines)"
	if got := decodeErr(unindented); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// An error of the snapshot's decoding names the file's line and the
	// member's pointer.
	unknown := reID(t, bytes.Replace(file, []byte(`{"metadata":{"name":"a"},"spec":{`), []byte(`{"metadata":{"name":"a"},"x":1,"spec":{`), 1))
	want = `plan.json: the plan's snapshot is not one krmplan takes: line 208: /snapshot/projects/0: unknown key "x"; make a new plan`
	if got := decodeErr(unknown); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// Something after it, where no pointer applies, names the member.
	trailing := reID(t, append(bytes.Clone(bytes.TrimSuffix(file, []byte("\n  }\n}\n"))), "\n  } 1\n}\n"...))
	want = fmt.Sprintf("plan.json: the plan's snapshot is not one krmplan takes: line %d: /snapshot: invalid character '1' after top-level value; make a new plan", bytes.Count(file, []byte("\n"))-1)
	if got := decodeErr(trailing); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// Given twice, it is refused.
	i := bytes.Index(file, []byte(",\n  \"snapshot\": "))
	twice := reID(t, append(append(append([]byte{}, file[:len(file)-3]...), file[i:len(file)-3]...), "\n}\n"...))
	want = fmt.Sprintf("plan.json: not a krmplan plan: line %d: /snapshot: duplicate object member name", bytes.Count(file[:len(file)-3], []byte("\n"))+2)
	if got := decodeErr(twice); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if got := decodeErr(file); got != "" {
		t.Fatalf("the file: %s", got)
	}
	p, _ := planAny(t, move)
	five := quota.MustParse("5")
	p.Snapshot.Projects[1].Spec.Queues[0].Resources.GPU.Deserved = &five
	p.Snapshot.Seal()
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	want = "plan.json: the plan's change 2 says gpu.deserved of queue b-q was 1, but the plan's snapshot holds 5; make a new plan"
	if got := decodeErr(b); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// reID is plan.json bytes b with their plan_id recomputed, as an editor
// who changed them can.
func reID(t *testing.T, b []byte) []byte {
	t.Helper()
	old := regexp.MustCompile(`"plan_id": "([0-9a-f]{64})"`).FindSubmatch(b)
	if old == nil {
		t.Fatal("no plan_id")
	}
	blank := bytes.Replace(b, old[0], []byte(`"plan_id": ""`), 1)
	return bytes.Replace(b, old[1], []byte(jsonfile.Sum(blank)), 1)
}

// The plan's snapshot is read with the rules state.json is read with
// (snapshot.State.Check): a repository profile whose placement leaves the
// repository, or a node with a negative card count, edited into a plan and
// its plan_id recomputed, is refused before anything is planned.
func TestDecodeChecksTheSnapshot(t *testing.T) {
	for _, c := range []struct {
		edit func(s *snapshot.State)
		want string
	}{
		{func(s *snapshot.State) {
			s.Profile = &profile.Profile{File: ".krmplan.hcl", Placement: &profile.Placement{Project: "../elsewhere.yaml"}}
		}, `its repository profile: .krmplan.hcl: placement project "../elsewhere.yaml" is not a clean path inside the repository, relative to its root`},
		{func(s *snapshot.State) {
			s.Nodes = []snapshot.Node{{Name: "n", GPUCapacity: quota.MustParse("-8")}}
		}, "node n: gpuCapacity is -8; a card count cannot be negative"},
	} {
		p, _ := planAny(t, move)
		c.edit(p.Snapshot)
		p.Snapshot.Seal()
		b, err := planfile.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		want := "plan.json: the plan's snapshot is not one krmplan takes: " + c.want + "; make a new plan"
		if got := decodeErr(b); got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	}
}

// A plan without a desired file places its new objects where its changes
// say: a file that desired.hcl's file = could not name (git's own data, a
// file for an object that is already written elsewhere) is refused.
func TestDecodeChecksThePlacementOfChanges(t *testing.T) {
	made, _ := planAny(t, add)
	for _, c := range []struct{ object, file, want string }{
		{"e", ".git/x.yaml", `file = ".git/x.yaml": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (a .git segment is git's own data, not a file of the repository)`},
		{"a", "other.yaml", `Object already placed: Project/a is already written in t.yaml; file = "other.yaml" only places a new object (a plan never moves objects between files)`},
	} {
		p, err := planner.FromChanges(made.Snapshot, slices.Clone(made.Changes))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range p.Changes {
			if p.Changes[i].Field.Object.Name == c.object {
				p.Changes[i].File = c.file
				n++
			}
		}
		if n == 0 {
			t.Fatalf("no change of %s", c.object)
		}
		file, err := planfile.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		want := "plan.json: the plan's changes cannot be planned against its snapshot: change "
		if got := decodeErr(file); !strings.HasPrefix(got, want) || !strings.Contains(got, c.want+"; make a new plan") {
			t.Errorf("%s in %s:\n got %s\nwant %s…%s; make a new plan", c.object, c.file, got, want, c.want)
		}
	}
}

// Variables of every type are re-evaluated from the values plan resolved:
// the plan decodes to the same bytes; another value is refused.
func TestDecodeReevaluatesVariables(t *testing.T) {
	desired := `variable "cards" { type = number }
variable "pool" {
  type    = string
  default = "h100"
}
variable "names" { default = ["a", "b"] }
variable "by" {
  type    = map(number)
  default = { a = 2, b = 2 }
}
variable "on" { default = true }
project "a" {
  queue "h100" {
    gpu = { deserved = var.by[var.names[0]] * (var.on ? 1 : 0) }
  }
}
project "b" {
  queue "h100" {
    gpu = { deserved = var.cards - 1 }
  }
}
`
	p, file := planAny(t, desired, "cards=3")
	if want := `map[by:{ a = 2, b = 2 } cards:3 names:["a", "b"] on:true pool:"h100"]`; fmtMap(p.Desired.Variables) != want {
		t.Fatalf("variables %s, want %s", fmtMap(p.Desired.Variables), want)
	}
	d, err := planfile.Decode("plan.json", file)
	if err != nil {
		t.Fatal(err)
	}
	again, err := planfile.Encode(d)
	if err != nil || !bytes.Equal(again, file) {
		t.Fatalf("the decoded plan encodes to other bytes (%v)", err)
	}
	edited := reseal(t, bytes.Replace(file, []byte(`"cards": "3"`), []byte(`"cards": "41"`), 1))
	want := "plan.json: the plan's change 2 sets gpu.deserved of queue b-q to 2, but desired.hcl gives 40; make a new plan"
	if got := decodeErr(edited); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// A variable left to its default is evaluated again from the default,
// exactly: 1/3 has more digits than a literal may. A --var value with as
// many cannot be set again, and the plan does not render (README: Render
// re-verifies).
func TestDecodeEvaluatesDefaultsAgain(t *testing.T) {
	third := "variable \"x\" {\n  default = 1/3\n}\n" + move
	if _, file := planAny(t, third); decodeErr(file) != "" {
		t.Errorf("a default of 1/3: %s", decodeErr(file))
	}
	_, file := planAny(t, third, "x=2/3")
	want := "plan.json: the plan's resolved variables cannot be set again: <the plan's variables>:1,5-41: Number out of range; The number 0.6666666666666666666666666666666667 has more than 18 digits after the decimal point"
	if got := decodeErr(file); !strings.HasPrefix(got, want) {
		t.Errorf("--var x=2/3:\n got %s\nwant %s…", got, want)
	}
}

// fmtMap prints a map with sorted keys.
func fmtMap(m map[string]string) string {
	var b strings.Builder
	b.WriteString("map[")
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + ":" + m[k])
	}
	return b.String() + "]"
}

// A plan without a desired file (made from changes, as a plan between two
// git refs will be) is planned again from its changes.
func TestDecodePlansChangesWithoutADesiredFile(t *testing.T) {
	made, _ := planAny(t, add)
	p, err := planner.FromChanges(made.Snapshot, made.Changes)
	if err != nil {
		t.Fatal(err)
	}
	file, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := planfile.Decode("plan.json", file)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := planfile.Encode(d); err != nil || !bytes.Equal(again, file) {
		t.Fatalf("the decoded plan encodes to other bytes (%v)", err)
	}
	// Its changes are its input: raised in the changes and the steps
	// together, re-checking finds what the raise breaks.
	raised := reseal(t, raise(t, file))
	want := "plan.json: the plan says renderable, but re-checking it finds 2 errors: "
	if got := decodeErr(raised); !strings.HasPrefix(got, want) {
		t.Errorf("\n got %s\nwant %s…", got, want)
	}
}

// raise sets the first change's after-value, 2, and the step's replace of
// it to 40 (not resealed).
func raise(t *testing.T, file []byte) []byte {
	t.Helper()
	s := strings.Replace(string(file), "\"after\": 2,\n      \"source\"", "\"after\": 40,\n      \"source\"", 1)
	s = strings.Replace(s, "\"resource\": \"gpu\",\n      \"shrinks\": true\n", "\"resource\": \"gpu\"\n", 1)
	s = strings.Replace(s, "\"op\": \"replace\",\n          \"path\": \"/spec/queues/0/resources/gpu/deserved\",\n          \"value\": 2", "\"op\": \"replace\",\n          \"path\": \"/spec/queues/0/resources/gpu/deserved\",\n          \"value\": 40", 1)
	if strings.Count(s, "40") < strings.Count(string(file), "40")+2 {
		t.Fatal("the edit did not apply")
	}
	return []byte(s)
}

// A value of megabytes in an edited file is shown cut in the refusal.
func TestDecodeClipsLongValues(t *testing.T) {
	p, _ := planAny(t, move)
	p.Steps[0].Ops[0].Value = json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeErr(b)
	want := `plan.json: the plan's step 1 (patch Project a): op 1 is test /spec/queues/0/name "` + strings.Repeat("x", 199) + `… (1048578 bytes), the changes give test /spec/queues/0/name "a-q"; make a new plan`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// stillDecoding is the stacks of the goroutines, other than the caller's,
// that are decoding an embedded snapshot (in embeddedState or
// decodeEmbedded, which a member's goroutine calls): not the goroutine's
// own function, which is still on its stack for a moment after it closed
// its done channel, while it returns.
func stillDecoding() []string {
	var out []string
	for _, f := range []string{"embeddedState", "decodeEmbedded"} {
		out = append(out, stacks.RunningIn("github.com/krmplan/krmplan/planner/planfile."+f)...)
	}
	return out
}

// TestDecodeOfAnEditedPlanLeavesNothingRunning: the embedded snapshot is
// decoded on a goroutine of its own while the rest of the file is read;
// when the file is refused before the snapshot is needed (edited after it
// was made), Decode returns with that decoding ended (Decode's deferred
// t.wait: without it this fails, the snapshot of 1,000 projects still
// being decoded).
func TestDecodeOfAnEditedPlanLeavesNothingRunning(t *testing.T) {
	// 1,000 projects: the snapshot takes about 100 ms to decode, the
	// refusal of an edited file (a sum of its bytes) a few: a decoding
	// left running is still running when the test looks.
	p, _ := plantest.Generated(t, 1000)
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte(`"order_verified": true`), []byte(`"order_verified": false`), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("the plan has no order_verified true to edit")
	}
	id := b[bytes.Index(b, []byte(`"plan_id": "`))+len(`"plan_id": "`):][:12]
	want := "plan.json: the plan's content does not match its plan_id " + string(id) + " (it was changed after it was made); make a new plan"
	if got := decodeErr(edited); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if left := stillDecoding(); len(left) > 0 {
		t.Errorf("%d goroutines still decode the plan's snapshot after Decode, the first:\n%s", len(left), left[0])
	}
}
