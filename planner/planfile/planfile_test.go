package planfile_test

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// tenancyYAML is one pool, department d and its projects a, b and c.
const tenancyYAML = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: h100}
spec: {labelKey: gpu, labelValue: h100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: d}
spec:
  queues:
    - {name: d-q, nodepool: h100, resources: {gpu: {deserved: 4, limit: 4}, cpu: {deserved: -1, limit: -1}, memory: {deserved: -1, limit: -1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec:
  parent: d
  queues:
    - {name: a-q, nodepool: h100, resources: {gpu: {deserved: 3, limit: 4}, cpu: {deserved: -1, limit: -1}, memory: {deserved: -1, limit: -1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: b}
spec:
  parent: d
  queues:
    - {name: b-q, nodepool: h100, resources: {gpu: {deserved: 1, limit: 4}, cpu: {deserved: -1, limit: -1}, memory: {deserved: -1, limit: -1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: c}
spec:
  parent: d
  queues:
    - {name: c-q, nodepool: h100, resources: {gpu: {deserved: 0, limit: 4}, cpu: {deserved: -1, limit: -1}, memory: {deserved: -1, limit: -1}}}
`

// move moves a card of a's to b; add also creates project e and its queue.
const (
	move = "project \"a\" {\n  queue \"h100\" {\n    gpu = { deserved = 2 }\n  }\n}\nproject \"b\" {\n  queue \"h100\" {\n    gpu = { deserved = 2 }\n  }\n}\n"
	add  = move + "project \"e\" {\n  department = \"d\"\n  queue \"h100\" {\n    name = \"e-q\"\n  }\n}\n"
)

// planOf plans desired against the fixture tenancy, a plan that renders,
// and returns the plan, its file and the state it was made from.
func planOf(t *testing.T, desired string) (*planner.Plan, []byte, *snapshot.State) {
	t.Helper()
	p, b, before := planFrom(t, desired)
	if !p.Renderable() {
		t.Fatalf("plan: %+v", p.Findings)
	}
	return p, b, before
}

// planFrom plans desired (with --var options vars) against the fixture
// tenancy, errors and all, and returns the plan, its file and the state it
// was made from.
func planFrom(t *testing.T, desired string, vars ...string) (*planner.Plan, []byte, *snapshot.State) {
	t.Helper()
	before := plantest.State(t, "t.yaml", []byte(tenancyYAML))
	ov, diags := config.Load("desired.hcl", []byte(desired), vars, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := planner.Build(before, ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, b, before
}

// The plan id is the sum of the file's bytes with plan_id empty; a file
// decodes to the plan it was made from and encodes to the same bytes.
func TestPlanIDIsTheFilesSum(t *testing.T) {
	p, file, _ := planOf(t, add)
	blank := bytes.Replace(file, []byte(`"plan_id": "`+p.PlanID+`"`), []byte(`"plan_id": ""`), 1)
	if got := jsonfile.Sum(blank); got != p.PlanID {
		t.Fatalf("plan_id %s, the sum of the file with it empty %s", p.PlanID, got)
	}
	d, err := planfile.Decode("plan.json", file)
	if err != nil || d.PlanID != p.PlanID {
		t.Fatalf("decode: %v", err)
	}
	again, err := planfile.Encode(d)
	if err != nil || !bytes.Equal(again, file) || d.PlanID != p.PlanID {
		t.Fatalf("the decoded plan encodes to other bytes (%v)", err)
	}
	if len(d.Target.Projects) != 4 || d.Target.Projects[3].Metadata.Name != "e" {
		t.Errorf("the decoded plan's target: %+v", d.Target.Projects)
	}
	want := "plan.json: the plan's content does not match its plan_id " + p.PlanID[:12] + " (it was changed after it was made); make a new plan"
	for name, edit := range map[string]func(string) string{
		"a value":                 func(s string) string { return strings.Replace(s, `"after": 2`, `"after": 9`, 1) },
		"whitespace":              func(s string) string { return strings.Replace(s, `"after": 2`, `"after":  2`, 1) },
		"a value of the snapshot": func(s string) string { return strings.Replace(s, `"deserved":3,`, `"deserved":9,`, 1) },
		"the snapshot's layout":   func(s string) string { return strings.Replace(s, "\n      {\"metadata\"", "\n     {\"metadata\"", 1) },
		"the file":                func(s string) string { return strings.Replace(s, `"file": "desired.hcl"`, `"file": "other.hcl"`, 1) },
		"the members' order": func(s string) string {
			return strings.Replace(s, `"plan_id": "`+p.PlanID+`",`+"\n  "+`"renderable": true,`, `"renderable": true,`+"\n  "+`"plan_id": "`+p.PlanID+`",`, 1)
		},
	} {
		if _, err := planfile.Decode("plan.json", []byte(edit(string(file)))); err == nil || err.Error() != want {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// A plan file whose plan_id is not where Encode writes it (megabytes of
// spaces after format_version, the content otherwise the plan's) is
// refused for that, not as a file changed after it was made: its plan_id
// cannot be checked.
func TestDecodeNamesAPlanIDOutOfPlace(t *testing.T) {
	_, file, _ := planOf(t, add)
	i := bytes.IndexByte(file[1:], '\n') + 1 // the end of the format_version line
	spaced := append(append(append([]byte(nil), file[:i]...), bytes.Repeat([]byte(" "), 4<<20)...), file[i:]...)
	want := `plan.json: the plan's plan_id cannot be checked: the member "plan_id" is not in the file's first 256 bytes, where krmplan writes it; make a new plan`
	if _, err := planfile.Decode("plan.json", spaced); err == nil || err.Error() != want {
		t.Errorf("\n got %v\nwant %s", err, want)
	}
}

// A plan whose snapshot's taken_at is not where Seal writes it (megabytes
// of spaces after its format_version, its digest and the plan_id made
// right for them) is refused for that, not as a snapshot changed after it
// was taken: its digest cannot be checked. So is one decoded whole (not
// ending as Encode writes it: a second final newline). The same spaces
// within the snapshot's head are read.
func TestDecodeNamesASnapshotDigestOutOfPlace(t *testing.T) {
	_, file, _ := planOf(t, add)
	for _, end := range []string{"", "\n"} {
		if _, err := planfile.Decode("plan.json", spacedSnapshot(t, file, 100, end)); err != nil {
			t.Fatalf("100 spaces in the snapshot's head, %q after the file: %v", end, err)
		}
		want := `plan.json: the plan's snapshot is not one krmplan takes: the digest cannot be checked: the member "taken_at" is not in the file's first 256 bytes, where krmplan writes it; make a new plan`
		if _, err := planfile.Decode("plan.json", spacedSnapshot(t, file, 4<<20, end)); err == nil || err.Error() != want {
			t.Errorf("%q after the file:\n got %v\nwant %s", end, err, want)
		}
	}
}

// spacedSnapshot is plan.json bytes file with n spaces after the
// format_version line of its snapshot and end after the file, the
// snapshot's digest and the plan_id made right for them, as anyone may.
func spacedSnapshot(t *testing.T, file []byte, n int, end string) []byte {
	t.Helper()
	key, head := []byte("\n  \"snapshot\": "), []byte("{\n    \"format_version\": 3,")
	start := bytes.Index(file, append(key, head...)) + len(key)
	if start < len(key) || !bytes.HasSuffix(file, []byte("\n}\n")) {
		t.Fatal("no snapshot as Encode writes it")
	}
	i := start + len(head)
	b := slices.Concat(file[:i], bytes.Repeat([]byte(" "), n), file[i:], []byte(end))
	// The digest is the sum of state.json at the margin, with its final
	// newline, taken_at and digest empty.
	state := bytes.ReplaceAll(b[start:len(b)-len("\n}\n"+end)], []byte("\n  "), []byte("\n"))
	member := regexp.MustCompile(`"(taken_at|digest)": "[^"]*"`)
	old := regexp.MustCompile(`"digest": "sha256:[0-9a-f]{64}"`).Find(state)
	blank := member.ReplaceAll(append(state, '\n'), []byte(`"$1": ""`))
	return reID(t, bytes.Replace(b, old, []byte(`"digest": "sha256:`+jsonfile.Sum(blank)+`"`), 1))
}

// plan.json embeds the snapshot as state.json's bytes, each line indented
// two spaces more: copied when plan read them, the same bytes when they
// are encoded from the state; decoding gives the state those bytes hold,
// every value position kept.
func TestEmbeddedSnapshotIsStateJSON(t *testing.T) {
	p, file, before := planOf(t, move)
	state := before.Marshal()
	embedded := strings.ReplaceAll(strings.TrimSuffix(string(state), "\n"), "\n", "\n  ")
	if !strings.HasSuffix(string(file), ",\n  \"snapshot\": "+embedded+"\n}\n") {
		t.Fatalf("plan.json does not end with the snapshot's state.json bytes:\n%s", file[max(0, len(file)-2000):])
	}
	copied, err := planfile.EncodeFrom(p, planfile.Sources{Snapshot: state})
	if err != nil || !bytes.Equal(copied, file) {
		t.Fatalf("the plan of state.json's bytes is not the plan of its state (%v)", err)
	}
	d, err := planfile.Decode("plan.json", file)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Snapshot.Marshal(); !bytes.Equal(got, state) {
		t.Errorf("the decoded snapshot is not state.json:\n%s", got)
	}
	if pos, _ := d.Snapshot.Projects[2].Origin.Values.Value("/spec/queues/0/resources/gpu/deserved"); pos.Text != "0" || pos.Line != 35 {
		t.Errorf("c's deserved, a value the plan does not change: %+v", pos)
	}
	// Bytes that the embedding would not give back as they are (a file
	// resealed without its final newline, with two, or with a space
	// before it) are refused: plan.json would hold a snapshot whose digest
	// fails on decoding.
	for _, odd := range [][]byte{bytes.TrimSuffix(state, []byte("\n")), append(bytes.Clone(state), '\n'), append([]byte(" "), state...)} {
		want := "plan.json: the snapshot's state.json does not start with { and end with }, then one newline, as krmplan writes it: plan.json cannot carry it unchanged; take the snapshot again"
		if _, err := planfile.EncodeFrom(p, planfile.Sources{Snapshot: odd}); err == nil || err.Error() != want {
			t.Errorf("state.json bytes %q…%q: got %v\nwant %s", odd[:3], odd[len(odd)-3:], err, want)
		}
	}
	other := bytes.Replace(state, []byte(`"deserved":3,`), []byte(`"deserved":9,`), 1)
	want := `plan.json: the state.json bytes given for the snapshot have the digest "` + before.Digest + `", not the snapshot's "sha256:0"`
	p.Snapshot = &snapshot.State{Digest: "sha256:0"}
	if _, err := planfile.EncodeFrom(p, planfile.Sources{Snapshot: other}); err == nil || err.Error() != want {
		t.Errorf("bytes of another snapshot: got %v\nwant %s", err, want)
	}
}

// A plan of another format version is refused, naming both versions: a
// version 3 file embeds its snapshot trimmed and indented otherwise.
func TestDecodeRefusesOtherVersions(t *testing.T) {
	_, file := planAny(t, move)
	for v, want := range map[string]string{
		"3": "plan.json: plan format_version 3, this krmplan reads 4: make a new plan",
		"0": "plan.json: not a krmplan plan: it has no format_version",
	} {
		old := bytes.Replace(file, []byte(`"format_version": 4,`), []byte(`"format_version": `+v+`,`), 1)
		if got := decodeErr(reID(t, old)); got != want {
			t.Errorf("version %s: got %s\nwant %s", v, got, want)
		}
	}
}

// An amended plan (the server dry run's findings) encodes with a new id
// and decodes.
func TestAmendedPlanDecodes(t *testing.T) {
	p, file, _ := planOf(t, move)
	id := p.PlanID
	p.AddFindings(planner.Finding{Code: "server-dry-run", Level: planner.LevelNote, Message: "n"})
	amended, err := planfile.Encode(p)
	if err != nil || p.PlanID == id || bytes.Equal(amended, file) {
		t.Fatalf("the amended plan keeps its id (%v)", err)
	}
	if _, err := planfile.Decode("plan.json", amended); err != nil {
		t.Errorf("the amended plan does not decode: %v", err)
	}
}

// A finding is written with plan.json's member names; one without an object
// has no object member.
func TestFindingMembers(t *testing.T) {
	p, _, _ := planOf(t, move)
	p.Findings = append(p.Findings, planner.Finding{Code: "projects-over-department", Level: planner.LevelError,
		Object: tenancy.KindDepartment.Object("d"), Queue: "d-q", Message: "m", AlreadyPresent: true, Before: "b"})
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `      "code": "projects-over-department",
      "level": "error",
      "object": "Department/d",
      "queue": "d-q",
      "message": "m",
      "already_present": true,
      "before": "b"
`
	if !strings.Contains(string(b), want) {
		t.Errorf("plan.json does not hold\n%s", want)
	}
	if !strings.Contains(string(b), `      "code": "namespaces-not-read",
      "level": "note",
      "message": "namespace checks not run`) {
		t.Error("a finding without an object has an object member")
	}
}
