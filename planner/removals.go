package planner

// The planner's side of its removals (package removal): the phase of a
// removal, the steps' operations and the findings, taken over.

import (
	"encoding/json"
	"slices"

	"github.com/krmplan/krmplan/planner/finding"
	"github.com/krmplan/krmplan/planner/gitops"
	"github.com/krmplan/krmplan/planner/removal"
	"github.com/krmplan/krmplan/tenancy"
)

// removalPhases are the phases of the removal of an object of a kind or of
// one of its queues.
var removalPhases = map[tenancy.Kind]Phase{tenancy.KindProject: PhaseRemoveProjects, tenancy.KindDepartment: PhaseRemoveDepartments, tenancy.KindNodePool: PhaseRemovePools}

// ops are removal's operations as the planner's.
func ops(rs []removal.Op) []Op {
	out := make([]Op, len(rs))
	for i, r := range rs {
		out[i] = Op{r.Op, r.Path, r.Value}
	}
	return out
}

// findings are the findings of the planner's sub-packages (removal,
// gitops) as the planner's.
func findings(rs []finding.Finding) []Finding {
	out := make([]Finding, len(rs))
	for i, r := range rs {
		out[i] = Finding{Code: Code(r.Code), Level: r.Level, Object: r.Object, Queue: r.Queue, Pool: r.Pool, Message: r.Message, Where: r.Where}
	}
	return out
}

// checkRemovals adds the findings of the plan's removals (removal.Check)
// and drops those they say better: unknown-parent of a project whose
// department the plan removes, unknown-pool of a queue on a pool it
// removes.
func (c *checker) checkRemovals() {
	c.out = append(c.out, findings(removal.Check(removal.Input{Before: c.bx, After: c.x, State: c.s, Changes: c.changes, Where: c.loc.At}))...)
	gone := map[tenancy.ObjectAddr]bool{}
	for i := range c.changes {
		if c.changes[i].Destroys() {
			gone[c.changes[i].Object()] = true
		}
	}
	c.out = slices.DeleteFunc(c.out, func(f Finding) bool {
		p := c.x.Project(f.Object.Name)
		return (f.Code == CodeUnknownPool && gone[tenancy.KindNodePool.Object(f.Pool)]) ||
			(f.Code == CodeUnknownParent && p != nil && gone[tenancy.KindDepartment.Object(p.Spec.Parent)])
	})
}

// TestedUID returns the uid that a delete step's first op tests (the
// snapshot's uid of the object); ok is false when the snapshot had none
// (a git snapshot): the uid is then read when the step runs.
func (st *Step) TestedUID() (uid string, ok bool) {
	if len(st.Ops) == 0 || st.Ops[0].Op != OpTest || st.Ops[0].Path != "/metadata/uid" {
		return "", false
	}
	if err := json.Unmarshal(st.Ops[0].Value, &uid); err != nil || uid == "" {
		return "", false
	}
	return uid, true
}

// checkGitOps adds package gitops' findings: objects Argo CD or Flux owns
// that the plan changes, and kustomizations that patch the objects read.
func (c *checker) checkGitOps() {
	c.out = append(c.out, findings(gitops.Owned(gitops.Input{Before: c.before, Target: c.s, BeforeIndex: c.bx, Where: c.beforeLoc.At}))...)
	c.out = append(c.out, findings(gitops.KustomizePatches(c.s))...)
}
