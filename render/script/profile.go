package script

import (
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
)

// ProfileReminders returns what the repository profile (.krmplan.hcl, in
// the plan's snapshot) asks a person to remember about this plan: one
// "Reminder: <file> is updated by hand[: note]" per reminder, and the
// profile's cpu/memory note when the plan changes a cpu or memory quota.
// Empty without a profile or without changes. The commit message of a
// splice lists the same lines; views may show them with the plan.
func ProfileReminders(p *planner.Plan) []string {
	prof := p.Snapshot.Profile
	if prof == nil || len(p.Changes) == 0 {
		return nil
	}
	var out []string
	for _, rm := range prof.Reminders {
		s := "Reminder: " + rm.File + " is updated by hand"
		if rm.Note != "" {
			s += ": " + rm.Note
		}
		out = append(out, s)
	}
	if prof.CPUMemoryNote != "" {
		for i := range p.Changes {
			if r := p.Changes[i].Resource(); r == quota.CPU || r == quota.Memory {
				out = append(out, "Note: cpu or memory quotas change: "+prof.CPUMemoryNote)
				break
			}
		}
	}
	return out
}
