package views

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/krmplan/krmplan/fairshare"
	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/quota"
)

// fsColumns is the width every line of the fair-share views stays within,
// but for a line that holds one name or number longer than it.
const fsColumns = 80

// The columns of a fair-share table: the queue's name (a project's
// indented under its department), then three numbers.
const (
	fsNameWidth = 38
	fsNumWidth  = 12
)

// Marks of the fair-share views, explained by their legend.
const (
	markAgeTie = "~" // could differ by one unit: ages unknown
	markFloat  = "#" // KAI's float64 and exact arithmetic part ways
)

// resourceWord names a resource's unit in a table heading.
var resourceWord = map[quota.Resource]string{quota.GPU: "gpu (cards)", quota.CPU: "cpu (millicores)", quota.Memory: "memory (MB)"}

// FairShareText writes a preview as `krmplan fairshare` shows it: what the
// preview assumes, then per node pool its capacity and, for each resource
// whose capacity is known, every queue's fair share split into its
// guaranteed and over-quota parts, a department's projects under it; then
// the footnotes and the legend of the marks used. errors is the count of
// the state's error findings. Every line fits in 80 columns unless one
// name or number is longer.
func FairShareText(w io.Writer, pv *preview.Preview, errors int) error {
	var b bytes.Buffer
	writeFairShareHead(&b, pv, errors)
	var notes []string
	used := map[string]bool{}
	for i := range pv.Pools {
		notes = append(notes, writeFairSharePool(&b, &pv.Pools[i], used)...)
	}
	writeFairShareFoot(&b, notes, used)
	_, err := w.Write(b.Bytes())
	return err
}

// writeWrapped writes text wrapped at fsColumns, every line after indent.
func writeWrapped(b *bytes.Buffer, indent, text string) { writeHanging(b, indent, indent, text) }

// writeHanging writes text wrapped at fsColumns, its first line after
// first and the others after indent (first and indent are as wide).
func writeHanging(b *bytes.Buffer, first, indent, text string) {
	words.Wrap(b, fsColumns, first, indent, text)
}

// demandText says what a demand assumes.
func demandText(d preview.Demand) string {
	if d == preview.Live {
		return "Fair share under live demand: each project queue asks for what its Queue's status.requested holds (running and pending workloads), as KAI's scheduler divides each node pool."
	}
	return "Fair share under full demand: every project queue asks for all it can get, as KAI's scheduler divides each node pool (departments first, then their projects)."
}

func writeFairShareHead(b *bytes.Buffer, pv *preview.Preview, errors int) {
	writeWrapped(b, "", demandText(pv.Demand))
	switch {
	case !pv.AgesRead:
		writeWrapped(b, "", "The snapshot has no queue ages (it read no live Queues): where leftover units went by queue name, the share is marked "+markAgeTie+" and could differ by one unit.")
	case pv.Unaged > 0 && pv.Unaged == queueCount(pv):
		writeWrapped(b, "", "No queue's age is known (no live Queue of its name has a creationTimestamp): where leftover units went by queue name, the share is marked "+markAgeTie+" and could differ by one unit.")
	case pv.Unaged > 0:
		writeWrapped(b, "", fmt.Sprintf("%s no known age (no live Queue of the name, or no creationTimestamp): where leftover units went by queue name among them, the share is marked %s and could differ by one unit.",
			words.Count(pv.Unaged, "queue")+haveHas(pv.Unaged), markAgeTie))
	}
	if errors > 0 {
		writeWrapped(b, "", fmt.Sprintf("The state has %s (krmplan check lists them); it is divided as KAI would divide it all the same.", words.Count(errors, "error")))
	}
	for _, l := range pv.LeftOut {
		writeWrapped(b, "", "Not divided: "+escape.Controls(l)+".")
	}
	if len(pv.Pools) == 0 {
		b.WriteString("\nNo node pool has a queue.\n")
	}
}

// queueCount counts the queues of every pool of pv.
func queueCount(pv *preview.Preview) int {
	n := 0
	for i := range pv.Pools {
		n += len(pv.Pools[i].Queues)
	}
	return n
}

func haveHas(n int) string {
	if n == 1 {
		return " has"
	}
	return " have"
}

// capacityText is "96 cards, 1344000 millicores, 12000000 MB" of the
// known resources, and the unknown ones with why, grouped by reason.
func capacityText(p *preview.Pool) (known string, unknown []string) {
	var parts []string
	why := map[string][]string{}
	var reasons []string
	for _, r := range quota.Resources {
		if c := *p.Capacity.At(r); c != nil {
			parts = append(parts, quota.Amount(r, *c))
			continue
		}
		reason := *p.Unknown.At(r)
		if why[reason] == nil {
			reasons = append(reasons, reason)
		}
		why[reason] = append(why[reason], string(r))
	}
	for _, reason := range reasons {
		unknown = append(unknown, fmt.Sprintf("%s unknown: %s", joinAnd(why[reason]), reason))
	}
	return strings.Join(parts, ", "), unknown
}

// writeFairSharePool writes one pool; it returns its footnotes and adds
// the marks it used to used.
func writeFairSharePool(b *bytes.Buffer, p *preview.Pool, used map[string]bool) []string {
	known, unknown := capacityText(p)
	b.WriteString("\n")
	if !p.NodesRead {
		writeWrapped(b, "", fmt.Sprintf("Node pool %s: its size is unknown (%s); nothing is divided.", escape.Controls(p.Name), p.Unknown.GPU))
		return nil
	}
	head := fmt.Sprintf("Node pool %s: %s", escape.Controls(p.Name), words.Count(p.Nodes, "node"))
	if known != "" {
		head += "; KAI divides " + known
	}
	writeWrapped(b, "", head+".")
	for _, u := range unknown {
		writeWrapped(b, "  ", u+".")
	}
	for _, r := range quota.Resources {
		if over := p.Oversubscribed(r); !over.IsZero() {
			writeWrapped(b, "  ", oversubscribedText("The", p, r, over))
		}
	}
	if len(p.Queues) == 0 {
		b.WriteString("  No queue is on this pool.\n")
		return nil
	}
	var notes []string
	for _, r := range quota.Resources {
		if *p.Capacity.At(r) != nil {
			notes = append(notes, writeShareTable(b, p, r, used)...)
		}
	}
	for _, q := range p.Queues {
		if q.NoDemand != "" {
			notes = append(notes, fmt.Sprintf("%s demands 0: %s.", escape.Controls(q.Name), q.NoDemand))
		}
	}
	return notes
}

// oversubscribedText says that a pool's guarantees exceed its capacity of
// r and what KAI does then, after lead ("The").
func oversubscribedText(lead string, p *preview.Pool, r quota.Resource, over quota.Value) string {
	if n := p.WholeDeserved(r); n > 1 {
		return lead + fmt.Sprintf(" %d queues at the top of the pool deserve -1 of %s, which KAI reads as all of it: each is guaranteed the pool's %s, and nothing is left to share over quota.",
			n, r, quota.Amount(r, **p.Capacity.At(r)))
	}
	return lead + fmt.Sprintf(" guarantees at the top of the pool add up to %s, %s more than the pool's %s: every queue still gets its deserved (KAI never scales a guarantee down), and nothing is left to share over quota.",
		quota.Amount(r, p.Guaranteed(r)), over, **p.Capacity.At(r))
}

// writeShareTable writes resource r's table of p; it returns the
// footnotes of its float64 marks.
func writeShareTable(b *bytes.Buffer, p *preview.Pool, r quota.Resource, used map[string]bool) []string {
	b.WriteString("\n")
	fmt.Fprintf(b, "  %-*s%*s%*s%*s\n", fsNameWidth, resourceWord[r], fsNumWidth, "fair share", fsNumWidth, "guaranteed", fsNumWidth, "over quota")
	var notes []string
	for i := range p.Queues {
		q := &p.Queues[i]
		s := q.Share.Share.At(r)
		name := queueLabel(q)
		if q.Share.Dropped != "" {
			writeWrapped(b, "  ", name+": not divided, "+q.Share.Dropped+".")
			continue
		}
		mark := shareMarks(s, used)
		writeShareRow(b, name, mark, s.FairShare(), s.Guaranteed(), s.OverQuota())
		if s.Float.Uncertain() {
			notes = append(notes, floatNote(q.Name, r, s))
		}
	}
	return notes
}

// queueLabel is a queue's name as a table shows it: a project's indented
// under its department, a root project's marked as a project.
func queueLabel(q *preview.Queue) string {
	name := escape.Controls(q.Name)
	switch {
	case q.Parent != "":
		return "  " + name
	case q.Root():
		return name + " (project)"
	}
	return name
}

// shareMarks are the marks of a share, recorded in used.
func shareMarks(s *fairshare.Share, used map[string]bool) string {
	mark := ""
	if s.AgeTie {
		mark += markAgeTie
	}
	if s.Float.Uncertain() {
		mark += markFloat
	}
	for _, m := range mark {
		used[string(m)] = true
	}
	return mark
}

// writeShareRow writes one queue's three numbers after its name; the name
// gets a line of its own when it does not fit its column, and the numbers
// a line each when one does not fit its column.
func writeShareRow(b *bytes.Buffer, name, mark string, vs ...quota.Value) {
	texts := make([]string, len(vs))
	wide := false
	for i, v := range vs {
		texts[i] = v.String()
		wide = wide || len(texts[i]) > fsNumWidth-1
	}
	if wide {
		b.WriteString(strings.TrimRight("  "+name+" "+mark, " ") + "\n")
		for i, label := range []string{"fair share", "guaranteed", "over quota"} {
			b.WriteString("      " + label + " " + texts[i] + "\n")
		}
		return
	}
	if utf8.RuneCountInString(name) > fsNameWidth-1 {
		b.WriteString("  " + name + "\n")
		name = ""
	}
	fmt.Fprintf(b, "  %s%s%*s%*s%*s", name, strings.Repeat(" ", fsNameWidth-utf8.RuneCountInString(name)), fsNumWidth, texts[0], fsNumWidth, texts[1], fsNumWidth, texts[2])
	if mark != "" {
		b.WriteString(" " + mark)
	}
	b.WriteString("\n")
}

// floatNote says how float64 and exact arithmetic part ways for one share.
func floatNote(queue string, r quota.Resource, s *fairshare.Share) string {
	var why []string
	if s.Float.Exact != nil {
		why = append(why, fmt.Sprintf("exact arithmetic gives %s", s.Float.Exact))
	}
	if s.Float.OrderDependent {
		why = append(why, "KAI sums in its maps' random order, and another order gives another result")
	}
	if s.Float.Rounded {
		why = append(why, "shown rounded to 18 digits after the point")
	}
	return fmt.Sprintf("%s %s of %s: KAI computes %s in float64; %s.", markFloat, r, escape.Controls(queue), s.FairShare(), strings.Join(why, "; "))
}

// writeFairShareFoot writes the footnotes and the legend of the marks used.
func writeFairShareFoot(b *bytes.Buffer, notes []string, used map[string]bool) {
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			writeWrapped(b, "", n)
		}
	}
	if used[markAgeTie] || used[markFloat] {
		b.WriteString("\n")
	}
	if used[markAgeTie] {
		writeWrapped(b, "", markAgeTie+" could differ by one unit: KAI gives leftover units by remainder, then queue age (creationTimestamp), then name, and the ages are unknown here.")
	}
	if used[markFloat] {
		writeWrapped(b, "", markFloat+" KAI's float64 arithmetic and exact arithmetic part ways (see the note above).")
	}
}
