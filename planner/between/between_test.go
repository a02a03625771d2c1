package between

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// The pull request of the equality test: workspace's guarantee lowered, a
// new project inference, project benchmark removed.
const (
	prInference = `---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: inference
spec:
  namespace: inference
  parent: platform
  defaultNodePools: [rtx-pro-6000]
  queues:
    - name: inference-rtx
      nodepool: rtx-pro-6000
      priority: 75
      resources:
        gpu:    {deserved: 1,  limit: 2,  overQuotaWeight: 1}
        cpu:    {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
`
	prDesired = `
project "workspace" {
  queue "rtx-pro-6000" {
    gpu = { deserved = 2, limit = 2 }
  }
}

project "inference" {
  department         = "platform"
  namespace          = "inference"
  default_node_pools = ["rtx-pro-6000"]
  file               = "tenancy.yaml"
  queue "rtx-pro-6000" {
    name     = "inference-rtx"
    priority = 75
    gpu      = { deserved = 1, limit = 2, over_quota_weight = 1 }
    cpu      = { deserved = -1, limit = -1, over_quota_weight = 1 }
    memory   = { deserved = -1, limit = -1, over_quota_weight = 1 }
  }
}

removed { project = "benchmark" }
`
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// prRepo is a repository whose main holds the sample tenancy and whose
// branch pr edits the YAML as prDesired says.
func prRepo(t *testing.T) string {
	t.Helper()
	sample, err := os.ReadFile("../../examples/sample/tenancy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tenancy.yaml")
	gitIn(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(file, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "tenancy.yaml")
	gitIn(t, dir, "commit", "-q", "-m", "tenancy")
	s := string(sample)
	i := strings.Index(s, "---\n# Batch benchmarks")
	if i < 0 {
		t.Fatal("the sample has no project benchmark")
	}
	s = strings.Replace(s[:i], "gpu:    {deserved: 3,  limit: 3,  overQuotaWeight: 1}", "gpu:    {deserved: 2,  limit: 2,  overQuotaWeight: 1}", 1) + prInference
	if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "checkout", "-q", "-b", "pr")
	gitIn(t, dir, "commit", "-q", "-am", "pull request")
	return dir
}

func gitSnapshot(t *testing.T, repo, ref string) *snapshot.State {
	t.Helper()
	st, err := snapshot.FromGit(snapshot.GitSource{Repo: repo, Ref: ref, Paths: []string{"tenancy.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err = snapshot.Decode(ref, st.Seal())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// comparable is a plan's changes (without where desired.hcl sets them and
// its force), findings (without their locations: desired.hcl's lines in
// one, the YAML's in the other) and steps, as JSON.
func comparable(t *testing.T, p *planner.Plan) (changes, findings, steps string) {
	t.Helper()
	cs := make([]tenancy.Change, len(p.Changes))
	for i, c := range p.Changes {
		c.Source, c.Force = nil, false
		cs[i] = c
	}
	var fs strings.Builder
	for _, f := range p.Findings {
		fmt.Fprintf(&fs, "%s %s %s/%s %q %q %q: %s (present before %v %q)\n", f.Level, f.Code, f.Object.Kind, f.Object.Name, f.Queue, f.Pool, f.Resource, f.Message, f.AlreadyPresent, f.Before)
	}
	enc := func(v any) string {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return enc(cs), fs.String(), enc(p.Steps)
}

// TestBetweenRefsIsTheDesiredPlan is issue 16's second Done-when: a pull
// request that edits the YAML (a value change, a new project, a removed
// project) gets the plan the same edits written in desired.hcl give.
func TestBetweenRefsIsTheDesiredPlan(t *testing.T) {
	repo := prRepo(t)
	base := gitSnapshot(t, repo, "main")
	between, err := Plan(base, gitSnapshot(t, repo, "pr"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ov, diags := config.Load("desired.hcl", []byte(prDesired), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	desired, diags := planner.Build(gitSnapshot(t, repo, "main"), ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if between.Head == nil || between.Head.Source.Ref != "pr" || desired.Head != nil {
		t.Errorf("Head: between %+v, desired %+v", between.Head, desired.Head)
	}
	if between.Summary != desired.Summary || between.OrderVerified != desired.OrderVerified {
		t.Errorf("summary %+v verified %v, desired.hcl gives %+v verified %v", between.Summary, between.OrderVerified, desired.Summary, desired.OrderVerified)
	}
	if want := (planner.Summary{Add: 1, Change: 1, Destroy: 1, Warnings: between.Summary.Warnings, Notes: between.Summary.Notes}); between.Summary != want || len(between.Steps) == 0 {
		t.Errorf("summary %+v, %d steps: want 1 to add, 1 to change, 1 to destroy, no error", between.Summary, len(between.Steps))
	}
	bc, bf, bs := comparable(t, between)
	dc, df, ds := comparable(t, desired)
	for _, c := range []struct{ what, got, want string }{{"changes", bc, dc}, {"findings", bf, df}, {"steps", bs, ds}} {
		if c.got != c.want {
			t.Errorf("the %s between the refs:\n%s\nare not those of desired.hcl:\n%s", c.what, c.got, c.want)
		}
	}
}
