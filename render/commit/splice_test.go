package commit

import (
	"errors"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/render/script"
	"github.com/krmplan/krmplan/render/yamledit"
)

// The acceptance golden: one new project and one new queue on the sample
// tenancy only add lines, in the neighbours' style, and the file parses to
// exactly the planned objects (PrepareSplice checks that itself; here the
// bytes are pinned too).
// newProjectAndQueue adds project research and a queue of department
// platform on the sample tenancy.
const newProjectAndQueue = `
project "research" {
  department = "platform"
  queue "rtx-pro-6000" {
    name     = "research-rtx"
    priority = 75
    gpu = { deserved = 0, limit = 2 }
  }
}
department "platform" {
  queue "h100" {
    name = "platform-h100"
    gpu = { deserved = 8, limit = 8, over_quota_weight = 2 }
    memory { limit = 512000 }
  }
}
`

func TestSpliceGoldenNewProjectAndQueue(t *testing.T) {
	sample := plantest.Sample(t, "tenancy.yaml")
	fx := plantest.PlanOn(t, plantest.Repo{"tenancy.yaml": sample}, []string{"tenancy.yaml"}, newProjectAndQueue)
	out, sp := spliced(t, fx, Options{})
	got := out["tenancy.yaml"]
	if ok, why := plantest.OnlyAdds(sample, got); !ok {
		t.Fatalf("the splice does not only add lines: %s\n%s", why, got)
	}
	plantest.Golden(t, "splice", "new-project-and-queue.yaml", got)
	objs := targetSpecs(fx.Plan, nil)
	parsed, _, err := parsedObjects(map[string][]byte{"tenancy.yaml": got})
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed) != len(objs) {
		t.Fatalf("parsed %d objects, planned %d", len(parsed), len(objs))
	}
	for k, want := range objs {
		if parsed[k] != want {
			t.Errorf("%s: parsed %s, planned %s", k, parsed[k], want)
		}
	}
	if len(sp.Notes) != 0 {
		t.Errorf("notes: %q", sp.Notes)
	}
}

// newQueue adds a queue to project a.
const newQueue = `
project "a" {
  queue "p2" {
    name = "a-p2"
    gpu = { deserved = 1, limit = 2 }
  }
}
`

// spliceStyles are the cases of TestSpliceStyles.
var spliceStyles = []struct {
	name, src, desired, want string
}{
	{
		name: "block maps everywhere, four-space indent",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
    name: a
spec:
    parent: d
    queues:
        -   name: a-p1
            nodepool: p1
            resources:
                gpu:
                    deserved: 1
                    limit: 1
`,
		desired: newQueue,
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
    name: a
spec:
    parent: d
    queues:
        -   name: a-p1
            nodepool: p1
            resources:
                gpu:
                    deserved: 1
                    limit: 1
        -   name: a-p2
            nodepool: p2
            resources:
                gpu:
                    deserved: 1
                    limit: 2
                    overQuotaWeight: 1
                cpu:
                    deserved: -1
                    limit: -1
                    overQuotaWeight: 1
                memory:
                    deserved: -1
                    limit: -1
                    overQuotaWeight: 1
`,
	},
	{
		name: "indentless list of flow queues",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec:
  parent: d
  queues:
  - {name: a-p1, nodepool: p1, resources: {gpu: {deserved: 1, limit: 1}}}
`,
		desired: newQueue,
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec:
  parent: d
  queues:
  - {name: a-p1, nodepool: p1, resources: {gpu: {deserved: 1, limit: 1}}}
  - {name: a-p2, nodepool: p2, resources: {gpu: {deserved: 1, limit: 2, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}}
`,
	},
	{
		name: "a flow list on one line",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec: {parent: d, queues: [{name: a-p1, nodepool: p1}]}
`,
		desired: newQueue,
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec: {parent: d, queues: [{name: a-p1, nodepool: p1}, {name: a-p2, nodepool: p2, resources: {gpu: {deserved: 1, limit: 2, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}}]}
`,
	},
	{
		name: "a root project without spec.parent moves into a department",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  queues:
    - name: ""
      nodepool: p1
`,
		desired: "project \"a\" {\n  department = \"d\"\n}\n",
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: ""
      nodepool: p1
`,
	},
	{
		name: "a root project with parent \"\" moves into a department",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec: {parent: "", queues: [{name: "", nodepool: p1}]}
`,
		desired: "project \"a\" {\n  department = \"d\"\n}\n",
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec: {parent: "d", queues: [{name: "", nodepool: p1}]}
`,
	},
	{
		name: "omitted fields go where a person puts them",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: a-p1   # the main queue
      nodepool: p1
      resources:
        gpu:    {deserved: 1, overQuotaWeight: 1}
        cpu:    {deserved: -1, limit: -1}
`,
		desired: `
project "a" {
  queue "p1" {
    priority = 50
    gpu { limit = 2 }
    cpu { over_quota_weight = 3 }
    memory = { deserved = -1, limit = -1 }
  }
}
`,
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: a-p1   # the main queue
      nodepool: p1
      priority: 50
      resources:
        gpu:    {deserved: 1, limit: 2, overQuotaWeight: 1}
        cpu:    {deserved: -1, limit: -1, overQuotaWeight: 3}
        memory: {deserved: -1, limit: -1}
`,
	},
	{
		name: "CRLF, a byte order mark, no final newline, tabs in comments",
		src:  "\ufeffapiVersion: kai.resources/v1alpha1\r\nkind: Project\r\nmetadata:\r\n  name: a\t# \tthe team\r\nspec:\r\n  parent: d\r\n  queues:\r\n    - name: a-p1\r\n      nodepool: p1\r\n      resources:\r\n        gpu: {deserved: 1,  limit: 9}\t#\tnine",
		desired: `
project "a" {
  queue "p1" {
    gpu { limit = 10 }
  }
  queue "p2" {
    name = "a-p2"
    gpu = { deserved = 1, limit = 2 }
  }
}
`,
		want: "\ufeffapiVersion: kai.resources/v1alpha1\r\nkind: Project\r\nmetadata:\r\n  name: a\t# \tthe team\r\nspec:\r\n  parent: d\r\n  queues:\r\n    - name: a-p1\r\n      nodepool: p1\r\n      resources:\r\n        gpu: {deserved: 1,  limit: 10}\t#\tnine\r\n    - name: a-p2\r\n      nodepool: p2\r\n      resources:\r\n        gpu: {deserved: 1,  limit: 2, overQuotaWeight: 1}\r\n        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}\r\n        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}",
	},
	{
		name: "non-ASCII before a value, numbers spelled 4.0 and 1e1 kept",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
  annotations: {note: "équipe «données»"}
spec:
  parent: d
  queues:
    - {name: a-p1, nodepool: p1, resources: {gpu: {deserved: 4.0, limit: 1e1}, cpu: {deserved: 2,  limit: 3}}}
`,
		desired: `
project "a" {
  queue "p1" {
    cpu { deserved = 20 }
  }
}
`,
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
  annotations: {note: "équipe «données»"}
spec:
  parent: d
  queues:
    - {name: a-p1, nodepool: p1, resources: {gpu: {deserved: 4.0, limit: 1e1}, cpu: {deserved: 20, limit: 3}}}
`,
	},
	{
		name: "non-ASCII on the line before the value",
		src: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec:
  parent: d
  queues:
    - {name: "a-p1", nodepool: "p1 «données» ✓", resources: {gpu: {deserved: 9,  limit: 9}}}
`,
		desired: `
project "a" {
  queue "p1 «données» ✓" {
    gpu = { deserved = 10, over_quota_weight = 2 }
  }
}
`,
		want: `apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: a}
spec:
  parent: d
  queues:
    - {name: "a-p1", nodepool: "p1 «données» ✓", resources: {gpu: {deserved: 10, limit: 9, overQuotaWeight: 2}}}
`,
	},
}

// Each layout people use gets additions in its own style.
func TestSpliceStyles(t *testing.T) {
	for _, tc := range spliceStyles {
		t.Run(tc.name, func(t *testing.T) {
			fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": []byte(tc.src)}, []string{"t.yaml"}, tc.desired)
			out, _ := spliced(t, fx, Options{})
			if got := string(out["t.yaml"]); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s\n(got %q)", got, tc.want, got)
			}
		})
	}
}

// The fixtures of TestSpliceNewObjectsAcrossFiles.
const acrossPools = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata:
  name: p1
  annotations:
    argocd.argoproj.io/sync-wave: "1"
    argocd.argoproj.io/tracking-id: tenancy:kai.resources/NodePool:/p1
spec:
  labelKey: gpu
  labelValue: p1
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata:
  name: d
  annotations:
    argocd.argoproj.io/sync-wave: "2"
    argocd.argoproj.io/sync-options: Prune=false
spec:
  queues:
    - name: d-p1
      nodepool: p1
      resources:
        gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}
`

const acrossProjects = `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: a-p1
      nodepool: p1
      resources:
        gpu: {deserved: 1, limit: 1, overQuotaWeight: 1}
`

// A new object goes after the last object of its kind, in the file that
// holds its kind, with the neighbour's sync annotations (never its
// tracking-id); a project goes next to its siblings.
func TestSpliceNewObjectsAcrossFiles(t *testing.T) {
	pools := acrossPools
	projects := acrossProjects
	repo := plantest.Repo{"t/pools.yaml": []byte(pools), "t/projects.yaml": []byte(projects)}
	fx := plantest.PlanOn(t, repo, []string{"t/pools.yaml", "t/projects.yaml"}, `
node_pool "p2" {
  label_key   = "gpu"
  label_value = "p2"
}
department "e" {
  queue "p2" {
    name = "e-p2"
    gpu = { deserved = 2, limit = 2 }
  }
}
project "b" {
  department = "e"
  queue "p2" {
    name = "b-p2"
    gpu = { deserved = 2, limit = 2 }
  }
}
`)
	out, _ := spliced(t, fx, Options{})
	wantPools := pools[:strings.Index(pools, "---")] + `---
apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata:
  name: p2
  annotations:
    argocd.argoproj.io/sync-wave: "1"
spec:
  labelKey: gpu
  labelValue: p2
` + pools[strings.Index(pools, "---"):] + `---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata:
  name: e
  annotations:
    argocd.argoproj.io/sync-wave: "2"
    argocd.argoproj.io/sync-options: Prune=false
spec:
  queues:
    - name: e-p2
      nodepool: p2
      resources:
        gpu: {deserved: 2, limit: 2, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
`
	if got := string(out["t/pools.yaml"]); got != wantPools {
		t.Errorf("pools.yaml:\n%s\nwant\n%s", got, wantPools)
	}
	wantProjects := projects + `---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: b
spec:
  parent: e
  queues:
    - name: b-p2
      nodepool: p2
      resources:
        gpu: {deserved: 2, limit: 2, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
`
	if got := string(out["t/projects.yaml"]); got != wantProjects {
		t.Errorf("projects.yaml:\n%s\nwant\n%s", got, wantProjects)
	}
}

// One object per file, named after it: a new object gets a file of its own.
// A placement in the profile wins over every guess.
func TestSpliceNewFiles(t *testing.T) {
	a := "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata:\n  name: a\nspec:\n  parent: d\n  queues: []\n"
	b := strings.ReplaceAll(a, "name: a", "name: b")
	d := "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata:\n  name: d\nspec:\n  queues: []\n"
	desired := `project "c" {
  department = "d"
  queue "p" {
    name = "c-p"
  }
}
`
	repo := plantest.Repo{"p/a.yaml": []byte(a), "p/b.yaml": []byte(b), "d.yaml": []byte(d)}
	fx := plantest.PlanOn(t, repo, []string{"d.yaml", "p/a.yaml", "p/b.yaml"}, desired)
	out, sp := spliced(t, fx, Options{})
	want := "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata:\n  name: c\nspec:\n  parent: d\n  queues: [{name: c-p, nodepool: p, resources: {gpu: {deserved: 0, limit: -1, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}}]\n"
	if got := string(out["p/c.yaml"]); got != want {
		t.Errorf("p/c.yaml:\n%s\nwant\n%s", got, want)
	}
	if len(sp.Files) != 1 || !sp.Files[0].Created {
		t.Errorf("files: %+v", sp.Files)
	}

	repo[".krmplan.hcl"] = []byte("placement {\n  project = \"d.yaml\"\n}\n")
	fx = plantest.PlanOn(t, repo, []string{"d.yaml", "p/a.yaml", "p/b.yaml"}, desired)
	out, _ = spliced(t, fx, Options{})
	if got := string(out["d.yaml"]); !strings.HasPrefix(got, d+"---\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata:\n  name: c\n") {
		t.Errorf("d.yaml:\n%s", got)
	}
}

// Refusals name the file and the line, and say what to do.
func TestSpliceRefusals(t *testing.T) {
	base := `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: a-p1
      nodepool: p1
      resources: &std
        gpu: {deserved: 1, limit: 1}
    - name: a-p2
      nodepool: p2
      resources: *std
    - name: a-p3
      nodepool: p3
      resources:
        <<: *std
        cpu: {deserved: 1}
`
	for _, tc := range []struct{ name, desired, want string }{
		{"a value below an aliased mapping", `project "a" {
  queue "p2" {
    gpu { deserved = 2 }
  }
}`, "t.yaml:14: gpu.deserved of queue a-p2 is reached through the YAML alias *std (anchor &std on line 10); splice does not change a value shared through an anchor: edit it by hand, or render with --format patch"},
		{"a value from a merge key", `project "a" {
  queue "p3" {
    gpu { limit = 2 }
  }
}`, "t.yaml:18: gpu.limit of queue a-p3 is reached through the YAML alias *std (anchor &std on line 10); splice does not change a value shared through an anchor: edit it by hand, or render with --format patch"},
		{"an addition below an alias", `project "a" {
  queue "p2" {
    memory { limit = 2 }
  }
}`, "t.yaml:14: /spec/queues/1/resources is reached through the YAML alias *std (anchor &std on line 10); splice does not add memory of queue a-p2 to a value shared through an anchor: edit it by hand, or render with --format patch"},
		{"a value inside a shared anchor", `project "a" {
  queue "p1" {
    gpu { deserved = 2 }
  }
}`, "t.yaml:11: gpu.deserved of queue a-p1 lies inside the YAML anchor &std (line 10), which an alias shares: splice does not change it, as every alias of it would change too; edit it by hand, or render with --format patch"},
		{"an addition inside a shared anchor", `project "a" {
  queue "p1" {
    memory { limit = 2 }
  }
}`, "t.yaml:10: /spec/queues/0/resources lies inside the YAML anchor &std (line 10), which an alias shares: splice does not add memory of queue a-p1 to it, as every alias of it would change too; edit it by hand, or render with --format patch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": []byte(base)}, []string{"t.yaml"}, tc.desired)
			_, err := Prepare(fx.Plan, fx.Repo, Options{})
			var se *yamledit.Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a yamledit.Error", err)
			}
			if err.Error() != tc.want {
				t.Errorf("err = %s\nwant  %s", err, tc.want)
			}
		})
	}
	// The anchor itself may change: every alias of it changes with it,
	// which the plan shows (the aliases read the same value).
	t.Run("stale bytes", func(t *testing.T) {
		fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": []byte(base)}, []string{"t.yaml"}, `project "a" {
  queue "p3" {
    cpu { deserved = 5 }
  }
}`)
		fx.Repo["t.yaml"] = []byte(strings.Replace(base, "cpu: {deserved: 1}", "cpu: {deserved: 7}", 1))
		_, err := Prepare(fx.Plan, fx.Repo, Options{})
		want := `t.yaml:19: expected "1" (cpu.deserved of queue a-p3) at bytes 344-345, found "7": the file changed since the snapshot; take a new snapshot and plan again`
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant  %s", err, want)
		}
	})
}

// A comment on the changed line or just above it is named in a note.
func TestSpliceCommentNotes(t *testing.T) {
	src := `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  queues:
    - name: a-p1
      nodepool: p1
      resources:
        # two cards:
        # one for each team
        gpu: {deserved: 2, limit: 2}
        cpu: {deserved: 2, limit: 2}   # two cores
        memory: {deserved: 2, limit: 2}
`
	fx := plantest.PlanOn(t, plantest.Repo{"t.yaml": []byte(src)}, []string{"t.yaml"}, `project "a" {
  queue "p1" {
    gpu = { deserved = 3, limit = 3 }
    cpu { deserved = 3 }
    memory { deserved = 3 }
  }
}`)
	_, sp := spliced(t, fx, Options{})
	want := []string{
		"t.yaml:13: gpu.deserved of queue a-p1 changed from 2 to 3, gpu.limit of queue a-p1 from 2 to 3, but the comments on lines 11-12 were not reworded: # one for each team",
		"t.yaml:14: cpu.deserved of queue a-p1 changed from 2 to 3, but the comment on the same line was not reworded: # two cores",
	}
	if strings.Join(sp.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant\n%s", strings.Join(sp.Notes, "\n"), strings.Join(want, "\n"))
	}
}

// The fixtures of TestSpliceProfile.
const profileFxTenancy = `apiVersion: kai.resources/v1alpha1
kind: Project
metadata:
  name: a
spec:
  parent: d
  namespace: team-a
  queues:
    - name: a-p1
      nodepool: p1
      resources:
        gpu: {deserved: 2, limit: 2.5}
        cpu: {deserved: 1000, limit: 2000}
    - name: a-p2
      nodepool: p2
      resources:
        gpu: {deserved: 1, limit: 1}
`

const profileFxProf = `expectations "e.sh" {
  variable "A_GPU" {
    queue = "a-p1"
    field = "gpu.deserved"
  }
  variable "A_CPU" {
    queue = "a-p1"
    field = "cpu.limit"
  }
}
resource_quota_mirror {
  path = "ns"
}
resource_quota_mirror {
  path = "ns"
  pool = "p1"
  name = "p1-only"
  resource = "limits.nvidia.com/gpu"
}
reminder "docs/x.md" {}
cpu_memory_note = "cpu is sized per node"
`

const profileFxRq = `apiVersion: v1
kind: ResourceQuota
metadata: {name: gpu, namespace: team-a}
spec:
  hard: {requests.nvidia.com/gpu: "3", requests.cpu: "2"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: p1-only, namespace: team-a}
spec:
  hard:
    limits.nvidia.com/gpu: 2
`

const profileFxDesired = `project "a" {
  queue "p1" {
    gpu = { deserved = 3, limit = 4.5 }
    cpu { limit = 3000 }
  }
}`

// The profile's files: expectations rewritten with the tenancy, mirrors
// with WithMirrors (else named in a note), the cpu/memory note, and the
// refusals when they already disagreed with the tenancy.
func TestSpliceProfile(t *testing.T) {
	tenancy := profileFxTenancy
	prof := profileFxProf
	shell := "export A_GPU='2'\nA_CPU=2000 ; echo\n"
	rq := profileFxRq
	desired := profileFxDesired
	repo := func() plantest.Repo {
		return plantest.Repo{"t.yaml": []byte(tenancy), ".krmplan.hcl": []byte(prof), "e.sh": []byte(shell), "ns/a.yaml": []byte(rq)}
	}
	fx := plantest.PlanOn(t, repo(), []string{"t.yaml"}, desired)
	out, sp := spliced(t, fx, Options{WithMirrors: true})
	if got, want := string(out["e.sh"]), "export A_GPU='3'\nA_CPU=3000 ; echo\n"; got != want {
		t.Errorf("e.sh = %q, want %q", got, want)
	}
	wantRQ := strings.Replace(strings.Replace(rq, `requests.nvidia.com/gpu: "3"`, `requests.nvidia.com/gpu: "5"`, 1), "limits.nvidia.com/gpu: 2", "limits.nvidia.com/gpu: 4", 1)
	if got := string(out["ns/a.yaml"]); got != wantRQ {
		t.Errorf("ns/a.yaml:\n%s\nwant\n%s", got, wantRQ)
	}
	wantKept := []string{
		"e.sh: A_GPU (gpu.deserved of queue a-p1) 2 -> 3",
		"e.sh: A_CPU (cpu.limit of queue a-p1) 2000 -> 3000",
		"ns/a.yaml: requests.nvidia.com/gpu of ResourceQuota team-a/gpu 3 -> 5",
		"ns/a.yaml: limits.nvidia.com/gpu of ResourceQuota team-a/p1-only 2 -> 4",
	}
	if strings.Join(sp.KeptInStep, "\n") != strings.Join(wantKept, "\n") {
		t.Errorf("kept in step:\n%s", strings.Join(sp.KeptInStep, "\n"))
	}
	wantNotes := []string{".krmplan.hcl: cpu or memory quotas change: cpu is sized per node"}
	if strings.Join(sp.Notes, "\n") != strings.Join(wantNotes, "\n") || strings.Join(sp.Reminders, "|") != "docs/x.md is updated by hand" {
		t.Errorf("notes %q, reminders %q", sp.Notes, sp.Reminders)
	}
	if got := strings.Join(script.ProfileReminders(fx.Plan), "|"); got != "Reminder: docs/x.md is updated by hand|Note: cpu or memory quotas change: cpu is sized per node" {
		t.Errorf("ProfileReminders: %s", got)
	}

	// Without WithMirrors the ResourceQuotas stay and are named.
	_, sp = spliced(t, fx, Options{})
	wantNotes = []string{
		"ns/a.yaml:5: requests.nvidia.com/gpu of ResourceQuota team-a/gpu (project a's gpu limit in whole cards) goes from 3 to 5; not rewritten (render with --with-mirrors to rewrite it)",
		"ns/a.yaml:12: limits.nvidia.com/gpu of ResourceQuota team-a/p1-only (project a's gpu limit in whole cards) goes from 2 to 4; not rewritten (render with --with-mirrors to rewrite it)",
		".krmplan.hcl: cpu or memory quotas change: cpu is sized per node",
	}
	if strings.Join(sp.Notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notes:\n%s", strings.Join(sp.Notes, "\n"))
	}

	for _, tc := range []struct {
		name, file, content, desired, want string
	}{
		{"expectations already disagree", "e.sh", "export A_GPU=5\nA_CPU=2000\n", desired,
			"e.sh:1: A_GPU is 5, but gpu.deserved of queue a-p1 was 2 at the snapshot: the expectations already disagree with the tenancy; fix the file first"},
		{"a variable assigned twice", "e.sh", "A_GPU=2\nA_CPU=2000\nA_GPU=2\n", desired,
			"e.sh:3: A_GPU is assigned 2 times (lines 1, 3); keep one assignment"},
		{"a variable missing", "e.sh", "A_CPU=2000\n", desired,
			"e.sh: no assignment A_GPU=<number> for variable A_GPU (named in .krmplan.hcl:2)"},
		{"not a number", "e.sh", "A_GPU=two\nA_CPU=2000\n", desired,
			"e.sh:1: A_GPU=two is not a number"},
		{"a mirror already out of step", "ns/a.yaml", strings.Replace(rq, `"3"`, `"7"`, 1), desired,
			`ns/a.yaml:5: requests.nvidia.com/gpu of ResourceQuota team-a/gpu (project a's gpu limit in whole cards) is "7", but it should have been 3 at the snapshot: the mirror was already out of step; fix it by hand first`},
		{"an unlimited mirror", "ns/a.yaml", rq, `project "a" {
  queue "p2" {
    gpu { limit = unlimited }
  }
}`, "ns/a.yaml:5: requests.nvidia.com/gpu of ResourceQuota team-a/gpu (project a's gpu limit in whole cards): the gpu limit becomes unlimited, which a ResourceQuota cannot hold; remove or edit the ResourceQuota by hand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := repo()
			r[tc.file] = []byte(tc.content)
			fx := plantest.PlanOn(t, r, []string{"t.yaml"}, tc.desired)
			_, err := Prepare(fx.Plan, fx.Repo, Options{WithMirrors: true})
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant  %s", err, tc.want)
			}
		})
	}
}
