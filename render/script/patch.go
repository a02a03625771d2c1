package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
)

// ErrNotApproved is returned by Approve for a plan without approval.
var ErrNotApproved = errors.New("the plan is not approved: run render at a terminal and answer yes, or pass --approve <plan id>")

// Approve decides whether p may be rendered. It refuses a plan with error
// findings, and one that approveID does not name (the full plan_id or a
// unique prefix of at least 12 hex digits). prompted reports that a person
// typed "yes" at a terminal after seeing the plan, which approves it too.
// The plan's integrity (plan_id against content) is checked by
// planner.Decode when the file is read.
func Approve(p *planner.Plan, approveID string, prompted bool) error {
	if !p.Renderable {
		return fmt.Errorf("plan %s has %s; fix the desired file and plan again", p.PlanID[:12], words.Count(p.Summary.Errors, "error"))
	}
	if approveID != "" {
		if !p.MatchID(approveID) {
			if len(strings.TrimSpace(approveID)) < 12 {
				return fmt.Errorf("--approve %s: give the plan id or at least its first 12 hex digits", approveID)
			}
			return fmt.Errorf("--approve %s does not match this plan (plan id %s)", approveID, p.PlanID)
		}
		return nil
	}
	if prompted {
		return nil
	}
	return ErrNotApproved
}

// plurals are kubectl's resource names for the KRM kinds.
var plurals = map[string]string{
	planner.KindNodePool:   "nodepools.kai.resources",
	planner.KindDepartment: "departments.kai.resources",
	planner.KindProject:    "projects.kai.resources",
}

// PatchScript returns the shell script of an approved plan: one kubectl
// command per step, in the plan's verified order. Every patch tests the
// queue name and the value as read before replacing it, so a value that
// someone changed since the snapshot makes kubectl fail (422) and, with
// `set -e`, the script stops there. It never tests resourceVersion.
func PatchScript(p *planner.Plan) []byte {
	var b bytes.Buffer
	src := p.Snapshot.Source
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "# krmplan patch script for plan %s\n", p.PlanID)
	switch src.Kind {
	case "git":
		fmt.Fprintf(&b, "# snapshot: git %s at %s (commit %s)\n", src.Repo, src.Ref, src.Commit)
	default:
		fmt.Fprintf(&b, "# snapshot: cluster context %s\n", src.Context)
	}
	fmt.Fprintf(&b, "# %s in phases (new node pools, shrinking projects, shrinking departments,\n", words.Count(len(p.Steps), "step"))
	b.WriteString("# growing departments, growing projects); every intermediate state was\n")
	b.WriteString("# verified against the checks. Each patch first tests the values it changes:\n")
	b.WriteString("# if one changed since the snapshot, kubectl fails and the script stops.\n")
	b.WriteString(gitOpsHeader(p))
	b.WriteString(profileHeader(p))
	b.WriteString("set -eu\n")
	kubectl := "kubectl"
	if src.Context != "" {
		kubectl = "kubectl --context " + shellQuote(src.Context)
	}
	for n, st := range p.Steps {
		fmt.Fprintf(&b, "\n# %d/%d %s: %s %s\n", n+1, len(p.Steps), st.Phase, st.Kind, st.Object)
		switch st.Action {
		case planner.StepCreate:
			var pretty bytes.Buffer
			_ = json.Indent(&pretty, st.Manifest, "", "  ")
			fmt.Fprintf(&b, "%s create -f - <<'KRMPLAN_EOF'\n%s\nKRMPLAN_EOF\n", kubectl, pretty.String())
		default:
			ops, err := json.Marshal(st.Ops)
			if err != nil {
				panic(err) // ops are plain data
			}
			extra := ""
			if src.Context != "" {
				extra = " --field-manager=krmplan"
			}
			fmt.Fprintf(&b, "%s patch %s %s --type=json%s -p %s\n", kubectl, plurals[st.Kind], st.Object, extra, shellQuote(string(ops)))
		}
	}
	return b.Bytes()
}

// shellQuote quotes s for sh: single quotes, with ' written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
