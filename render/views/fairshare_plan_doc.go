package views

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/mdtext"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/quota"
)

// JSONPlanFairShare is the plan document's fair_share member: the pools
// whose division the plan changes, before and after, under full demand
// (docs/json-format.md).
type JSONPlanFairShare struct {
	Demand string `json:"demand"`
	// Before and After hold the pools whose division changes, each with
	// every queue, as `fairshare --format json` writes them; a pool the
	// plan creates is only in After.
	Before JSONFairShareSide `json:"before"`
	After  JSONFairShareSide `json:"after"`
	// Changes lists every queue whose fair share changes.
	Changes []JSONFairShareChange `json:"changes"`
	// NotPreviewed says why the pools the plan changes could not be
	// previewed: their sizes are unknown (the nodes were not read), or the
	// division failed; omitted otherwise.
	NotPreviewed string `json:"not_previewed,omitempty"`
}

// JSONFairShareSide is one side of the plan's preview.
type JSONFairShareSide struct {
	Pools []JSONFairSharePool `json:"pools"`
}

// JSONFairShareChange is one queue whose fair share a plan changes.
type JSONFairShareChange struct {
	NodePool string `json:"node_pool"`
	Queue    string `json:"queue"`
	// Resources are those whose share changes: "gpu", "cpu", "memory".
	Resources []string `json:"resources"`
	// Touched is false for a queue the plan moves without changing it.
	Touched bool `json:"touched"`
}

// newPlanFairShare builds the fair_share member of a plan's document.
func newPlanFairShare(p *planner.Plan) *JSONPlanFairShare {
	out := &JSONPlanFairShare{Demand: string(preview.Full), Before: JSONFairShareSide{Pools: []JSONFairSharePool{}},
		After: JSONFairShareSide{Pools: []JSONFairSharePool{}}, Changes: []JSONFairShareChange{}}
	pp, err := planFairShare(p)
	if err != nil {
		out.NotPreviewed = err.Error()
		return out
	}
	if len(pp.Pools) == 0 {
		out.NotPreviewed = unknownPools(pp.After, same, same)
	}
	for i := range pp.Pools {
		pc := &pp.Pools[i]
		if pc.Before != nil {
			out.Before.Pools = append(out.Before.Pools, fairSharePool(pc.Before))
		}
		if pc.After != nil {
			out.After.Pools = append(out.After.Pools, fairSharePool(pc.After))
		}
		for _, c := range pc.Queues {
			ch := JSONFairShareChange{NodePool: pc.Name, Queue: c.Name, Touched: c.Touched}
			for _, r := range c.Resources {
				ch.Resources = append(ch.Resources, string(r))
			}
			out.Changes = append(out.Changes, ch)
		}
	}
	return out
}

// same is its text as it is, for JSON (which escapes as JSON does).
func same(s string) string { return s }

// mdFairShare is the plan's fair-share section in markdown: per pool whose
// division changes, a table of the queues whose share changes, before and
// after; "" when there is none.
func mdFairShare(p *planner.Plan) string {
	pp, err := planFairShare(p)
	var b strings.Builder
	switch {
	case err != nil:
		return "#### Fair share\n\nNot previewed: " + mdtext.Escape(err.Error()) + ".\n\n"
	case len(pp.Pools) == 0:
		if why := unknownPools(pp.After, mdtext.Code, mdtext.Escape); why != "" {
			return "#### Fair share\n\nNot previewed for the pools the plan changes: " + why + ".\n\n"
		}
		return ""
	}
	b.WriteString("#### Fair share under full demand\n\nWhat KAI's scheduler gives each queue when every project queue asks for all it can get, before and after the plan.\n\n")
	used := map[string]bool{}
	for i := range pp.Pools {
		mdPoolChange(&b, &pp.Pools[i], used)
	}
	if used[markAgeTie] {
		b.WriteString(mdtext.Escape(markAgeTie) + " could differ by one unit: a leftover unit went by queue name, the queues' ages (creationTimestamp) unknown.\n\n")
	}
	if used[markFloat] {
		b.WriteString(mdtext.Escape(markFloat) + " KAI's float64 arithmetic and exact arithmetic part ways: `krmplan fairshare` shows how.\n\n")
	}
	return b.String()
}

// mdPoolChange writes one pool's table.
func mdPoolChange(b *strings.Builder, pc *preview.PoolChange, used map[string]bool) {
	if t := removedPoolText(pc, mdtext.Code); t != "" {
		b.WriteString(t + "\n\n")
		return
	}
	side := pc.After
	if side == nil {
		side = pc.Before
	}
	known, _ := capacityText(side)
	fmt.Fprintf(b, "**Node pool %s**", mdtext.Code(pc.Name))
	if known != "" {
		fmt.Fprintf(b, " (%s)", mdtext.Escape(known))
	}
	b.WriteString("\n\n")
	for _, t := range newOversubscribed(pc) {
		b.WriteString(mdtext.Escape(t) + "\n\n")
	}
	b.WriteString("| Queue | Resource | Before | After | |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range quota.Resources {
		for _, row := range changeRows(pc, r) {
			before, after, marks := rowValues(row, r, used)
			if marks != "" {
				after += " " + marks
			}
			name := mdtext.Code(row.q.Name)
			if row.q.Parent != "" {
				name = "↳ " + name
			} else if row.q.Root() {
				name += " (project)"
			}
			note := ""
			if row.change != nil && !row.change.Touched {
				note = notInPlan
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", name, r, mdtext.Escape(before), mdtext.Escape(after), note)
		}
	}
	b.WriteString("\n")
	if moved := pc.Untouched(); len(moved) > 0 {
		b.WriteString(untouchedText(moved, mdtext.Code) + "\n\n")
	}
}
