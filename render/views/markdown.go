package views

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/internal/mdtext"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/between"
	"github.com/krmplan/krmplan/render/script"
	"github.com/krmplan/krmplan/tenancy"
)

// MarkdownLimit is the size a pull-request comment must stay under
// (GitHub refuses a comment body of 65,536 characters or more). Markdown
// counts bytes, which are never fewer than characters.
const MarkdownLimit = 65536

// MarkerPrefix starts the hidden marker on the first line of the markdown
// view, `<!-- krmplan:plan-id=<plan id> -->`: a bot finds its own comment
// by this prefix and updates it instead of adding another.
const MarkerPrefix = "<!-- krmplan:plan-id="

// Markdown writes the plan as a pull-request comment: the hidden plan-id
// marker, a one-line verdict, the pool bars in a code block, the fair
// share the plan moves (a table per pool whose division changes), a table
// of the changes, the findings, and the rendered kubectl commands in a
// folded <details> block. It has no colour. The result is always under
// MarkdownLimit bytes: when the whole plan does not fit, the commands,
// then changes, then findings, then the bars and the fair share are left
// out, and the comment says what was left out and how to see it.
func Markdown(w io.Writer, p *planner.Plan) error {
	_, err := w.Write(markdownBytes(p, MarkdownLimit))
	return err
}

// mdParts are the pieces of the markdown view, each already escaped.
type mdParts struct {
	head     string   // marker, title and verdict
	bars     string   // the bars code block section, "" when none
	fair     string   // the fair-share section, "" when none
	rows     []string // the changes table rows
	findings []string // one list item per finding
	reminder string   // the repository profile's reminders, "" when none
	script   string   // the details block with the commands
	foot     string
}

// markdownBytes assembles the view, leaving parts out until it is under
// limit bytes.
func markdownBytes(p *planner.Plan, limit int) []byte {
	parts := markdownParts(p)
	nRows, nFind, bars, script := len(parts.rows), len(parts.findings), true, true
	try := func() []byte { return parts.assemble(nRows, nFind, bars, script) }
	out := try()
	if len(out) < limit {
		return out
	}
	script = false
	if out = try(); len(out) < limit {
		return out
	}
	// Keep as many changes as fit with every finding, then as many
	// findings as fit with no change row, then drop the bars.
	fits := func(n int, set func(int)) int {
		lo, hi := 0, n // the largest k in [0, n] that fits
		for lo < hi {
			mid := (lo + hi + 1) / 2
			set(mid)
			if len(try()) < limit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		set(lo)
		return lo
	}
	all := nRows
	fits(all, func(k int) { nRows = k })
	if out = try(); len(out) < limit {
		return out
	}
	nRows = 0
	fits(len(parts.findings), func(k int) { nFind = k })
	if out = try(); len(out) < limit {
		return out
	}
	bars = false
	nFind = 0
	fits(len(parts.findings), func(k int) { nFind = k })
	out = try()
	if len(out) >= limit {
		// Only the head and the notes are left; cut them at a character.
		cut := limit - 2
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = append(out[:cut], '\n')
	}
	return out
}

func (m mdParts) assemble(nRows, nFind int, withBars, withScript bool) []byte {
	var b bytes.Buffer
	b.WriteString(m.head)
	var left []string
	if !withScript && m.script != "" {
		left = append(left, fmt.Sprintf("the rendered commands (%s characters)", thousands(len(m.script))))
	}
	if nRows < len(m.rows) {
		left = append(left, fmt.Sprintf("%d of %d changes", len(m.rows)-nRows, len(m.rows)))
	}
	if nFind < len(m.findings) {
		left = append(left, fmt.Sprintf("%d of %d findings", len(m.findings)-nFind, len(m.findings)))
	}
	if !withBars && m.bars != "" {
		left = append(left, "the pool bars")
	}
	if !withBars && m.fair != "" {
		left = append(left, "the fair-share preview")
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "> [!NOTE]\n> Left out to stay under GitHub's limit of %s characters per comment: %s. "+
			"`krmplan show plan.json` shows the whole plan.\n\n", thousands(MarkdownLimit), strings.Join(left, ", "))
	}
	if withBars {
		b.WriteString(m.bars)
		b.WriteString(m.fair)
	}
	if len(m.rows) > 0 {
		b.WriteString("#### Changes\n\n| Object | Queue | Field | Before → After |\n| --- | --- | --- | --- |\n")
		for _, r := range m.rows[:nRows] {
			b.WriteString(r)
		}
		if nRows < len(m.rows) {
			fmt.Fprintf(&b, "| … | | | %d more changes left out |\n", len(m.rows)-nRows)
		}
		b.WriteString("\n")
	}
	if len(m.findings) > 0 {
		b.WriteString("#### Findings\n\n")
		for _, f := range m.findings[:nFind] {
			b.WriteString(f)
		}
		if nFind < len(m.findings) {
			fmt.Fprintf(&b, "- … %d more findings left out\n", len(m.findings)-nFind)
		}
		b.WriteString("\n")
	}
	b.WriteString(m.reminder)
	if withScript {
		b.WriteString(m.script)
	} else if m.script != "" {
		b.WriteString("<details>\n<summary>Rendered commands: left out (too long for one comment)</summary>\n\n" +
			"`krmplan render plan.json --format patch --approve <plan id>` prints them.\n\n</details>\n\n")
	}
	b.WriteString(m.foot)
	return b.Bytes()
}

func markdownParts(p *planner.Plan) mdParts {
	m := mdParts{head: mdHead(p), bars: mdBars(p), fair: mdFairShare(p), reminder: mdReminders(p), script: mdScript(p), foot: mdFoot(p)}
	m.rows = mdRows(p.Changes)
	for _, f := range p.Findings {
		m.findings = append(m.findings, diag.MarkdownItem(FindingDiagnostic(f, nil)))
	}
	return m
}

// mdRows is the changes table's rows: one per changed field, and one per
// new queue (and one for a new object's own fields) with its values
// folded as the text view folds them.
func mdRows(cs []tenancy.Change) []string {
	var rows []string
	for i := 0; i < len(cs); {
		c := &cs[i]
		queue := ""
		if c.Queue != "" {
			queue = mdtext.Code(c.Queue) + " (" + mdtext.Escape(c.Pool) + ")"
		}
		j := i + 1
		if c.Action != tenancy.ActionCreate {
			rows = append(rows, fmt.Sprintf("| %s %s | %s | %s | %s |\n",
				actionMark(c), mdtext.Code(Address(c.Object())), queue, mdtext.Code(c.Field.Field.String()), valueChange(c)))
			i = j
			continue
		}
		for j < len(cs) && cs[j].Object() == c.Object() && cs[j].Field.Queue == c.Field.Queue && cs[j].Action == tenancy.ActionCreate {
			j++
		}
		what := "new " + c.Object().Kind.Info().Word
		if c.Field.Queue >= 0 {
			what = "new queue"
		}
		var vals []string
		for _, l := range foldCreated(cs[i:j]) {
			vals = append(vals, mdtext.Code(l))
		}
		rows = append(rows, fmt.Sprintf("| %s %s | %s | %s | %s |\n",
			actionMark(c), mdtext.Code(Address(c.Object())), queue, what, strings.Join(vals, " ")))
		i = j
	}
	return rows
}

// mdHead is the marker comment, the title and the verdict line; the
// verdict counts the forced removals (Plan.ForcedRemovals), in bold, as
// the text view's Plan line does.
func mdHead(p *planner.Plan) string {
	s := p.Summary
	var h strings.Builder
	fmt.Fprintf(&h, "%s%s -->\n", MarkerPrefix, p.PlanID)
	fmt.Fprintf(&h, "### krmplan plan `%s`\n\n", words.ShortID(p.PlanID))
	if t := between.Title(p, mdtext.Code); t != "" {
		h.WriteString(t + ".\n\n")
	}
	counts := fmt.Sprintf("%s, %s, %s", words.Count(s.Errors, "error"), words.Count(s.Warnings, "warning"), words.Count(s.Notes, "note"))
	changes := fmt.Sprintf("%d to add, %d to change, %d to destroy", s.Add, s.Change, s.Destroy)
	if n := p.ForcedRemovals(); n > 0 {
		changes += fmt.Sprintf("; **%s forced** (%s)", words.Count(n, "removal"), mdtext.Code(string(planner.CodeForcedRemoval)))
	}
	switch {
	case !p.Renderable():
		fmt.Fprintf(&h, "❌ **Not renderable**: %s — %s. Render refuses this plan.\n\n", counts, changes)
	case len(p.Changes) == 0:
		fmt.Fprintf(&h, "✅ **No changes**: the tenancy %s — %s.\n\n", between.Matches(p), counts)
	case s.Warnings > 0:
		fmt.Fprintf(&h, "⚠️ **Renderable, with warnings**: %s — %s.\n\n", changes, counts)
	default:
		fmt.Fprintf(&h, "✅ **Renderable**: %s — %s.\n\n", changes, counts)
	}
	return h.String()
}

// mdBars is the pool bars in a fenced block, "" without bars.
func mdBars(p *planner.Plan) string {
	var bars bytes.Buffer
	writeBars(&bars, p, Style{})
	if bars.Len() == 0 {
		return ""
	}
	text := strings.TrimRight(bars.String(), "\n") + "\n"
	f := mdtext.Fence(text)
	return "#### Pool bars\n\n" + f + "text\n" + text + f + "\n\n"
}

// mdReminders is the profile's reminders, "" without any.
func mdReminders(p *planner.Plan) string {
	rs := script.ProfileReminders(p)
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Reminders\n\n")
	for _, r := range rs {
		b.WriteString("- " + mdtext.Escape(r) + "\n")
	}
	return b.String() + "\n"
}

// mdScript is the details block with the rendered commands, "" without steps.
func mdScript(p *planner.Plan) string {
	switch {
	case len(p.Steps) == 0:
		return ""
	case !p.Renderable():
		return "<details>\n<summary>Rendered commands: none — render refuses a plan with errors</summary>\n\n" +
			"Fix the " + words.Count(p.Summary.Errors, "error") + " above and plan again.\n\n</details>\n\n"
	}
	sh, err := script.Commands(p)
	if err != nil {
		return "<details>\n<summary>Rendered commands: none — render refuses this plan</summary>\n\n" + mdtext.Escape(err.Error()) + "\n\n</details>\n\n"
	}
	cmds := string(sh)
	f := mdtext.Fence(cmds)
	verified := ""
	if p.OrderVerified {
		verified = ", every intermediate state verified"
	}
	return fmt.Sprintf("<details>\n<summary>Rendered commands: %s as kubectl patches, in order%s</summary>\n\n%ssh\n%s%s\n\n</details>\n\n",
		words.Count(len(p.Steps), "step"), verified, f, cmds, f)
}

// mdFoot is the plan id and where the snapshot comes from.
func mdFoot(p *planner.Plan) string {
	var foot strings.Builder
	fmt.Fprintf(&foot, "<sub>Plan id `%s`", p.PlanID)
	if src := p.Snapshot.Source; src.Kind == "git" && src.Commit != "" {
		fmt.Fprintf(&foot, " · snapshot of %s at `%s`", mdtext.Escape(src.Ref), words.ShortID(src.Commit))
	} else if src.Context != "" {
		fmt.Fprintf(&foot, " · snapshot of cluster context %s", mdtext.Escape(src.Context))
	}
	foot.WriteString("</sub>\n")
	return foot.String()
}

func actionMark(c *tenancy.Change) string {
	switch c.Action {
	case tenancy.ActionCreate:
		return "➕"
	case tenancy.ActionDestroy:
		return "➖"
	}
	return "✏️"
}

// valueChange is "`1` → `2`", or "(absent) → `2`" for a new value.
func valueChange(c *tenancy.Change) string {
	if c.Action == tenancy.ActionDestroy {
		return mdtext.Code(c.Before.String()) + " → (removed)"
	}
	before := "(absent)"
	if !c.Before.IsNull() {
		before = mdtext.Code(c.Before.String())
	}
	return before + " → " + mdtext.Code(c.After.String())
}

// thousands writes n with comma separators: 65,536.
func thousands(n int) string {
	s := fmt.Sprint(n)
	var parts []string
	for len(s) > 3 {
		parts = append([]string{s[len(s)-3:]}, parts...)
		s = s[:len(s)-3]
	}
	parts = append([]string{s}, parts...)
	return strings.Join(parts, ",")
}
