package planner

import (
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/tenancy"
)

const gitopsTenancy = `apiVersion: kai.resources/v1alpha1
kind: Department
metadata:
  name: d
  labels: {argocd.argoproj.io/instance: tenancy}
spec:
  queues:
    - {name: d-q, nodepool: default, resources: {gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
  annotations: {argocd.argoproj.io/tracking-id: "tenancy:kai.resources/Project:/a"}
  labels: {kustomize.toolkit.fluxcd.io/name: krm}
spec:
  parent: d
  queues:
    - {name: a-q, nodepool: default, resources: {gpu: {deserved: 2, limit: 4, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: b}
spec:
  parent: d
  queues:
    - {name: b-q, nodepool: default, resources: {gpu: {deserved: 1, limit: 4, overQuotaWeight: 1}}}
`

// gitopsPlan plans desired against the tenancy read as a snapshot of kind.
func gitopsPlan(t *testing.T, kind, desired string) *Plan {
	t.Helper()
	s := mustState(t, gitopsTenancy)
	s.Source.Kind = kind
	s.Seal()
	ov, diags := config.Load("desired.hcl", []byte(desired), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := Build(s, ov)
	if diags.HasErrors() || p == nil {
		t.Fatal(diags)
	}
	return p
}

func gitopsFindings(p *Plan) []string {
	var out []string
	for _, f := range p.Findings {
		if f.Code == CodeGitOpsOwned {
			out = append(out, f.Object.String()+" "+string(f.Level)+": "+f.Message)
		}
	}
	return out
}

func TestGitOpsOwnedObjectsThePlanChanges(t *testing.T) {
	// The project a changes (Argo CD and Flux keys), b changes (no keys),
	// d does not change (keys, but nothing to say).
	desired := `project "a" {
  queue "default" {
    gpu = { deserved = 1 }
  }
}
project "b" {
  queue "default" {
    gpu = { deserved = 2 }
  }
}
`
	p := gitopsPlan(t, "cluster", desired)
	want := []string{"Project/a warning: project a is owned by Argo CD and Flux (argocd.argoproj.io/tracking-id=tenancy:kai.resources/Project:/a, kustomize.toolkit.fluxcd.io/name=krm): " +
		"a live patch to it is put back at the next sync — change the GitOps source instead, or pause the sync before running the patch script"}
	if got := gitopsFindings(p); !reflect.DeepEqual(got, want) {
		t.Errorf("cluster snapshot:\n got %q\nwant %q", got, want)
	}
	for _, f := range p.Findings {
		if f.Code == CodeGitOpsOwned && !reflect.DeepEqual(f.Where, []tenancy.Location{{File: "t.yaml", Line: 10}}) {
			t.Errorf("where = %+v, want the object's first line in t.yaml", f.Where)
		}
	}
	if !p.Renderable() {
		t.Errorf("a GitOps warning made the plan unrenderable")
	}

	// From a git snapshot the advice is the splice.
	p = gitopsPlan(t, "git", `department "d" {
  queue "default" {
    gpu = { limit = 5 }
  }
}
`)
	want = []string{"Department/d warning: department d is owned by Argo CD (argocd.argoproj.io/instance=tenancy): " +
		"rendered as patches (render --format patch) the change is put back at the next sync; render --format splice changes the GitOps source instead"}
	if got := gitopsFindings(p); !reflect.DeepEqual(got, want) {
		t.Errorf("git snapshot:\n got %q\nwant %q", got, want)
	}
}

func TestGitOpsNothingChangedNothingSaid(t *testing.T) {
	s := mustState(t, gitopsTenancy)
	for _, f := range Check(s, nil) {
		if f.Code == CodeGitOpsOwned {
			t.Errorf("a state checked as it is: %s", f.Message)
		}
	}
	// A new object has no keys; the unchanged owned ones say nothing.
	p := gitopsPlan(t, "cluster", `project "c" {
  department = "d"
  queue "default" {
    name = "c-q"
    gpu = { deserved = 0, limit = 1, over_quota_weight = 1 }
  }
}
`)
	if got := gitopsFindings(p); len(got) != 0 {
		t.Errorf("creating a project: %q", got)
	}
}
