package views

import (
	"bytes"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// The text view parses the desired file only for findings that point
// into it: a finding about a tenancy line needs no HCL, one about an HCL
// range shows the range in its block.
func TestFindingsParseTheDesiredFileOnlyForItsRanges(t *testing.T) {
	p := &planner.Plan{Desired: planner.Desired{File: "d.hcl", Source: "project \"a\" {\n  queue \"q\" {\n    priority = 7\n  }\n}\n"},
		Findings: []planner.Finding{{Level: planner.LevelWarning, Code: "x", Message: "about the tenancy", Where: []tenancy.Location{{File: "tenancy.yaml", Line: 3}}}}}
	if files := desiredFiles(p); len(files) != 0 {
		t.Errorf("files for a tenancy finding: %v", files)
	}
	var b bytes.Buffer
	writeFindings(&b, p, NewStyle(false))
	want := "Warning: about the tenancy\n  [x]\n  on tenancy.yaml line 3\n\n"
	if b.String() != want {
		t.Errorf("tenancy finding:\n%s\nwant\n%s", b.String(), want)
	}
	p.Findings = append(p.Findings, planner.Finding{Level: planner.LevelNote, Code: "y", Message: "about the HCL",
		Where: []tenancy.Location{{File: "d.hcl", Line: 3, Column: 16, EndLine: 3, EndColumn: 17, StartByte: 43, EndByte: 44, Desired: true}}})
	if files := desiredFiles(p); files["d.hcl"] == nil || files["d.hcl"].Body == nil {
		t.Fatalf("the desired file is not parsed for an HCL finding: %v", files)
	}
	b.Reset()
	writeFindings(&b, p, NewStyle(false))
	want += "Note: about the HCL\n  [y]\n  on d.hcl line 3, in project \"a\", queue \"q\":\n   3:     priority = 7\n                     ^\n\n"
	if b.String() != want {
		t.Errorf("HCL finding:\n%s\nwant\n%s", b.String(), want)
	}
}
