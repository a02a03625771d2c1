package profile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/tenancy"
)

func TestParse(t *testing.T) {
	src := `# The repository profile.
expectations "ops/expected.sh" {
  variable "WORKSPACE_GPU" {
    queue = "workspace-rtx"
    field = "gpu.deserved"
  }
  variable "WORKSPACE_WEIGHT" {
    queue = "workspace-rtx"
    field = "gpu.over_quota_weight"
  }
}

resource_quota_mirror {
  path = "namespaces/"
  pool = "rtx-pro-6000"
}

resource_quota_mirror {
  resource = "limits.nvidia.com/gpu"
  follows  = "deserved"
  name     = "gpu"
}

reminder "docs/capacity.md" {
  note = "the capacity table"
}
reminder "docs/teams.md" {}

cpu_memory_note = "see the LimitRanges"

placement {
  project = "tenancy/projects.yaml"
}
`
	p, err := Parse(FileName, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(p)
	want := `{"file":".krmplan.hcl","expectations":[{"file":"ops/expected.sh","variables":[{"name":"WORKSPACE_GPU","queue":"workspace-rtx","field":"gpu.deserved","line":3},{"name":"WORKSPACE_WEIGHT","queue":"workspace-rtx","field":"gpu.overQuotaWeight","line":7}],"line":2}],` +
		`"resource_quota_mirrors":[{"path":"namespaces","resource":"requests.nvidia.com/gpu","follows":"limit","pool":"rtx-pro-6000","line":13},{"name":"gpu","resource":"limits.nvidia.com/gpu","follows":"deserved","line":18}],` +
		`"reminders":[{"file":"docs/capacity.md","note":"the capacity table","line":24},{"file":"docs/teams.md","line":27}],"cpu_memory_note":"see the LimitRanges","placement":{"project":"tenancy/projects.yaml"}}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if p.Placement.For(tenancy.KindProject) != "tenancy/projects.yaml" || p.Placement.For(tenancy.KindNodePool) != "" {
		t.Errorf("placement: %+v", p.Placement)
	}
	var none *Placement
	if none.For(tenancy.KindProject) != "" {
		t.Error("a nil placement names a file")
	}
}

// Check passes what Parse makes and refuses, naming it, each edit of a
// decoded profile (state.json's, a plan's snapshot's) that Parse refuses.
func TestCheck(t *testing.T) {
	src := "expectations \"ops/expected.sh\" {\n  variable \"A\" {\n    queue = \"a-q\"\n    field = \"gpu.over_quota_weight\"\n  }\n}\n" +
		"resource_quota_mirror {\n  path = \"namespaces/\"\n}\nplacement {\n  project = \"./tenancy/projects.yaml\"\n}\n"
	parsed := func() *Profile {
		p, err := Parse(FileName, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := parsed().Check(); err != nil {
		t.Fatalf("the parsed profile: %v", err)
	}
	edits := []struct {
		edit func(p *Profile)
		want string
	}{
		{func(p *Profile) { p.Expectations[0].File = "../outside.sh" }, `.krmplan.hcl: expectations "../outside.sh" is not a clean path inside the repository, relative to its root`},
		{func(p *Profile) { p.Expectations[0].File = "/etc/profile" }, `.krmplan.hcl: expectations "/etc/profile" is not a clean path inside the repository, relative to its root`},
		{func(p *Profile) { p.Mirrors[0].Path = "a/../../b" }, `.krmplan.hcl: resource_quota_mirror path "a/../../b" is not a clean path inside the repository, relative to its root`},
		{func(p *Profile) { p.Placement.Project = "./tenancy/projects.yaml" }, `.krmplan.hcl: placement project "./tenancy/projects.yaml" is not a clean path inside the repository, relative to its root`},
		{func(p *Profile) { p.Mirrors[0].Follows = "usage" }, `.krmplan.hcl: a resource_quota_mirror follows "usage"; it follows the gpu "limit" or "deserved"`},
		{func(p *Profile) { p.Expectations[0].Variables[0].Field = "gpu.over_quota_weight" }, `.krmplan.hcl: variable "A": field "gpu.over_quota_weight" is not a quota field (gpu, cpu or memory . deserved, limit or overQuotaWeight)`},
		{func(p *Profile) { p.Expectations[0].Variables[0].Field = "gpu.allocated" }, `.krmplan.hcl: variable "A": field "gpu.allocated" is not a quota field (gpu, cpu or memory . deserved, limit or overQuotaWeight)`},
		{func(p *Profile) { p.Expectations[0].Variables[0].Queue = "" }, `.krmplan.hcl: variable "A" has no queue`},
		{func(p *Profile) {
			e := &p.Expectations[0]
			e.Variables = append(e.Variables, e.Variables[0])
		}, `.krmplan.hcl: variable "A" is named twice for ops/expected.sh`},
	}
	for _, c := range edits {
		p := parsed()
		c.edit(p)
		if err := p.Check(); err == nil || err.Error() != c.want {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
}

// Every mistake is a diagnostic naming the file, the line and the column.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"syntax", "expectations \"x\" {\n", `.krmplan.hcl:1,18-19: Unclosed configuration block; There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.`},
		{"unknown block", "mirror {}\n", `.krmplan.hcl:1,1-7: Unsupported block type; Blocks of type "mirror" are not expected here.`},
		{"unknown attribute", "reminder \"a\" {\n  text = \"x\"\n}\n", `.krmplan.hcl:2,3-7: Unsupported argument; An argument named "text" is not expected here.`},
		{"bad field", "expectations \"e.sh\" {\n  variable \"X\" {\n    queue = \"q\"\n    field = \"gpu.quota\"\n  }\n}\n", `.krmplan.hcl:2,3-15: Invalid field; field "gpu.quota": write <resource>.<field> with resource gpu, cpu or memory and field deserved, limit or overQuotaWeight (e.g. "gpu.deserved").`},
		{"missing queue", "expectations \"e.sh\" {\n  variable \"X\" {\n    field = \"gpu.limit\"\n  }\n}\n", `.krmplan.hcl:2,16-16: Missing required argument; The argument "queue" is required, but no definition was found.`},
		{"duplicate variable", "expectations \"e.sh\" {\n  variable \"X\" {\n    queue = \"q\"\n    field = \"gpu.limit\"\n  }\n  variable \"X\" {\n    queue = \"q\"\n    field = \"gpu.limit\"\n  }\n}\n", `.krmplan.hcl:6,3-15: Duplicate variable; variable "X" is named twice for e.sh.`},
		{"bad follows", "resource_quota_mirror {\n  follows = \"weight\"\n}\n", `.krmplan.hcl:1,1-22: Invalid follows; follows = "weight": a mirror follows the gpu "limit" or "deserved".`},
		{"escaping path", "reminder \"x\" {}\nexpectations \"../x.sh\" {}\n", `.krmplan.hcl:2,1-23: Invalid path; expectations "../x.sh" must be a path inside the repository, relative to its root.`},
		{"two placements", "placement {}\nplacement {}\n", `.krmplan.hcl:2,1-10: Duplicate placement; only one placement block is allowed.`},
		{"a number for a string", "cpu_memory_note = 3\nreminder \"x\" { note = [] }\n", `.krmplan.hcl:2,23-24: Unsuitable value type; Unsuitable value: string required, but have tuple`},
		// hcl's parser would overflow Go's stack, and print 1e3000000 for
		// tens of seconds.
		{"too deep", "cpu_memory_note = " + strings.Repeat("(", 100000) + strings.Repeat(")", 100000) + "\n", `.krmplan.hcl:1,275-276: Nesting too deep; The expression nests 100000 levels deep; krmplan allows 256. ` +
			`Each bracket, brace, parenthesis, quote, template sequence and operator chained in one expression is a level; this is where the nesting passes 256.`},
		{"huge number", "cpu_memory_note = 1e3000000\n", `.krmplan.hcl:1,19-28: Number out of range; The number 1e3000000 is too large: quota numbers must be below 10^18 in magnitude.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(FileName, []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant  %s", err, tc.want)
			}
		})
	}
}

func TestValidField(t *testing.T) {
	for f, ok := range map[string]bool{"gpu.deserved": true, "cpu.limit": true, "memory.overQuotaWeight": true, "memory.over_quota_weight": true,
		"gpu": false, "tpu.limit": false, "gpu.quota": false, ".limit": false, "gpu.deserved.x": false} {
		if ValidField(f) != ok {
			t.Errorf("ValidField(%q) = %v", f, !ok)
		}
	}
}

// FuzzParse: no input makes Parse panic, and what it accepts names only
// valid fields and paths inside the repository.
func FuzzParse(f *testing.F) {
	f.Add("expectations \"a.sh\" {\n  variable \"X\" {\n    queue = \"q\"\n    field = \"gpu.limit\"\n  }\n}\n")
	f.Add("resource_quota_mirror {\n  path = \"ns\"\n}\nplacement { project = \"p.yaml\" }\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse(FileName, []byte(src))
		if err != nil {
			return
		}
		for _, e := range p.Expectations {
			for _, v := range e.Variables {
				if !ValidField(v.Field) {
					t.Fatalf("accepted field %q", v.Field)
				}
			}
		}
		for _, m := range p.Mirrors {
			if m.Follows != "limit" && m.Follows != "deserved" {
				t.Fatalf("accepted follows %q", m.Follows)
			}
		}
	})
}
