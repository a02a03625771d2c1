// Package between plans a pull request that edits the tenancy YAML: the
// changes from the tenancy at one git ref to the tenancy at another
// (tenancy.Diff), planned against the first as a desired.hcl plan is.
package between

import (
	"fmt"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/embed"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Plan plans the changes that take the git snapshot base to the git
// snapshot head: every check on the head's tenancy, "already present"
// meaning present at base, the verified order, the blast radius of each
// removal, as planner.FromChanges plans them. The plan embeds base
// (render patches a cluster that runs it) and head, its objects with their
// file and line only (Plan.Head: planfile plans the two again to verify a
// file). The error is what tenancy.Diff cannot plan, or a new object whose
// file base does not read.
func Plan(base, head *snapshot.State) (*planner.Plan, error) {
	changes, err := tenancy.Diff(&base.Tenancy, &head.Tenancy)
	if err != nil {
		return nil, err
	}
	p, err := planner.FromChanges(base, changes)
	if err != nil {
		return nil, fmt.Errorf("the changes between the refs cannot be planned against the base: %w", err)
	}
	p.Head = embed.Snapshot(head, nil, nil)
	return p, nil
}
