package main

import (
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

func TestAnnotation(t *testing.T) {
	for _, tc := range []struct {
		f    planner.Finding
		want string
	}{
		{planner.Finding{Code: "projects-over-department", Level: planner.LevelError, Message: "q: 5 > 4",
			Where: []tenancy.Location{{File: "t/a.yaml", Line: 18, Column: 28}, {File: "t/a.yaml", Line: 33}}},
			"::error file=t/a.yaml,line=18,title=projects-over-department::q: 5 > 4"},
		{planner.Finding{Code: "namespace-missing", Level: planner.LevelWarning, Message: "100% sure\nnext line\r",
			Where: []tenancy.Location{{File: "odd,name:x.yaml", Line: 2}}},
			"::warning file=odd%2Cname%3Ax.yaml,line=2,title=namespace-missing::100%25 sure%0Anext line%0D"},
		// An ANSI escape (a fake green "all checks passed" over the line)
		// and a C1 control are escaped; a file name cannot end the property.
		{planner.Finding{Code: "invalid-name", Level: planner.LevelError, Message: "project x\x1b[2K\r\x1b[32mall checks passed\u009b",
			Where: []tenancy.Location{{File: "a.yaml\x1b[8m::", Line: 3}}},
			"::error file=a.yaml\\x1b[8m%3A%3A,line=3,title=invalid-name::project x\\x1b[2K%0D\\x1b[32mall checks passed\\u009b"},
		{planner.Finding{Code: "queues-not-read", Level: planner.LevelNote, Message: "not read"},
			"::notice title=queues-not-read::not read"},
	} {
		if got := annotation(tc.f); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
