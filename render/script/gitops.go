package script

import (
	"strings"

	"github.com/krmplan/krmplan/planner"
)

// gitOpsHeader returns the patch script's header lines about GitOps-owned
// objects: one "# WARNING:" comment per gitops-owned finding of the plan
// (an object Argo CD or Flux owns that the plan changes; a live patch to
// it is put back at the next sync), or "" when there is none.
func gitOpsHeader(p *planner.Plan) string {
	var b strings.Builder
	for _, f := range p.Findings {
		if f.Code == planner.CodeGitOpsOwned {
			b.WriteString("# WARNING: " + strings.ReplaceAll(f.Message, "\n", " ") + "\n")
		}
	}
	return b.String()
}
