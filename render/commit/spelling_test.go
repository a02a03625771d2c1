package commit

import (
	"errors"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/tenancy"
)

const spellingBase = `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: a-p1
      nodepool: p1
      resources:
        gpu: {deserved: 1, limit: 1}
`

// A splice never writes a spelling that kubectl (YAML 1.1) and YAML 1.2
// read differently: new names that are a boolean or a number to one of
// them are quoted, and the spliced file reads back as planned.
func TestSpliceQuotesWhatYAML11ReadsOtherwise(t *testing.T) {
	fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": []byte(spellingBase)}, []string{"t.yaml"}, `project "a" {
  queue "p2" {
    name = "on"
    gpu = { deserved = 0.0000001, limit = 1 }
  }
  queue "p3" {
    name = "010"
    gpu = { deserved = 0, limit = 1 }
  }
}`)
	out, _ := spliced(t, fx, Options{})
	got := string(out["t.yaml"])
	for _, want := range []string{"    - name: \"on\"\n      nodepool: p2\n", "    - name: \"010\"\n      nodepool: p3\n", "deserved: 0.0000001,"} {
		if !strings.Contains(got, want) {
			t.Errorf("the spliced file has no %q:\n%s", want, got)
		}
	}
}

// A number that no spelling gives to kubectl and YAML 1.2 alike is
// refused before anything is written: kubectl would send it rounded.
// desired.hcl refuses such a number already (config), so the plan is made
// with 0.3 and its change given the longer number, as a plan from elsewhere
// could carry it.
func TestSpliceRefusesANumberKubectlRounds(t *testing.T) {
	fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": []byte(spellingBase)}, []string{"t.yaml"}, `project "a" {
  queue "p1" {
    gpu { limit = 0.3 }
  }
}`)
	long := tenancy.Number(quota.MustParse("0.30000000000000001"))
	for i := range fx.Plan.Changes {
		if c := &fx.Plan.Changes[i]; c.After.String() == "0.3" {
			c.After = long
		}
	}
	_, err := Prepare(fx.Plan, fx.Repo, Options{})
	var se *yamledit.Error
	want := "t.yaml:11: gpu.limit of queue a-p1: 0.30000000000000001 cannot be written so that kubectl and YAML 1.2 read it alike: kubectl sends it as 0.3 (a float64 keeps 15 to 17 significant digits); plan a number with at most 15 significant digits"
	if !errors.As(err, &se) || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

// A value written with the tag !!int holds only whole numbers, to kubectl
// and to YAML 1.2 alike: a plan that makes it a fraction is refused with
// the file, line and fix, not spliced into a file neither can read. A whole
// number keeps the tag.
func TestSpliceRefusesAFractionUnderIntTag(t *testing.T) {
	src := []byte(strings.Replace(spellingBase, "{deserved: 1, limit: 1}", "{deserved: !!int 1, limit: 2}", 1))
	fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": src}, []string{"t.yaml"}, `project "a" {
  queue "p1" {
    gpu { deserved = 0.5 }
  }
}`)
	_, err := Prepare(fx.Plan, fx.Repo, Options{})
	var se *yamledit.Error
	want := "t.yaml:11: gpu.deserved of queue a-p1 is written with the tag !!int, which holds only whole numbers, and the plan sets 0.5: remove the tag, or plan a whole number"
	if !errors.As(err, &se) || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	fx = plantest.PlanOn(t, plantest.Repo{"t.yaml": src}, []string{"t.yaml"}, `project "a" {
  queue "p1" {
    gpu { deserved = 2 }
  }
}`)
	sp, err := Prepare(fx.Plan, fx.Repo, Options{})
	if err != nil || len(sp.Files) != 1 || !strings.Contains(string(sp.Files[0].New), "{deserved: !!int 2, limit: 2}") {
		t.Errorf("a whole number under !!int: err %v, files %+v", err, sp)
	}
}
