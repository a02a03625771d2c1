package config

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	diagtext "github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// dump prints an Overlay compactly: every value with the line:column where
// its expression starts.
func dump(ov *Overlay) string {
	var b strings.Builder
	at := func(r hcl.Range) string { return fmt.Sprintf("@%d:%d", r.Start.Line, r.Start.Column) }
	str := func(name string, s *Str) {
		if s != nil {
			fmt.Fprintf(&b, " %s=%q%s", name, s.Value, at(s.Range))
		}
	}
	queues := func(qs []Queue) {
		for _, q := range qs {
			fmt.Fprintf(&b, "  queue %s%s", q.Pool, at(q.DefRange))
			str("name", q.Name)
			if q.Priority != nil {
				fmt.Fprintf(&b, " priority=%d%s", q.Priority.Value, at(q.Priority.Range))
			}
			for _, r := range quota.Resources {
				res := q.Resource(r)
				if res == nil {
					continue
				}
				fmt.Fprintf(&b, " %s%s{", r, at(res.Range))
				for _, f := range tenancy.QuotaFields {
					if n := res.Field(f); n != nil {
						fmt.Fprintf(&b, " %s=%s%s", ResourceKeys[f], n.Value, at(n.Range))
					}
				}
				b.WriteString(" }")
			}
			b.WriteString("\n")
		}
	}
	for _, np := range ov.NodePools {
		fmt.Fprintf(&b, "node_pool %s%s", np.Name, at(np.DefRange))
		str("label_key", np.LabelKey)
		str("label_value", np.LabelValue)
		b.WriteString("\n")
	}
	for _, d := range ov.Departments {
		fmt.Fprintf(&b, "department %s%s\n", d.Name, at(d.DefRange))
		queues(d.Queues)
	}
	for _, p := range ov.Projects {
		fmt.Fprintf(&b, "project %s%s", p.Name, at(p.DefRange))
		str("department", p.Department)
		str("namespace", p.Namespace)
		if p.DefaultNodePools != nil {
			fmt.Fprintf(&b, " default_node_pools=%q%s", p.DefaultNodePools.Values, at(p.DefaultNodePools.Range))
		}
		b.WriteString("\n")
		queues(p.Queues)
	}
	return b.String()
}

// diag is what the tests assert of a diagnostic: its summary, the line of
// its Subject and, when not empty, the source text under the Subject.
type diag struct {
	Summary string
	Line    int
	Text    string
}

func load(t *testing.T, src string, vars []string, varFiles []VarFile) (*Overlay, hcl.Diagnostics) {
	t.Helper()
	ov, diags := LoadOrdered("desired.hcl", []byte(src), vars, varFiles)
	if ov == nil {
		t.Fatal("LoadOrdered returned a nil Overlay")
	}
	for _, d := range diags {
		if d.Subject == nil {
			t.Errorf("diagnostic without a Subject: %s: %s", d.Summary, d.Detail)
		}
		if d.Summary == InternalErrorSummary {
			t.Errorf("internal error: %s", d.Detail)
		}
	}
	var buf bytes.Buffer
	if err := diagtext.WriteText(&buf, diagtext.FromHCLs(diags, ov.Files), ov.Files, diagtext.Style{}); err != nil {
		t.Errorf("diag.WriteText: %v", err)
	}
	return ov, diags
}

// subjectText is the source under d's Subject.
func subjectText(ov *Overlay, d *hcl.Diagnostic) string {
	f := ov.Files[d.Subject.Filename]
	if f == nil || d.Subject.End.Byte > len(f.Bytes) || d.Subject.Start.Byte > d.Subject.End.Byte {
		return "<no source>"
	}
	return string(f.Bytes[d.Subject.Start.Byte:d.Subject.End.Byte])
}

func TestDesignExample(t *testing.T) {
	src, err := os.ReadFile("testdata/example.hcl")
	if err != nil {
		t.Fatal(err)
	}
	ov, diags := load(t, string(src), nil, nil)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := `node_pool h100@3:1 label_key="example.com/gpu-class"@4:17 label_value="h100"@5:17
department research@8:1
  queue h100@9:3 name="research-h100"@10:12 gpu@11:5{ deserved=32@11:24 limit=-1@11:48 over_quota_weight=2@11:79 }
project workspace@15:1 department="platform"@16:16 namespace="workspace"@17:16
  queue rtx-pro-6000@18:3 priority=100@19:16 gpu@20:5{ deserved=2@21:18 }
`
	if got := dump(ov); got != want {
		t.Errorf("overlay:\n%s\nwant:\n%s", got, want)
	}
	g := ov.Departments[0].Queues[0].GPU
	if !g.Limit.Value.IsUnlimited() || !g.Limit.Value.Equal(quota.Unlimited) {
		t.Errorf("limit = unlimited gave %s, want -1", g.Limit.Value)
	}
	if !g.Deserved.Value.Equal(quota.FromInt(32)) {
		t.Errorf("local.h100 / 2 = %s, want 32", g.Deserved.Value)
	}
	if ov.File != "desired.hcl" || !bytes.Equal(ov.Source, src) || ov.Files["desired.hcl"] == nil {
		t.Errorf("File/Source/Files not kept: %q, %d bytes, %v", ov.File, len(ov.Source), ov.Files)
	}
	if len(ov.Variables) != 0 {
		t.Errorf("Variables = %v, want empty", ov.Variables)
	}
}

func TestFeatures(t *testing.T) {
	src, err := os.ReadFile("testdata/features.hcl")
	if err != nil {
		t.Fatal(err)
	}
	ov, diags := load(t, string(src), nil, nil)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := `node_pool h100@25:1 label_key="example.com/gpu-class"@26:17 label_value="h100"@27:17
department research@30:1
  queue h100@31:3 name="research-h100"@32:16 priority=100@33:16 gpu@34:5{ deserved=32@34:29 limit=-1@34:49 over_quota_weight=2@34:80 } cpu@35:5{ deserved=64000@35:22 } memory@36:5{ deserved=512000@37:18 limit=1024000@38:18 }
project ml@43:1 department="research"@44:24 namespace="ml-team"@45:24 default_node_pools=["h100"]@46:24
  queue h100@47:3 name="ml-h100"@48:12 gpu@49:5{ deserved=16@49:12 limit=-1@49:12 }
`
	if got := dump(ov); got != want {
		t.Errorf("overlay:\n%s\nwant:\n%s", got, want)
	}
	wantVars := map[string]string{"h100_cards": "64", "gpu_class": `"h100"`, "pools": `["h100"]`}
	if fmt.Sprint(ov.Variables) != fmt.Sprint(wantVars) {
		t.Errorf("Variables = %v, want %v", ov.Variables, wantVars)
	}
}

func TestOneLineBlocks(t *testing.T) {
	ov, diags := load(t, `
project "p" {
  queue "a" {
    gpu { deserved = 2 }
    cpu { limit = unlimited }
    memory {}
  }
}
`, nil, nil)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := `project p@2:1
  queue a@3:3 gpu@4:5{ deserved=2@4:22 } cpu@5:5{ limit=-1@5:19 } memory@6:5{ }
`
	if got := dump(ov); got != want {
		t.Errorf("overlay:\n%s\nwant:\n%s", got, want)
	}
}

func TestExactNumbers(t *testing.T) {
	ov, diags := load(t, `
locals {
  h100  = 64
  tenth = 0.1
  x     = 5
}
department "d" {
  queue "a" { gpu = { deserved = 0.1, limit = 0.1 + 0.2, over_quota_weight = local.h100 / 2 } }
  queue "b" { gpu = { deserved = max(2, local.x), limit = min(local.h100, 100), over_quota_weight = sum([1, 2.5, local.tenth]) } }
  queue "c" { gpu = { deserved = ceil(local.h100 / 3), limit = floor(7.9), over_quota_weight = abs(-4) } }
  queue "d" { cpu = { deserved = 1e3, limit = 1.50, over_quota_weight = local.tenth * 3 } }
  queue "e" { memory = { deserved = length(["a", "b"]), limit = -1, over_quota_weight = 0 } }
}
`, nil, nil)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := map[string][3]string{
		"a": {"0.1", "0.3", "32"},
		"b": {"5", "64", "3.6"},
		"c": {"22", "7", "4"},
		"d": {"1000", "1.5", "0.3"},
		"e": {"2", "-1", "0"},
	}
	for _, q := range ov.Departments[0].Queues {
		var res *Resource
		for _, r := range quota.Resources {
			if x := q.Resource(r); x != nil {
				res = x
			}
		}
		got := [3]string{res.Deserved.Value.String(), res.Limit.Value.String(), res.OverQuotaWeight.Value.String()}
		if got != want[q.Pool] {
			t.Errorf("queue %s: got %v, want %v", q.Pool, got, want[q.Pool])
		}
	}
	a := ov.Departments[0].Queues[0].GPU
	if !a.Deserved.Value.Equal(quota.MustParse("0.1")) {
		t.Errorf("0.1 is %s, not exactly 0.1", a.Deserved.Value)
	}
	if !a.Limit.Value.Equal(quota.MustParse("0.3")) {
		t.Errorf("0.1 + 0.2 is %s, not exactly 0.3", a.Limit.Value)
	}
}

func TestVariables(t *testing.T) {
	src := `
variable "cards"  { default = 64 }
variable "class"  { type = string }
variable "weight" { type = number }
variable "pools"  { type = list(string) }
variable "limit"  {}
variable "zero"   {
  type    = string
  default = "x"
}
node_pool "p" { label_value = var.class }
project "q" {
  default_node_pools = var.pools
  queue "p" {
    name = var.zero
    gpu  = { deserved = var.cards / 4, limit = var.limit, over_quota_weight = var.weight }
  }
}
`
	files := []VarFile{
		{Name: "a.hcl", Src: []byte("cards = 32\nweight = 1\npools = [\"a\"]\n")},
		{Name: "b.hcl", Src: []byte("weight = 0.5\n")},
	}
	vars := []string{"class=h100", "limit=unlimited", "pools=[\"p\", \"q\"]", "zero=007"}
	ov, diags := load(t, src, vars, files)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := `node_pool p@11:1 label_value="h100"@11:31
project q@12:1 default_node_pools=["p" "q"]@13:24
  queue p@14:3 name="007"@15:12 gpu@16:5{ deserved=8@16:25 limit=-1@16:48 over_quota_weight=0.5@16:79 }
`
	if got := dump(ov); got != want {
		t.Errorf("overlay:\n%s\nwant:\n%s", got, want)
	}
	wantVars := map[string]string{
		"cards": "32", "class": `"h100"`, "weight": "0.5", "pools": `["p", "q"]`, "limit": "-1", "zero": `"007"`,
	}
	if fmt.Sprint(ov.Variables) != fmt.Sprint(wantVars) {
		t.Errorf("Variables = %v, want %v", ov.Variables, wantVars)
	}

	// Load applies var files in name order: b.hcl after a.hcl.
	ov, diags = Load("desired.hcl", []byte(src), vars, map[string][]byte{"b.hcl": files[1].Src, "a.hcl": files[0].Src})
	if len(diags) != 0 || ov.Variables["weight"] != "0.5" {
		t.Errorf("Load: weight = %q, diags %v", ov.Variables["weight"], diags)
	}

	// Without --var, an untyped variable takes a word as a string and a
	// number as a number.
	ov, diags = load(t, `
variable "a" {}
variable "b" {}
variable "c" { default = { x = 1, "a b" = [true, null] } }
`, []string{"a=h100", "b=0.10", "a=h200"}, nil)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	wantVars = map[string]string{"a": `"h200"`, "b": "0.1", "c": `{ "a b" = [true, null], x = 1 }`}
	if fmt.Sprint(ov.Variables) != fmt.Sprint(wantVars) {
		t.Errorf("Variables = %v, want %v", ov.Variables, wantVars)
	}
}

// diagnosticsCases are the cases of TestDiagnostics.
var diagnosticsCases = []struct {
	name     string
	src      string
	vars     []string
	varFiles []VarFile
	want     []diag
	detail   string // a text the first diagnostic's detail must contain
}{
	{
		name: "missing variable",
		src: `variable "cards" {
  type = number
}
department "d" {
  queue "a" {
    gpu { deserved = var.cards }
  }
}`,
		want:   []diag{{"No value for required variable", 1, `variable "cards"`}},
		detail: `--var cards=`,
	},
	{
		name: "undeclared --var",
		src:  `variable "cards" { default = 1 }`,
		vars: []string{"card=4"},
		want: []diag{{"Value for undeclared variable", 1, "4"}},
	},
	{
		name: "malformed --var",
		src:  `variable "cards" { default = 1 }`,
		vars: []string{"cards"},
		want: []diag{{"Invalid --var option", 1, "cards"}},
	},
	{
		name:   "--var of the wrong type",
		src:    `variable "cards" { type = number }`,
		vars:   []string{"cards=h100"},
		want:   []diag{{"Invalid value for variable", 1, "h100"}},
		detail: "type constraint (number): a number is required",
	},
	{
		name:     "var file: undeclared and wrong type",
		src:      `variable "cards" { type = list(number) }`,
		varFiles: []VarFile{{Name: "v.hcl", Src: []byte("cards = [1, \"x\"]\nother = 2\n")}},
		want: []diag{
			{"Invalid value for variable", 1, `[1, "x"]`},
			{"Value for undeclared variable", 2, "other"},
		},
	},
	{
		name: "bad default",
		src:  "variable \"cards\" {\n  type    = number\n  default = \"many\"\n}",
		want: []diag{{"Invalid default value for variable", 3, `"many"`}},
	},
	{
		name: "duplicate variable",
		src:  "variable \"a\" { default = 1 }\nvariable \"a\" { default = 2 }\n",
		want: []diag{{`Duplicate variable "a"`, 2, `variable "a"`}},
	},
	{
		name: "unknown resource key, attribute form",
		src: `department "d" {
  queue "a" {
    gpu = { deserved = 1, limt = 3 }
  }
}`,
		want:   []diag{{"Unsupported argument", 3, "limt"}},
		detail: `Did you mean "limit"?`,
	},
	{
		name: "unknown resource key, block form",
		src: `department "d" {
  queue "a" {
    cpu {
      deserved = 1
      weight   = 2
    }
  }
}`,
		want: []diag{{"Unsupported argument", 5, "weight"}},
	},
	{
		name: "duplicate key in a resource object",
		src:  "department \"d\" {\n  queue \"a\" { gpu = { limit = 1, limit = 2 } }\n}",
		want: []diag{{"Duplicate argument", 2, "limit"}},
	},
	{
		name: "resource given twice",
		src: `department "d" {
  queue "a" {
    gpu = { deserved = 1 }
    gpu { limit = 2 }
    cpu { limit = 2 }
    cpu { limit = 3 }
  }
}`,
		want: []diag{
			{"Duplicate gpu setting", 4, "gpu"},
			{"Duplicate cpu setting", 6, "cpu"},
		},
		detail: "on line 3",
	},
	{
		name: "duplicate queue label",
		src: `department "d" {
  queue "h100" { name = "a" }
  queue "h100" { name = "b" }
}`,
		want:   []diag{{`Duplicate queue "h100"`, 3, `queue "h100"`}},
		detail: "defined on line 2",
	},
	{
		name: "duplicate objects",
		src: `node_pool "a" {}
node_pool "a" {}
department "d" {}
project "p" {}
department "d" {}
project "p" {}`,
		want: []diag{
			{`Duplicate node_pool "a"`, 2, `node_pool "a"`},
			{`Duplicate department "d"`, 5, `department "d"`},
			{`Duplicate project "p"`, 6, `project "p"`},
		},
		detail: "defined on line 1",
	},
	{
		name: "string where a number is expected",
		src: `department "d" {
  queue "a" {
    gpu = { deserved = "4" }
    cpu { limit = true }
    memory { over_quota_weight = null }
  }
}`,
		want: []diag{
			{`Invalid value for "deserved"`, 3, `"4"`},
			{`Invalid value for "limit"`, 4, "true"},
			{`Invalid value for "over_quota_weight"`, 5, "null"},
		},
		detail: `A number is required, but this is a string ("4").`,
	},
	{
		name: "number where a string is expected",
		src:  `project "p" { namespace = 4 }`,
		want: []diag{{`Invalid value for "namespace"`, 1, "4"}},
	},
	{
		name:   "non-integer priority",
		src:    "project \"p\" {\n  queue \"a\" { priority = 100.5 }\n}",
		want:   []diag{{`Invalid value for "priority"`, 2, "100.5"}},
		detail: "A whole number is required, but the value is 100.5.",
	},
	{
		name: "priority out of int32 range",
		src:  "project \"p\" {\n  queue \"a\" { priority = 2147483648 }\n}",
		want: []diag{{`Invalid value for "priority"`, 2, "2147483648"}},
	},
	{
		name: "inexact, infinite and huge numbers",
		src: `department "d" {
  queue "a" {
    gpu = { deserved = 1 / 3, limit = pow(10, 400), over_quota_weight = 1e18 }
  }
}`,
		want: []diag{
			{`Invalid value for "deserved"`, 3, "1 / 3"},
			{"Number out of range", 3, "pow(10, 400)"},
			{"Number out of range", 3, "1e18"},
		},
		detail: "more than 18 digits after the decimal point",
	},
	{
		name: "locals cycle",
		src: `locals {
  a = local.b + 1
  b = local.c
  c = local.a * 2
  d = local.a + 1
}
department "d" {
  queue "a" { gpu = { deserved = local.d } }
}`,
		want:   []diag{{"Circular reference in locals", 4, "local.a"}},
		detail: "local.a → local.b → local.c → local.a",
	},
	{
		name: "self reference",
		src:  `locals { a = local.a }`,
		want: []diag{{"Circular reference in locals", 1, "local.a"}},
	},
	{
		name: "duplicate local",
		src:  "locals { a = 1 }\nlocals { a = 2 }",
		want: []diag{{`Duplicate local "a"`, 2, "a"}},
	},
	{
		name: "unknown block type and attribute",
		src: `department "d" {
  color = "red"
  queue "a" {
    gpus { deserved = 1 }
  }
}
tenant "x" {}`,
		want: []diag{
			{"Unsupported argument", 2, "color"},
			{"Unsupported block type", 4, "gpus"},
			{"Unsupported block type", 7, "tenant"},
		},
	},
	{
		name: "undefined local and function error",
		src: `department "d" {
  queue "a" {
    gpu = { deserved = local.nope, limit = max("x") }
  }
}`,
		want: []diag{
			{"Unsupported attribute", 3, ".nope"},
			{"Invalid function argument", 3, "x"},
		},
	},
	{
		name: "syntax error",
		src:  "department \"d\" {\n  queue \"a\" {\n",
		want: []diag{{"Unclosed configuration block", 2, "{"}},
	},
	{
		name: "resource is not an object",
		src:  "department \"d\" {\n  queue \"a\" { gpu = 4 }\n}",
		want: []diag{{`Invalid value for "gpu"`, 2, "4"}},
	},
	{
		name: "empty names",
		src:  "department \"\" {}\nproject \"p\" { department = \"\" }\nproject \"q\" { namespace = \"\" }",
		want: []diag{
			{"Invalid department name", 1, `""`},
			{`Invalid value for "namespace"`, 3, `""`},
		},
	},
}

func TestDiagnostics(t *testing.T) {
	tests := diagnosticsCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ov, diags := load(t, tt.src, tt.vars, tt.varFiles)
			var got []diag
			for _, d := range diags {
				got = append(got, diag{d.Summary, d.Subject.Start.Line, subjectText(ov, d)})
			}
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
				t.Errorf("diagnostics:\n%#v\nwant:\n%#v", got, tt.want)
				for _, d := range diags {
					t.Logf("%s", d)
				}
			}
			for _, d := range diags {
				if d.Severity != hcl.DiagError {
					t.Errorf("%s: severity %v, want error", d.Summary, d.Severity)
				}
			}
			if tt.detail != "" && len(diags) > 0 && !strings.Contains(diags[0].Detail, tt.detail) {
				t.Errorf("detail %q does not contain %q", diags[0].Detail, tt.detail)
			}
		})
	}
}

func TestDiagnosticsText(t *testing.T) {
	ov, diags := load(t, "department \"d\" {\n  queue \"a\" { gpu = { deserved = 1, limt = 3 } }\n}\n", []string{"x=1"}, nil)
	var buf bytes.Buffer
	if err := diagtext.WriteText(&buf, diagtext.FromHCLs(diags, ov.Files), ov.Files, diagtext.Style{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"Error: Unsupported argument",
		"on desired.hcl line 2, in department \"d\", queue \"a\":",
		"2:   queue \"a\" { gpu = { deserved = 1, limt = 3 } }",
		"Error: Value for undeclared variable",
		"on <value for var.x> line 1:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestQueueResource(t *testing.T) {
	var q *Queue
	if q.Resource(quota.GPU) != nil {
		t.Error("nil queue has a resource")
	}
	g := &Resource{Deserved: &Num{Value: quota.FromInt(1)}}
	q = &Queue{GPU: g}
	if q.Resource(quota.GPU) != g || q.Resource(quota.CPU) != nil || q.Resource("disk") != nil {
		t.Error("Resource by name")
	}
	if g.Field(tenancy.Deserved) != g.Deserved || g.Field(tenancy.Limit) != nil || g.Field(tenancy.OverQuotaWeight) != nil {
		t.Error("Field")
	}
	var none *Resource
	if none.Field(tenancy.Deserved) != nil {
		t.Error("nil resource has a value")
	}
}

// The range of quota numbers is quota.Parse's, the same for desired.hcl
// as for tenancy YAML and state.json: below 10^18 in magnitude, at most 18
// digits after the decimal point. A literal outside it is an error naming
// the literal; a result of arithmetic is held to the same magnitude, and a
// value set as a quota to the same precision, exactly: nothing is rounded
// (1e16 + 1/3 was once read as 10000000000000000.33333333333333333); and
// a value the API server cannot hold exactly (it reads a number with a
// fraction as a float64) is an error naming what it would store.
func TestNumberRangeIsQuotas(t *testing.T) {
	src := `department "d" {
  queue "a" { gpu = { deserved = 1 / 3, limit = 1e400000, over_quota_weight = 1e18 } }
  queue "b" { gpu = { deserved = -1e18, limit = 1e-19, over_quota_weight = 999999999999999999 } }
  queue "c" { gpu = { deserved = 0.000000000000000001, limit = -999999999999999999.5 } }
  queue "e" { gpu = { deserved = 0.10000000000000000000000000000000000001, limit = 1e16 + 1 / 3 } }
  queue "f" { gpu = { deserved = 1e17 * 10, limit = 1e-18 / 10, over_quota_weight = 1e17 + 0.000000000000000005 } }
  queue "g" { gpu = { deserved = floor(1e17 / 3), limit = 0.1 + 0.2, over_quota_weight = pow(10, 18) } }
}`
	ov, diags := load(t, src, nil, nil)
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%d %s: %s: %s", d.Subject.Start.Line, subjectText(ov, d), d.Summary, d.Detail))
	}
	want := []string{
		`2 1 / 3: Invalid value for "deserved": The value 0.3333333333333333333333333333333333 has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18; round it (floor, ceil) or write the number.`,
		`2 1e400000: Number out of range: The number 1e400000 is too large: quota numbers must be below 10^18 in magnitude.`,
		`2 1e18: Number out of range: The number 1e18 is too large: quota numbers must be below 10^18 in magnitude.`,
		`3 1e18: Number out of range: The number 1e18 is too large: quota numbers must be below 10^18 in magnitude.`,
		`3 1e-19: Number out of range: The number 1e-19 has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18. krmplan does not round a number: write it with at most 18 digits after the point.`,
		`4 -999999999999999999.5: Invalid value for "limit": The value -999999999999999999.5 cannot be stored exactly: the API server reads it as the float64 -1000000000000000000; write a number of at most 15 significant digits.`,
		`5 0.10000000000000000000000000000000000001: Number out of range: The number 0.10000000000000000000000000000000000001 has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18. krmplan does not round a number: write it with at most 18 digits after the point.`,
		`5 1e16 + 1 / 3: Invalid value for "limit": The value 10000000000000000.33333333333333333 has more than 18 digits after the decimal point: quota numbers are exact decimals with at most 18; round it (floor, ceil) or write the number.`,
		`6 1e17 * 10: Number out of range: The result of this operation is 1000000000000000000, which is too large: quota numbers must be below 10^18 in magnitude.`,
		`6 1e-18 / 10: Number out of range: The result of this operation is 0.0000000000000000001, which is below 10^-18 without being 0: quota numbers have at most 18 digits after the decimal point.`,
		`6 1e17 + 0.000000000000000005: Invalid value for "over_quota_weight": The value 100000000000000000.000000000000000005 cannot be stored exactly: the API server reads it as the float64 100000000000000000; write a number of at most 15 significant digits.`,
		`7 pow(10, 18): Number out of range: The result of pow is 1000000000000000000, which is too large: quota numbers must be below 10^18 in magnitude.`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
	}
	var values []string
	for _, q := range ov.Departments[0].Queues {
		for f, k := range ResourceKeys {
			if n := q.GPU.Field(tenancy.QuotaField(f)); n != nil {
				values = append(values, q.Pool+"."+k+"="+n.Value.String())
			}
		}
	}
	wantValues := []string{
		"b.over_quota_weight=999999999999999999",
		"c.deserved=0.000000000000000001",
		"g.deserved=33333333333333333", "g.limit=0.3",
	}
	if !reflect.DeepEqual(values, wantValues) {
		t.Errorf("values:\n got %q\nwant %q", values, wantValues)
	}
}
