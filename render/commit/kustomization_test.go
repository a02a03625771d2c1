package commit

import (
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
)

// kustomized is the sample split into pools, departments and projects,
// each folder with its kustomization, for TestSpliceKustomization.
var kustomized = plantest.Repo{
	"tenancy/kustomization.yaml": []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - platform.yaml\n  - pools.yaml\n"),
	"tenancy/pools.yaml":         []byte("apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata:\n  name: p\nspec:\n  labelKey: example.com/pool\n  labelValue: p\n"),
	"tenancy/platform.yaml": []byte("apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata:\n  name: platform\nspec:\n  queues:\n" +
		"    - name: platform-p\n      nodepool: p\n      resources:\n        gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}\n"),
}

// TestSpliceKustomization: a new file in a folder with a kustomization is
// listed in it, in the same commit; one in a new folder below it is a note.
func TestSpliceKustomization(t *testing.T) {
	fx := plantest.PlanOn(t, kustomized, []string{"tenancy/pools.yaml", "tenancy/platform.yaml"}, `
project "research" {
  department = "platform"
  file       = "tenancy/research.yaml"
  queue "p" {
    name = "research-p"
    gpu = { deserved = 1, limit = 2 }
  }
}
project "serving" {
  department = "platform"
  file       = "tenancy/projects/serving.yaml"
  queue "p" {
    name = "serving-p"
    gpu = { deserved = 1, limit = 2 }
  }
}
`)
	out, sp := spliced(t, fx, Options{})
	want := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - platform.yaml\n  - pools.yaml\n  - research.yaml\n"
	if got := string(out["tenancy/kustomization.yaml"]); got != want {
		t.Errorf("kustomization.yaml:\n%s\nwant\n%s", got, want)
	}
	if _, ok := out["tenancy/research.yaml"]; !ok {
		t.Errorf("no new file research.yaml in %v", sp.Files)
	}
	if got := strings.Join(sp.KeptInStep, "\n"); got != "tenancy/kustomization.yaml: resources + research.yaml" {
		t.Errorf("kept in step: %q", got)
	}
	note := "tenancy/projects/serving.yaml: a new file in a folder without a kustomization; tenancy/kustomization.yaml does not list it, so kustomize does not read it until one does"
	if got := strings.Join(sp.Notes, "\n"); got != note {
		t.Errorf("notes:\n%s\nwant\n%s", got, note)
	}
	if m := Message(fx.Plan, sp); !strings.Contains(m, "\nKept in step with the tenancy:\n- tenancy/kustomization.yaml: resources + research.yaml\n") {
		t.Errorf("the commit message does not say the kustomization changed:\n%s", m)
	}
}
