package views

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/quota"
)

// planFairShare previews the pools whose division plan p can change
// (preview.ChangedPools), before and after, under full demand.
func planFairShare(p *planner.Plan) (*preview.PlanPreview, error) {
	return preview.OfPlan(p, preview.ChangedPools(p))
}

// notInPlan marks, in the plan's fair-share table, a queue the plan moves
// without changing it.
const notInPlan = "not in the plan"

// The columns of the plan's fair-share table: the queue (a project's
// indented under its department), before, after, the marks. The queue's
// column is fcNameWidth wide on a page of 80 columns or more, narrower on
// a narrower one (fcNameCol).
const (
	fcNameWidth = 36
	fcNumWidth  = 10
)

// fcNameCol is the width of the queue's column on a page cols wide: room
// is left for the two numbers, the marks and "not in the plan".
func fcNameCol(cols int) int { return max(12, min(fcNameWidth, cols-42)) }

// writeFairShareChange writes the plan's fair-share section: for each
// pool whose division changes, per resource, the queues whose share
// changes (with their department for context), before and after, and
// which of them the plan moves without changing them; a pool whose
// guarantees exceed its capacity after the plan says what KAI does then.
// Without a change it writes nothing, or why nothing could be previewed.
//
// Every line fits in cols but for one that a name or number alone makes
// longer.
func writeFairShareChange(b *bytes.Buffer, p *planner.Plan, cols int) {
	pp, err := planFairShare(p)
	if err != nil {
		words.Wrap(b, cols, "", "", "Fair share: not previewed: "+escape.Controls(err.Error())+".")
		b.WriteString("\n")
		return
	}
	if len(pp.Pools) == 0 {
		if why := unknownPools(pp.After, escape.Controls, escape.Controls); why != "" {
			words.Wrap(b, cols, "", "", "Fair share: not previewed for the pools the plan changes: "+why+".")
			b.WriteString("\n")
		}
		return
	}
	words.Wrap(b, cols, "", "", "Fair share under full demand, before and after: what KAI's scheduler gives each queue when every project queue asks for all it can get.")
	used := map[string]bool{}
	for i := range pp.Pools {
		writePoolChange(b, &pp.Pools[i], used, cols)
	}
	if used[markAgeTie] {
		words.Wrap(b, cols, "", "", markAgeTie+" could differ by one unit: a leftover unit went by queue name, the queues' ages (creationTimestamp) unknown.")
	}
	if used[markFloat] {
		words.Wrap(b, cols, "", "", markFloat+" KAI's float64 arithmetic and exact arithmetic part ways: krmplan fairshare shows how.")
	}
	b.WriteString("\n")
}

// unknownPools says why the pools of pv have no fair share to compare
// (their sizes are unknown: the nodes were not read), "" when some pool's
// size is known (or pv has no pool); name writes a pool's name and text
// the reason.
func unknownPools(pv *preview.Preview, name, text func(string) string) string {
	var names []string
	for i := range pv.Pools {
		p := &pv.Pools[i]
		if p.Capacity.GPU != nil || p.Capacity.CPU != nil || p.Capacity.Memory != nil {
			return ""
		}
		names = append(names, name(p.Name))
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "the size of node pool " + names[0] + " is unknown (" + text(pv.Pools[0].Unknown.GPU) + ")"
	}
	return "the sizes of node pools " + joinAnd(names) + " are unknown (" + text(pv.Pools[0].Unknown.GPU) + ")"
}

// removedPoolText says, for a node pool the plan removes, that its
// queues are no longer divided (its name written by name): one line in
// place of a table whose every row would read "-" after; "" for a pool
// that is there after the plan. The JSON view keeps the rows.
func removedPoolText(pc *preview.PoolChange, name func(string) string) string {
	if pc.After != nil || pc.Before == nil {
		return ""
	}
	n := len(pc.Before.Queues)
	verb := "are"
	if n == 1 {
		verb = "is"
	}
	return fmt.Sprintf("Node pool %s is removed: its %s %s no longer divided.", name(pc.Name), words.Count(n, "queue"), verb)
}

// writePoolChange writes one pool's changes, a table per resource.
func writePoolChange(b *bytes.Buffer, pc *preview.PoolChange, used map[string]bool, cols int) {
	if t := removedPoolText(pc, escape.Controls); t != "" {
		b.WriteString("\n")
		words.Wrap(b, cols, "  ", "    ", t)
		return
	}
	side := pc.After
	if side == nil {
		side = pc.Before
	}
	known, _ := capacityText(side)
	b.WriteString("\n")
	head := "  Node pool " + escape.Controls(pc.Name)
	if known != "" {
		head += ", " + known
	}
	b.WriteString(head + ":\n")
	for _, t := range newOversubscribed(pc) {
		words.Wrap(b, cols, "    ", "    ", t)
		b.WriteString("\n")
	}
	for _, r := range quota.Resources {
		rows := changeRows(pc, r)
		if len(rows) == 0 {
			continue
		}
		nameCol := fcNameCol(cols)
		fmt.Fprintf(b, "    %-*s%*s%*s\n", nameCol, resourceWord[r], fcNumWidth, "before", fcNumWidth, "after")
		for _, row := range rows {
			writeChangeRow(b, row, r, used, nameCol)
		}
	}
	if moved := pc.Untouched(); len(moved) > 0 {
		words.Wrap(b, cols, "    ", "    ", untouchedText(moved, escape.Controls))
	}
}

// untouchedText names the queues a plan moves without changing them, each
// name written by name.
func untouchedText(queues []string, name func(string) string) string {
	names := make([]string, len(queues))
	for i, q := range queues {
		names[i] = name(q)
	}
	return "The plan changes none of " + joinAnd(names) + ", but moves their fair share."
}

// newOversubscribed says, for each resource whose top-level guarantees
// exceed the pool's capacity after the plan by another amount than before,
// what KAI does then.
func newOversubscribed(pc *preview.PoolChange) []string {
	var out []string
	for _, r := range quota.Resources {
		if pc.After == nil {
			break
		}
		over := pc.After.Oversubscribed(r)
		if !over.IsZero() && (pc.Before == nil || !pc.Before.Oversubscribed(r).Equal(over)) {
			out = append(out, oversubscribedText("After the plan, the", pc.After, r, over))
		}
	}
	return out
}

// changeRow is one row of a pool's table: a queue whose share changes, or
// (change nil) the department of one shown for context.
type changeRow struct {
	q      *preview.Queue
	before *preview.Queue
	change *preview.QueueChange
}

// changeRows lists the rows of resource r's table: the queues whose share
// of r changes, in tree order, each project after its department's queue.
func changeRows(pc *preview.PoolChange, r quota.Resource) []changeRow {
	changed := map[string]*preview.QueueChange{}
	parents := map[string]bool{}
	for i := range pc.Queues {
		c := &pc.Queues[i]
		for _, cr := range c.Resources {
			if cr == r {
				changed[c.Name] = c
				if q := c.Side(); q.Parent != "" {
					parents[q.Parent] = true
				}
			}
		}
	}
	if len(changed) == 0 {
		return nil
	}
	var rows []changeRow
	seen := map[string]bool{}
	for _, side := range []*preview.Pool{pc.After, pc.Before} {
		if side == nil {
			continue
		}
		for i := range side.Queues {
			q := &side.Queues[i]
			c, ok := changed[q.Name]
			if seen[q.Name] || (!ok && !parents[q.Name]) {
				continue
			}
			seen[q.Name] = true
			row := changeRow{q: q, before: q, change: c}
			if ok {
				row.before = c.Before
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// rowValues is a row's share of r before and after ("-" where the queue
// is not, or is not divided) and the marks of either; it records the
// marks in used.
func rowValues(row changeRow, r quota.Resource, used map[string]bool) (before, after, marks string) {
	text := func(q *preview.Queue) (string, string) {
		if q == nil || q.Share.Dropped != "" || !q.Share.Share.At(r).Known {
			return "-", ""
		}
		s := q.Share.Share.At(r)
		return s.FairShare().String(), shareMarks(s, used)
	}
	a := row.q
	if row.change != nil {
		a = row.change.After
	}
	before, bm := text(row.before)
	after, am := text(a)
	return before, after, mergeMarks(bm, am)
}

// writeChangeRow writes one queue's share of r before and after.
// nameCol is the width of the queue's column.
func writeChangeRow(b *bytes.Buffer, row changeRow, r quota.Resource, used map[string]bool, nameCol int) {
	bt, at, marks := rowValues(row, r, used)
	name := queueLabel(row.q)
	tail := fmt.Sprintf("%-2s", marks)
	if row.change != nil && !row.change.Touched {
		tail += notInPlan
	}
	tail = strings.TrimRight(tail, " ")
	if utf8.RuneCountInString(name) > nameCol-1 || len(bt) > fcNumWidth-1 || len(at) > fcNumWidth-1 {
		b.WriteString("    " + name + "\n")
		b.WriteString(strings.TrimRight(fmt.Sprintf("      %s -> %s  %s", bt, at, tail), " ") + "\n")
		return
	}
	line := fmt.Sprintf("    %s%s%*s%*s", name, strings.Repeat(" ", nameCol-utf8.RuneCountInString(name)), fcNumWidth, bt, fcNumWidth, at)
	if tail != "" {
		line += " " + tail
	}
	b.WriteString(line + "\n")
}

// mergeMarks is the marks of either side, each once.
func mergeMarks(a, b string) string {
	out := a
	for _, m := range b {
		if !strings.ContainsRune(out, m) {
			out += string(m)
		}
	}
	return out
}

// joinAnd writes "a", "a and b", "a, b and c".
func joinAnd(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
