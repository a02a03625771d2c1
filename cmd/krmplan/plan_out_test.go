package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/examples"
	"github.com/krmplan/krmplan/snapshot"
)

// brokenPipe is a stdout that takes nothing, as a closed pipe.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// plan writes plan.json while it shows the view, and puts it in place only
// once the view is written: a view that cannot be written leaves --out as
// it was, with no temporary file beside it; one that is written leaves the
// plan file, named on stderr after the view.
func TestPlanOutWaitsForTheView(t *testing.T) {
	dir, state, desired := planOutInputs(t)
	out := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"krmplan", "plan", desired, "--state", state, "--out", out, "--no-color"}
	var stderr bytes.Buffer
	code := run(args, strings.NewReader(""), brokenPipe{}, &stderr)
	got, _ := os.ReadFile(out)
	if code != 1 || string(got) != "old\n" || stderr.String() != "Error: broken pipe; "+out+" was not written\n" {
		t.Errorf("a view that cannot be written: exit %d, plan.json %q, stderr %q", code, got, stderr.String())
	}
	if es, _ := os.ReadDir(dir); len(es) != 3 {
		t.Errorf("files left: %v", es)
	}
	var stdout bytes.Buffer
	stderr.Reset()
	// The sample's pool has no nodes read: the plan has an error, exit 1.
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	file, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(file, []byte("{\n  \"format_version\": 4,\n  \"plan_id\": ")) {
		t.Fatalf("plan.json: %v\n%.200s", err, file)
	}
	id := string(file[bytes.Index(file, []byte(`"plan_id": "`))+12:][:12])
	if want := fmt.Sprintf("Wrote %s: plan %s, 0 to add, 2 to change, 0 to destroy, not renderable (1 error).\n", out, id); stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if !strings.HasSuffix(stdout.String(), "Plan id: "+string(file[bytes.Index(file, []byte(`"plan_id": "`))+12:][:64])+"\n") {
		t.Errorf("the view does not end with the plan id:\n%s", stdout.String())
	}
}

// sample is a file of the bundled sample (examples/sample).
func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := examples.Sample.ReadFile("sample/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sampleState is the state.json of the sample tenancy as a git snapshot
// without a cluster.
func sampleState(t *testing.T) []byte {
	t.Helper()
	var ten snapshot.Parsed
	if err := ten.ParseTenancy("tenancy.yaml", sample(t, "tenancy.yaml")); err != nil {
		t.Fatal(err)
	}
	s := &snapshot.State{Source: snapshot.Source{Kind: "git", Repo: "/repo", Ref: "main", Commit: strings.Repeat("0", 40),
		Files: []snapshot.SourceFile{{Path: "tenancy.yaml", Blob: strings.Repeat("1", 40)}}}, Tenancy: ten.Tenancy, Other: ten.Other}
	return s.Seal()
}

// plan --out whose view goes to a pipe nobody reads (`plan ... | head`
// once head has ended): the write fails, and plan says the plan was not
// saved and leaves no temporary file. Before, the closed pipe ended
// krmplan by SIGPIPE while plan.json was staged, and its temporary file
// stayed.
func TestPlanOutToAClosedPipe(t *testing.T) {
	dir, state, desired := planOutInputs(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command("krmplan", "plan", desired, "--state", state, "--out", filepath.Join(dir, "plan.json"), "--no-color")
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	w.Close()
	if code, _ := exitStatus(err); code != 1 {
		t.Errorf("exit %v (%v), want 1", cmd.ProcessState, err)
	}
	if want := "Error: write /dev/stdout: broken pipe; " + filepath.Join(dir, "plan.json") + " was not written\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("files left: %v", es)
	}
}

// planOutInputs writes the sample's state.json and its move of one card
// in a new folder, with Error: lines unwrapped (COLUMNS).
func planOutInputs(t *testing.T) (dir, state, desired string) {
	t.Helper()
	t.Setenv("COLUMNS", "1000")
	dir = t.TempDir()
	state = filepath.Join(dir, "state.json")
	if err := os.WriteFile(state, sampleState(t), 0o644); err != nil {
		t.Fatal(err)
	}
	desired = filepath.Join(dir, "move.hcl")
	if err := os.WriteFile(desired, sample(t, "move-one-card.hcl"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, state, desired
}
