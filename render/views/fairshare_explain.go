package views

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/fairshare"
	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner/preview"
	"github.com/krmplan/krmplan/quota"
)

// FairShareExplainText writes how one queue got its fair share (`krmplan
// fairshare --queue NAME`): per resource, each level from the top of the
// pool down to the queue, with what the level divides, the queue's
// guarantee and the bound that set it, its priority band, every
// over-quota round that offered it a share, the leftover unit, and why it
// got no more.
func FairShareExplainText(w io.Writer, ex *preview.Explanation, d preview.Demand) error {
	var b bytes.Buffer
	q := ex.Queue
	owner := strings.ToLower(q.Kind.String()) + " " + escape.Controls(q.Owner)
	writeWrapped(&b, "", fmt.Sprintf("Queue %s (%s) on node pool %s, under %s demand.",
		escape.Controls(q.Name), owner, escape.Controls(ex.Pool.Name), d))
	if ex.Dropped != "" {
		writeWrapped(&b, "", "KAI does not divide it: "+ex.Dropped+".")
	}
	if q.NoDemand != "" {
		writeWrapped(&b, "", "It demands 0: "+q.NoDemand+".")
	}
	for _, r := range quota.Resources {
		if ex.Dropped != "" {
			break
		}
		b.WriteString("\n")
		tr := ex.Resources.At(r)
		if !tr.Known {
			writeWrapped(&b, "", fmt.Sprintf("%s: the pool's capacity is unknown (%s).", r, *ex.Pool.Unknown.At(r)))
			continue
		}
		last := tr.Steps[len(tr.Steps)-1].Share
		writeWrapped(&b, "", fmt.Sprintf("%s: fair share %s = %s guaranteed + %s over quota%s", r,
			quota.Amount(r, last.FairShare()), last.Guaranteed(), last.OverQuota(), explainMarks(&last)))
		for i := range tr.Steps {
			writeStep(&b, i+1, r, &tr.Steps[i])
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// explainMarks says what the marks of a share mean, after its numbers.
func explainMarks(s *fairshare.Share) string {
	var out []string
	if s.AgeTie {
		out = append(out, "it could differ by one unit: a leftover tie went by name, the queues' ages unknown")
	}
	if s.Float.Exact != nil {
		out = append(out, fmt.Sprintf("exact arithmetic gives %s", s.Float.Exact))
	}
	if s.Float.OrderDependent {
		out = append(out, "KAI's own result depends on its maps' random order")
	}
	if len(out) == 0 {
		return "."
	}
	return "; " + strings.Join(out, "; ") + "."
}

// writeStep writes one level of a queue's trace.
func writeStep(b *bytes.Buffer, n int, r quota.Resource, s *fairshare.Step) {
	amount := func(v quota.Value) string { return quota.Amount(r, v) }
	where := "at the top of the pool"
	if s.Parent != "" {
		where = "under " + escape.Controls(s.Parent)
	}
	in := "     "
	writeHanging(b, fmt.Sprintf("  %-3s", strconv.Itoa(n)+"."), in, fmt.Sprintf("%s, %s: %s divided among %s.", escape.Controls(s.Queue), where,
		amount(s.Divided), words.Count(s.Siblings, "queue")))
	demand := "unbounded"
	if !s.Demand.Unbounded {
		demand = amount(s.Demand.Amount)
	}
	deserved := amount(s.Deserved)
	if s.DeservedIsAll {
		deserved = "-1, all of it"
	}
	writeWrapped(b, in, fmt.Sprintf("Guaranteed %s: the least of its deserved (%s), limit (%s) and demand (%s) is its %s; never scaled down.",
		amount(s.Guaranteed), deserved, limitText(r, s.Limit), demand, s.GuaranteeCap))
	if s.Surplus.Cmp(quota.Zero) <= 0 {
		writeWrapped(b, in, "The guarantees of the level leave nothing to share over quota.")
	} else {
		writeWrapped(b, in, fmt.Sprintf("The guarantees leave %s. Priority %d: %s%s; it starts with %s.",
			amount(s.Surplus), s.Priority, bandText(s), higherText(s.HigherBands), amount(s.BandSurplus)))
	}
	for _, rd := range s.Rounds {
		writeWrapped(b, in, fmt.Sprintf("Round %d: %s × %s (its weight %s over its band's) = %s offered; given %s, remainder %s.",
			rd.N, amount(rd.Available), strconv.FormatFloat(rd.Fraction, 'g', 4, 64), s.OverQuotaWeight, rd.Offered, rd.Given, rd.Remainder))
	}
	if !s.Leftover.IsZero() {
		writeWrapped(b, in, fmt.Sprintf("Leftover: %s more (by largest remainder, then age, then name; limit and demand not checked).", amount(s.Leftover)))
	}
	writeWrapped(b, in, fmt.Sprintf("Fair share %s; it got no more because %s.", amount(s.Share.FairShare()), s.Stop))
}

func limitText(r quota.Resource, v quota.Value) string {
	if v.IsUnlimited() {
		return "none"
	}
	return quota.Amount(r, v)
}

func bandText(s *fairshare.Step) string {
	if s.BandSize == 1 {
		return "its band alone"
	}
	return fmt.Sprintf("a band of %d queues", s.BandSize)
}

func higherText(n int) string {
	switch n {
	case 0:
		return ", none above it"
	case 1:
		return ", 1 queue in a higher band first"
	}
	return fmt.Sprintf(", %d queues in higher bands first", n)
}
