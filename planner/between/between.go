// Package between plans a pull request that edits the tenancy YAML: the
// changes from the tenancy at one git ref to the tenancy at another
// (tenancy.Diff), planned against the first as a desired.hcl plan is.
package between

import (
	"fmt"

	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Plan plans the changes that take the git snapshot base to the git
// snapshot head: every check on the head's tenancy, "already present"
// meaning present at base, the verified order, the blast radius of each
// removal, as planner.FromChanges plans them, with the renames a moved
// block would plan marked so and the findings of those it cannot
// (renames), the findings pointing at the head's lines (headLines). The plan embeds base (render patches a cluster
// that runs it) and head, as read (Plan.Head: planfile plans the two again
// to verify a file). forced are the removals that --force-removal
// allows although they break something (a removed block's force = true),
// recorded in the plan's Desired. The error is what tenancy.Diff cannot
// plan, a new object whose file base does not read, or a *ForceError: one
// of forced names no removal of the head.
func Plan(base, head *snapshot.State, forced []tenancy.RemovalAddr) (*planner.Plan, error) {
	changes, err := tenancy.Diff(&base.Tenancy, &head.Tenancy)
	if err != nil {
		return nil, err
	}
	bx, hx := tenancy.NewIndex(&base.Tenancy), tenancy.NewIndex(&head.Tenancy)
	found := renames(changes, bx, hx, base.KRMConfig)
	if err := force(changes, forced); err != nil {
		return nil, err
	}
	p, err := planner.FromChanges(base, changes)
	if err != nil {
		return nil, fmt.Errorf("the changes between the refs cannot be planned against the base: %w", err)
	}
	p.Desired.ForceRemovals = forced
	p.AddFindings(found...)
	p.OrderVerified = p.OrderVerified && p.Renderable()
	headLines(p, bx, hx)
	p.Head = head
	return p, nil
}

// Title is the line a view of a plan between two refs starts with, its
// refs' names passed through quote (a view's escaping) — "Plan of the
// changes from origin/main (0c186177cfdc) to HEAD (bd781086b2e1)" — and
// "" for a plan of desired.hcl.
func Title(p *planner.Plan, quote func(string) string) string {
	if p.Head == nil {
		return ""
	}
	b, h := p.Snapshot.Source, p.Head.Source
	return fmt.Sprintf("Plan of the changes from %s (%s) to %s (%s)", quote(b.Ref), words.ShortID(b.Commit), quote(h.Ref), words.ShortID(h.Commit))
}

// Matches ends a view's "No changes" line: what the plan's tenancy
// matches ("the tenancy already matches the desired file").
func Matches(p *planner.Plan) string {
	if p.Head == nil {
		return "already matches the desired file"
	}
	return "of the head is the base's"
}
