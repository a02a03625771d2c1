// Package split is the remedy of an unsafe order. A project that changes
// department on a full node pool cannot move in one plan: at the moment it
// moves, both its old department (before it shrinks) and its new one
// (after it grows) must hold its guarantee, and the pool does not have the
// cards for both. The way through is two plans: the first sets the moving
// project's gpu guarantees to 0 while it makes every other change and the
// move, the second gives the guarantees back. Both are planned and verified
// (planner.Build) from the desired files krmplan writes for them, so the
// files plan to what was verified. It does no I/O.
package split

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Split is a plan without a safe order taken as two plans, each of which
// plans cleanly with a verified order: the first from the snapshot to a
// middle state, the second from a snapshot of that state to the plan's
// target.
type Split struct {
	// First and Second are the two desired files (desired.hcl blocks,
	// without a header; config.ExportObjects): the first sets every
	// object the plan changes to its middle state, the second the moving
	// projects to their target.
	First, Second []byte
	// FirstHolds and SecondHolds say what each plan does, one entry per
	// object: "create department research (rtx-pro-6000: 3 cards)",
	// "move project workspace from department platform to research
	// (rtx-pro-6000: 3 cards → 0 cards)".
	FirstHolds, SecondHolds []string
	// Released names the guarantees the first plan sets to 0 and the
	// second gives back, one per queue: "project workspace on rtx-pro-6000
	// (3 cards)". Between the plans, those queues have no guarantee.
	Released []string
}

// gpuDeserved is the field of a queue's gpu guarantee.
var gpuDeserved = tenancy.QuotaFieldOf(quota.GPU, tenancy.Deserved)

// Remedy gives a plan whose changes have no safe order (an unsafe-order
// finding) the two plans that take it: it adds them to that finding's
// message (what each holds and what the time between them costs, or that
// none was found) and returns them; nil when the plan has no unsafe-order
// finding or no split was found. before is the snapshot p was made from.
// Call it before the plan is encoded: the message is part of plan.json.
func Remedy(before *snapshot.State, p *planner.Plan) *Split {
	for i := range p.Findings {
		f := &p.Findings[i]
		if f.Code != planner.CodeUnsafeOrder {
			continue
		}
		s := find(before, p.Changes)
		if s == nil {
			f.Message += "; no two plans that each order safely were found: take the change in smaller plans"
			return nil
		}
		f.Message += message(s)
		return s
	}
	return nil
}

// find looks for the two plans of changes without a safe order: the
// middle state is the target with the gpu guarantee of every queue of
// every project that changes department at 0. Both plans are made from the
// desired files the split writes, and each must be renderable with a
// verified order and reach its state. nil when the changes move no
// project, or the two plans do not pass.
func find(before *snapshot.State, changes []tenancy.Change) *Split {
	moving := movingProjects(changes)
	if len(moving) == 0 {
		return nil
	}
	target, err := tenancy.Apply(&before.Tenancy, changes)
	if err != nil {
		return nil
	}
	toMiddle, released := releases(changes, tenancy.NewIndex(target), moving)
	if len(released) == 0 {
		return nil
	}
	middle, err := tenancy.Apply(&before.Tenancy, toMiddle)
	if err != nil {
		return nil
	}
	first, second, ok := files(middle, target, changes, moving)
	if !ok {
		return nil
	}
	p1 := planSplit(before, first, middle)
	if p1 == nil {
		return nil
	}
	p2 := planSplit(p1.TargetState(), second, target)
	if p2 == nil {
		return nil
	}
	bx, mx, tx := tenancy.NewIndex(&before.Tenancy), tenancy.NewIndex(middle), tenancy.NewIndex(target)
	return &Split{First: first, Second: second, Released: released,
		FirstHolds: holds(p1.Changes, bx, mx), SecondHolds: holds(p2.Changes, mx, tx)}
}

// movingProjects lists the projects whose parent the changes change, in
// the changes' order.
func movingProjects(changes []tenancy.Change) []string {
	var out []string
	for i := range changes {
		if c := &changes[i]; c.Field.Field == tenancy.FieldParent && c.Action == tenancy.ActionUpdate {
			out = append(out, c.Object().Name)
		}
	}
	return out
}

// releases returns the changes to the middle state: the plan's changes,
// with the gpu guarantee of each queue of the moving projects at 0 instead
// of its target (a change to 0, or one more change where the plan leaves
// the guarantee as it is), and what each releases ("project workspace on
// rtx-pro-6000 (3 cards)"). target indexes the plan's target.
func releases(changes []tenancy.Change, target *tenancy.Index, moving []string) ([]tenancy.Change, []string) {
	out := slices.Clone(changes)
	at := map[tenancy.FieldAddr]int{}
	for i := range out {
		at[out[i].Field] = i
	}
	var drop []int
	var released []string
	for _, name := range moving {
		o := tenancy.KindProject.Object(name)
		for qi, q := range target.Queues(o) {
			v := q.Resources.Get(quota.GPU).Get(tenancy.Deserved)
			if v == nil || v.IsZero() {
				continue
			}
			released = append(released, fmt.Sprintf("project %s on %s (%s)", name, q.NodePool, quota.Amount(quota.GPU, *v)))
			a := o.Queue(qi).Field(gpuDeserved)
			i, changed := at[a]
			switch {
			case !changed:
				out = append(out, tenancy.Change{Action: tenancy.ActionUpdate, Field: a, Before: tenancy.NumberOf(v),
					After: tenancy.Number(quota.Zero), Queue: q.KAIName(o.Name), Pool: q.NodePool})
			case out[i].Before.Equal(tenancy.Number(quota.Zero)):
				drop = append(drop, i) // it stays at 0 until the second plan
			default:
				out[i].After = tenancy.Number(quota.Zero)
			}
		}
	}
	slices.Sort(drop)
	for k := len(drop) - 1; k >= 0; k-- {
		out = slices.Delete(out, drop[k], drop[k]+1)
	}
	return out, released
}

// files writes the two desired files: every object the changes touch
// as the middle state has it (a new object with the file the plan places
// it in), then the moving projects as the target has them. ok is false
// when an object cannot be written (two queues on one pool).
func files(middle, target *tenancy.Tenancy, changes []tenancy.Change, moving []string) (first, second []byte, ok bool) {
	touched := map[tenancy.ObjectAddr]string{}
	for i := range changes {
		touched[changes[i].Object()] = changes[i].File
	}
	first, w1 := config.ExportObjects(middle, touched)
	again := map[tenancy.ObjectAddr]string{}
	for _, name := range moving {
		again[tenancy.KindProject.Object(name)] = ""
	}
	second, w2 := config.ExportObjects(target, again)
	return first, second, len(w1)+len(w2) == 0
}

// planSplit plans one half of a split from its desired file against from,
// as `krmplan plan` would; nil unless it is renderable, its order is
// verified and it reaches want.
func planSplit(from *snapshot.State, src []byte, want *tenancy.Tenancy) *planner.Plan {
	ov, diags := config.Load("split.hcl", src, nil, nil)
	if diags.HasErrors() {
		return nil
	}
	p, diags := planner.Build(from, ov)
	if diags.HasErrors() || p == nil || !p.Renderable() || !p.OrderVerified || !sameObjects(p.Target, want) {
		return nil
	}
	return p
}

// sameObjects reports whether two tenancies hold the same objects with the
// same specs.
func sameObjects(a, b *tenancy.Tenancy) bool {
	specs := func(t *tenancy.Tenancy) string {
		var sb strings.Builder
		x := tenancy.NewIndex(t)
		for _, k := range tenancy.Planned {
			for _, name := range x.Names(k) {
				spec, _ := json.Marshal(x.Spec(k.Object(name)))
				fmt.Fprintf(&sb, "%s/%s %s\n", k, name, spec)
			}
		}
		return sb.String()
	}
	return specs(a) == specs(b)
}

// holds says what changes do, one entry per object in their order:
// "create department research (rtx-pro-6000: 3 cards)", "shrink department
// platform (rtx-pro-6000: 4 cards → 1 card)", "move project workspace from
// department platform to research (…)", "grow …", "change …". from and to
// index the states before and after them.
func holds(changes []tenancy.Change, from, to *tenancy.Index) []string {
	var out []string
	for i := 0; i < len(changes); {
		o := changes[i].Object()
		j := i
		for j < len(changes) && changes[j].Object() == o {
			j++
		}
		out = append(out, objectHolds(changes[i:j], from, to))
		i = j
	}
	return out
}

// objectHolds is holds of one object's changes.
func objectHolds(cs []tenancy.Change, from, to *tenancy.Index) string {
	o := cs[0].Object()
	word := o.Kind.Info().Word + " " + o.Name
	var cards []string
	verb, shrinks, grows := "", false, false
	for i := range cs {
		c := &cs[i]
		switch {
		case c.Creates():
			verb = "create " + word
		case c.Field.Field == tenancy.FieldParent:
			was, _ := c.Before.Str()
			is, _ := c.After.Str()
			verb = fmt.Sprintf("move %s from department %s to %s", word, was, is)
		case c.Shrinks():
			shrinks = true
		case c.Resource() != "":
			grows = true
		}
		if c.Field.Field == gpuDeserved {
			cards = append(cards, cardsChange(c))
		}
	}
	switch {
	case verb != "":
	case shrinks && !grows:
		verb = "shrink " + word
	case grows && !shrinks:
		verb = "grow " + word
	default:
		verb = "change " + word
	}
	if len(cards) > 0 {
		verb += " (" + strings.Join(cards, ", ") + ")"
	}
	return verb
}

// cardsChange is a gpu guarantee's change: "rtx-pro-6000: 4 cards → 1
// card", or "rtx-pro-6000: 3 cards" for a new one.
func cardsChange(c *tenancy.Change) string {
	after, _ := c.After.Number()
	before, ok := c.Before.Number()
	if c.Action == tenancy.ActionCreate || !ok {
		return fmt.Sprintf("%s: %s", c.Pool, quota.Amount(quota.GPU, after))
	}
	return fmt.Sprintf("%s: %s → %s", c.Pool, quota.Amount(quota.GPU, before), quota.Amount(quota.GPU, after))
}

// message is what the unsafe-order finding adds when a split exists: the
// two plans and what the time between them costs.
func message(s *Split) string {
	what := "the gpu guarantee of " + s.Released[0] + " is"
	if len(s.Released) > 1 {
		what = "the gpu guarantees of " + strings.Join(s.Released, ", ") + " are"
	}
	return fmt.Sprintf("; it takes two plans — first: %s; second: %s; until the second, %s 0 (plan --split-unsafe DIR writes the two desired files)",
		strings.Join(s.FirstHolds, ", "), strings.Join(s.SecondHolds, ", "), what)
}
