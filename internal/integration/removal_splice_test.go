package integration

import (
	"strings"
	"testing"

	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/render/yamlremove"
	"github.com/krmplan/krmplan/tenancy"
)

// TestSpliceRemovesTheLastQueue: when the splice removes an object's only
// queue entry it writes `queues: []`, which kubectl apply sends and the API
// server stores as an empty list; the other way, taking the key out, is
// refused, as KRM's CRDs require spec.queues (upstream
// charts/kai-resource-management/crds/kai.resources_projects.yaml:
// `required: [queues]`; departments likewise).
func TestSpliceRemovesTheLastQueue(t *testing.T) {
	a := newApplyFx(t)
	for _, kind := range []string{"Department", "Project"} {
		name := a.name()
		src := "apiVersion: kai.resources/v1alpha1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\nspec:\n  queues:   # one per pool\n  # the only one\n  - name: " + name + "-q\n    nodepool: default\n"
		if out, ok := a.apply(src); !ok {
			t.Fatalf("kubectl apply: %s", out)
		}
		schema := yamledit.Schema{APIVersion: tenancy.APIVersion, Kinds: []string{kind}}
		ts, err := yamledit.NewSet(schema, []string{"t.yaml"}, map[string][]byte{"t.yaml": []byte(src)}, nil, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := yamlremove.Removals(ts, []yamlremove.Removal{{ID: yamledit.ID{Kind: kind, Name: name},
			Origin: yamledit.Origin{File: "t.yaml", Line: 1}, Queue: 0, QueueName: name + "-q"}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := yamledit.Splice([]byte(src), got.Edits["t.yaml"])
		if err != nil {
			t.Fatal(err)
		}
		want := "apiVersion: kai.resources/v1alpha1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\nspec:\n  queues: []   # one per pool\n"
		if string(out) != want {
			t.Fatalf("spliced\n%q\nwant\n%q", out, want)
		}
		if msg, ok := a.apply(string(out)); !ok {
			t.Fatalf("kubectl apply of the spliced file: %s", msg)
		}
		spec, _ := a.stored(kind, name)["spec"].(map[string]any)
		if qs, ok := spec["queues"].([]any); !ok || len(qs) != 0 {
			t.Fatalf("stored spec %v, want queues: []", spec)
		}
		noKey := strings.Replace(want, "spec:\n  queues: []   # one per pool\n", "spec: {}\n", 1)
		if msg, ok := a.kubectl(noKey, "apply", "--validate=strict"); ok || !strings.Contains(msg, "spec.queues: Required value") {
			t.Fatalf("kubectl apply without spec.queues: ok=%v %s", ok, msg)
		}
	}
}
