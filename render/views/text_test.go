package views

import (
	"bytes"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
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

// TestForcedRemovalsInTheHeader: the text view's Plan line and the
// markdown verdict line count the removals that force allowed although
// they break something (each has forced-removal warnings: long-context's
// two queues in use are one removal); a force = true that allows nothing
// (kai-verify's queue is idle) is not counted, and a plan without a forced
// removal keeps its lines as they were.
func TestForcedRemovalsInTheHeader(t *testing.T) {
	const desired = "removed {\n  project = \"eval-harness\"\n  force   = true\n}\n" +
		"removed {\n  project = \"long-context\"\n  force   = true\n}\n" +
		"removed {\n  project = \"kai-verify\"\n  force   = true\n}\n"
	for _, tc := range []struct {
		name, desired, text, markdown string
	}{
		{"forced", desired,
			"\nPlan: 0 to add, 0 to change, 3 to destroy; 2 removals forced [forced-removal].\n",
			"\n⚠️ **Renderable, with warnings**: 0 to add, 0 to change, 3 to destroy; **2 removals forced** (`forced-removal`) — 0 errors, 8 warnings, 3 notes.\n"},
		{"one", "removed {\n  project = \"eval-harness\"\n  force   = true\n}\n",
			"\nPlan: 0 to add, 0 to change, 1 to destroy; 1 removal forced [forced-removal].\n",
			"\n⚠️ **Renderable, with warnings**: 0 to add, 0 to change, 1 to destroy; **1 removal forced** (`forced-removal`) — 0 errors, 4 warnings, 2 notes.\n"},
		{"idle", "removed {\n  project = \"kai-verify\"\n  force   = true\n}\n",
			"\nPlan: 0 to add, 0 to change, 1 to destroy.\n",
			"\n⚠️ **Renderable, with warnings**: 0 to add, 0 to change, 1 to destroy — 0 errors, 3 warnings, 2 notes.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plantest.Plan(t, plantest.DemoState(t), "removed.hcl", []byte(tc.desired))
			var b bytes.Buffer
			if err := Text(&b, p, NewStyle(false)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.text) {
				t.Errorf("the text view lacks %q:\n%s", tc.text, b.String())
			}
			if md := string(markdownOf(t, p)); !strings.Contains(md, tc.markdown) {
				t.Errorf("the markdown lacks %q:\n%s", tc.markdown, md)
			}
		})
	}
}
