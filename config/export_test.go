package config_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// roundTrip exports s, plans the HCL against s, and fails on any change.
func roundTrip(t *testing.T, s *snapshot.State) []byte {
	t.Helper()
	out, _ := config.Export(&s.Tenancy, s.Provenance()...)
	if _, diags := hclsyntax.ParseConfig(out, "exported.hcl", hcl.InitialPos); diags.HasErrors() {
		t.Fatalf("the export is not HCL: %v\n%s", diags, out)
	}
	p := plantest.Plan(t, s, "exported.hcl", out)
	if len(p.Changes) != 0 {
		t.Errorf("planning the export changes %d values, e.g. %+v\n%s", len(p.Changes), p.Changes[0], out)
	}
	return out
}

func TestExportGolden(t *testing.T) {
	out := roundTrip(t, plantest.SampleState(t))
	plantest.Golden(t, "golden", "sample-export.hcl", out)
}

// TestExportRoundTripExamples: every tenancy under examples/ (the sample,
// and the demo when it is there) exports to a file that plans no change.
func TestExportRoundTripExamples(t *testing.T) {
	dirs, err := filepath.Glob("../examples/*")
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, dir := range dirs {
		var files []string
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		var ten snapshot.Parsed
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var one snapshot.Parsed
			if one.ParseTenancy(f, b) != nil {
				continue // not a tenancy file (a workflow, cluster data)
			}
			ten.NodePools = append(ten.NodePools, one.NodePools...)
			ten.Departments = append(ten.Departments, one.Departments...)
			ten.Projects = append(ten.Projects, one.Projects...)
		}
		if len(ten.Departments)+len(ten.Projects) == 0 {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s := &snapshot.State{Source: snapshot.Source{Kind: "git"}, Tenancy: tenancy.Tenancy{NodePools: ten.NodePools, Departments: ten.Departments, Projects: ten.Projects},
				NotRead: []snapshot.NotRead{{What: snapshot.SourceNodes, Reason: "test"}, {What: snapshot.SourceQueues, Reason: "test"}, {What: snapshot.SourceNamespaces, Reason: "test"}}}
			s.Seal()
			roundTrip(t, s)
		})
		tested++
	}
	if tested == 0 {
		t.Fatal("no tenancy found under examples/")
	}
}

// The fixtures of TestExportEdgeCases.
const edgeWant = `node_pool "default" {
}

node_pool "l4" {
  label_key   = "example.com/gpu"
  label_value = ""
}

department "d" {
  queue "default" {
    name   = "d-default"
    gpu    = { deserved = 0.125, limit = 10 }
    memory = { deserved = 1024000.5, limit = unlimited, over_quota_weight = -2 }
  }
  queue "l4" {
    name     = "d-l4"
    priority = 0
  }
  # not exported: queue "d-l4-again", a second queue on node pool "l4" (one queue per pool)
}

department "empty" {
}

project "p" {
  department         = "d"
  default_node_pools = []
  queue "default" {
    name     = "p-default"
    priority = 250
    cpu      = { over_quota_weight = 3 }
  }
}
`

// TestExportEdgeCases: fractions, omitted fields and resources, negative
// numbers, the default pool, an empty defaultNodePools, a department with
// no queue, priorities — and a second queue on one pool, which desired.hcl
// cannot hold.
func TestExportEdgeCases(t *testing.T) {
	s := plantest.State(t, "t.yaml", []byte(`apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: default}
spec: {}
---
apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: l4}
spec: {labelKey: example.com/gpu, labelValue: ""}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: empty}
spec: {queues: []}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: d}
spec:
  queues:
  - name: d-default
    nodepool: default
    resources:
      gpu: {deserved: 0.125, limit: 1e1}
      memory: {deserved: 1024000.5, limit: -1, overQuotaWeight: -2}
  - name: d-l4
    nodepool: l4
    priority: 0
  - name: d-l4-again
    nodepool: l4
    resources: {gpu: {deserved: 1}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: p}
spec:
  parent: d
  defaultNodePools: []
  queues:
  - name: p-default
    nodepool: default
    priority: 250
    resources:
      cpu: {overQuotaWeight: 3}
`))
	out, warnings := config.Export(&s.Tenancy, s.Provenance()...)
	if len(warnings) != 1 || warnings[0] != `department "d": queue "d-l4-again" is a second queue on node pool "l4" (after "d-l4"); desired.hcl has one queue per pool, so it is not exported` {
		t.Errorf("warnings: %q", warnings)
	}
	body := string(out[strings.Index(string(out), "node_pool"):])
	want := edgeWant
	if body != want {
		t.Errorf("got\n%s\nwant\n%s", body, want)
	}
	roundTrip(t, s)
}

// TestExportRootProject: a project without spec.parent exports as
// department = "", which desired.hcl reads as a root project again, and a
// queue without a name exports without one (a comment says KRM's name for
// it); the export plans no change; a project block setting department = "" moves a
// project out of its department.
func TestExportRootProject(t *testing.T) {
	s := plantest.State(t, "t.yaml", []byte(`apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: d}
spec:
  queues:
  - {name: d-q, nodepool: default, resources: {gpu: {deserved: 2, limit: 2}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: r}
spec:
  parent: d
  queues:
  - {name: r-q, nodepool: default, resources: {gpu: {deserved: 1, limit: 1}}}
`))
	s.Projects[0].Spec.Parent = ""         // a root project
	s.Projects[0].Spec.Queues[0].Name = "" // KRM derives its name
	s.Seal()
	out := roundTrip(t, s)
	if !strings.Contains(string(out), "project \"r\" {\n  department = \"\"\n  queue \"default\" {\n    # no name: KRM names its Queue r\n") {
		t.Errorf("the root project's export:\n%s", out)
	}
	s.Projects[0].Spec.Parent = "d"
	s.Seal()
	p := plantest.Plan(t, s, "d.hcl", []byte("project \"r\" {\n  department = \"\"\n}\n"))
	if len(p.Changes) != 1 || p.Changes[0].Field.Field != tenancy.FieldParent || p.Changes[0].After.String() != `""` {
		t.Errorf("changes %+v", p.Changes)
	}
}
