package diag

import (
	"encoding/json"
	"testing"

	"github.com/krmplan/krmplan/tenancy"
)

// finding is a finding with a desired.hcl range and a tenancy line, and a
// message that holds markdown, workflow-command and terminal syntax.
func finding() Diagnostic {
	d := Diagnostic{Severity: Error, Code: "projects-over-department", Summary: "q|x: 5 > 4 *cards* 100%\n\x1b[2Kok",
		Address: "project.workspace", Queue: "q", Pool: "h100", Resource: "gpu", AlreadyPresent: true, Before: "q: <b>4</b>"}
	d.SetRanges([]Range{
		RangeOf(tenancy.Location{File: "desired.hcl", Line: 3, Column: 22, EndLine: 3, EndColumn: 23, StartByte: 50, EndByte: 51, Desired: true}, nil),
		RangeOf(tenancy.Location{File: "t,a:.yaml", Line: 18, Column: 28}, nil),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 30, Base: true}, nil),
	})
	return d
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(JSONOf([]Diagnostic{finding(), {Severity: Warning, Summary: "Deprecated", Detail: "use x"}}))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"severity":"error","code":"projects-over-department","summary":"q|x: 5 \u003e 4 *cards* 100%\n\u001b[2Kok",` +
		`"address":"project.workspace","queue":"q","pool":"h100","resource":"gpu","already_present":true,"before":"q: \u003cb\u003e4\u003c/b\u003e",` +
		`"range":{"filename":"desired.hcl","start":{"line":3,"column":22,"byte":50},"end":{"line":3,"column":23,"byte":51}},` +
		`"related_ranges":[{"filename":"t,a:.yaml","start":{"line":18,"column":28}},{"filename":"t.yaml","start":{"line":30,"column":0},"at_base":true}]},` +
		`{"severity":"warning","code":"","summary":"Deprecated","detail":"use x","already_present":false,"range":null,"related_ranges":[]}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestMarkdownItem(t *testing.T) {
	want := "- ❌ **Error** `projects-over-department`: q\\|x: 5 \\> 4 \\*cards\\* 100%\\\\n\\\\x1b\\[2Kok (`desired.hcl` line 3, `t,a:.yaml` line 18, at the base: `t.yaml` line 30)" +
		" — *already present before this plan*, which changes it; before: q: \\<b\\>4\\</b\\>\n"
	if got := MarkdownItem(finding()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Two values on one line are one line to look at, as in the text;
	// the same line at the base is another place.
	twice := Diagnostic{Severity: Error, Code: "deserved-over-limit", Summary: "v: 5 > 4"}
	twice.SetRanges([]Range{
		RangeOf(tenancy.Location{File: "t.yaml", Line: 55, Column: 28}, nil),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 55, Column: 40}, nil),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 55, Base: true}, nil),
		RangeOf(tenancy.Location{File: "t.yaml", Line: 55, Column: 3, Base: true}, nil),
	})
	if got, want := MarkdownItem(twice), "- ❌ **Error** `deserved-over-limit`: v: 5 \\> 4 (`t.yaml` line 55, at the base: `t.yaml` line 55)\n"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	hclProblem := Diagnostic{Severity: Warning, Summary: "Deprecated", Detail: "use\n  [x]", Subject: &Range{File: "d.hcl", HCL: true, Start: Pos{Line: 2}}}
	if got, want := MarkdownItem(hclProblem), "- ⚠️ **Warning**: Deprecated — use \\[x\\] (`d.hcl` line 2)\n"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAnnotation(t *testing.T) {
	at := func(file string, line int) []Range { return []Range{{File: file, Start: Pos{Line: line}}} }
	for _, tc := range []struct {
		d    Diagnostic
		rs   []Range
		want string
	}{
		{Diagnostic{Code: "projects-over-department", Severity: Error, Summary: "q: 5 > 4"},
			append(at("t/a.yaml", 18), at("t/a.yaml", 33)...),
			"::error file=t/a.yaml,line=18,title=projects-over-department::q: 5 > 4"},
		{Diagnostic{Code: "namespace-missing", Severity: Warning, Summary: "100% sure\nnext line\r"}, at("odd,name:x.yaml", 2),
			"::warning file=odd%2Cname%3Ax.yaml,line=2,title=namespace-missing::100%25 sure%0Anext line%0D"},
		// An ANSI escape (a fake green "all checks passed" over the line)
		// and a C1 control are escaped; a file name cannot end the property.
		{Diagnostic{Code: "invalid-name", Severity: Error, Summary: "project x\x1b[2K\r\x1b[32mall checks passed\u009b"}, at("a.yaml\x1b[8m::", 3),
			"::error file=a.yaml\\x1b[8m%3A%3A,line=3,title=invalid-name::project x\\x1b[2K%0D\\x1b[32mall checks passed\\u009b"},
		{Diagnostic{Code: "queues-not-read", Severity: Note, Summary: "not read"}, nil,
			"::notice title=queues-not-read::not read"},
		// An HCL problem has no code: its summary is the title, its detail
		// the message.
		{Diagnostic{Severity: Error, Summary: "Unsupported argument", Detail: "An argument named \"limt\" is not expected."}, at("d.hcl", 3),
			"::error file=d.hcl,line=3,title=Unsupported argument::An argument named \"limt\" is not expected."},
	} {
		tc.d.SetRanges(tc.rs)
		if got := Annotation(tc.d); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if got, want := NotAnnotated(finding()), "Error (not annotated): desired.hcl:3: [projects-over-department] q|x: 5 > 4 *cards* 100%\\n\\x1b[2Kok"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
