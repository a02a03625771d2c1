// Package render shows a plan and turns an approved plan into its outputs:
// the text view of `plan` and `show`, the kubectl patch script, and the
// YAML splice with its commit. Views are pure functions of the plan; the
// commit is the only part that touches a repository.
package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"
	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/between"
	"github.com/krmplan/krmplan/render/script"
	"github.com/krmplan/krmplan/tenancy"
)

// Style is the colouring and the width of a text view. The zero Style
// prints no colour, in DefaultColumns.
type Style struct {
	cols                                                  int // see Columns
	add, change, destroy, errorC, warnC, noteC, bold, dim *color.Color
	// barA and barB alternate between the shares of a pool bar.
	barA, barB *color.Color
}

// NewStyle returns a Style that colours when on is true. The colours are
// the basic eight of fatih/color, which every terminal theme maps to a
// hue legible on its own background: green adds, yellow changes (as in
// Terraform), red and bold errors, cyan notes, and the shares of a bar
// alternate cyan and magenta — never blue, whose SGR 34 most dark themes
// draw too dark to read on black; the bright (Hi) variants are avoided as
// they wash out on white. Free cells and codes are faint.
func NewStyle(on bool) Style {
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return Style{
		add: mk(color.FgGreen), change: mk(color.FgYellow), destroy: mk(color.FgRed), errorC: mk(color.FgRed, color.Bold),
		warnC: mk(color.FgYellow, color.Bold), noteC: mk(color.FgCyan), bold: mk(color.Bold), dim: mk(color.Faint),
		barA: mk(color.FgCyan), barB: mk(color.FgMagenta),
	}
}

func (s Style) paint(c *color.Color, text string) string {
	if c == nil {
		return text
	}
	return c.Sprint(text)
}

// Text writes the plan as `krmplan plan` shows it: the changes in
// Terraform's grammar grouped by object and queue, the pool bars (each
// pool whose division of cards changes, before and after), the fair share
// the plan moves (each pool whose division changes, under full demand),
// the findings with where they come from, then "Plan: N to add, N to
// change, N to destroy." (with "; N removals forced [forced-removal]"
// when force allowed removals that break something: Plan.ForcedRemovals)
// and the plan id. A removed object is "- kind
// "name"" with the queues it had, a removed queue "- queue "name" (node
// pool p)".
func Text(w io.Writer, p *planner.Plan, st Style) error {
	var b bytes.Buffer
	writeChanges(&b, p, st)
	writeBars(&b, p, st)
	writeFairShareChange(&b, p, st.Columns())
	writeFindings(&b, p, st)
	if rs := script.ProfileReminders(p); len(rs) > 0 {
		for _, r := range rs {
			b.WriteString(escape.Controls(r) + "\n")
		}
		b.WriteString("\n")
	}
	s := p.Summary
	if len(p.Changes) > 0 {
		fmt.Fprintf(&b, "%s %d to add, %d to change, %d to destroy", st.paint(st.bold, "Plan:"), s.Add, s.Change, s.Destroy)
		if n := p.ForcedRemovals(); n > 0 {
			fmt.Fprintf(&b, "; %s [%s]", st.paint(st.warnC, words.Count(n, "removal")+" forced"), planner.CodeForcedRemoval)
		}
		b.WriteString(".\n")
	}
	switch {
	case !p.Renderable():
		fmt.Fprintf(&b, "%s: %s; this plan cannot be rendered.\n", st.paint(st.errorC, "Not renderable"), words.Count(s.Errors, "error"))
	case len(p.Steps) > 0 && p.OrderVerified:
		words.Wrap(&b, st.Columns(), "", "", fmt.Sprintf("Order: %s in phases, every intermediate state verified against the checks.", words.Count(len(p.Steps), "step")))
	}
	fmt.Fprintf(&b, "Plan id: %s\n", p.PlanID)
	_, err := w.Write(b.Bytes())
	return err
}

func writeChanges(b *bytes.Buffer, p *planner.Plan, st Style) {
	if t := between.Title(p, escape.Controls); t != "" {
		words.Wrap(b, st.Columns(), "", "  ", t+".\n")
	}
	if len(p.Changes) == 0 {
		b.WriteString("No changes. The tenancy " + between.Matches(p) + ".\n\n")
		return
	}
	b.WriteString("krmplan will perform the following actions:\n\n")
	i := 0
	for i < len(p.Changes) {
		j := i
		for j < len(p.Changes) && p.Changes[j].Object() == p.Changes[i].Object() {
			j++
		}
		if p.Changes[i].Destroys() {
			before, _ := p.Indexes()
			writeDestroyed(b, p.Changes[i].Object(), before, st)
		} else {
			writeObject(b, p.Changes[i:j], st)
		}
		i = j
	}
}

func writeObject(b *bytes.Buffer, cs []tenancy.Change, st Style) {
	first := cs[0].Object()
	symbol, verb, col := "~", "will be updated in place", st.change
	if cs[0].Creates() {
		symbol, verb, col = "+", "will be created", st.add
	}
	kind, object := first.Kind.String(), escape.Controls(first.Name)
	fmt.Fprintf(b, "  %s\n", st.paint(st.bold, fmt.Sprintf("# %s %s %s", kind, object, verb)))
	fmt.Fprintf(b, "  %s %s %q {\n", st.paint(col, symbol), strings.ToLower(kind), first.Name)
	for i := 0; i < len(cs); {
		if c := &cs[i]; c.RemovesQueue() {
			fmt.Fprintf(b, "      %s queue %q (node pool %s)\n", st.paint(st.destroy, "-"), c.Queue, escape.Controls(c.Pool))
			i++
			continue
		}
		j := i + 1
		for j < len(cs) && cs[j].Field.Queue == cs[i].Field.Queue && !cs[j].RemovesQueue() {
			j++
		}
		writeFieldGroup(b, cs[i:j], st)
		i = j
	}
	b.WriteString("    }\n\n")
}

// writeDestroyed writes the removal of object o, with the queues it had
// or, for a node pool, its label pair as a created one shows it.
func writeDestroyed(b *bytes.Buffer, o tenancy.ObjectAddr, before *tenancy.Index, st Style) {
	kind := o.Kind.String()
	fmt.Fprintf(b, "  %s\n", st.paint(st.bold, fmt.Sprintf("# %s %s will be destroyed", kind, escape.Controls(o.Name))))
	fmt.Fprintf(b, "  %s %s %q {\n", st.paint(st.destroy, "-"), strings.ToLower(kind), o.Name)
	if np := before.NodePool(o.Name); o.Kind == tenancy.KindNodePool && np != nil {
		for _, f := range [][2]string{{"labelKey", np.Spec.LabelKey}, {"labelValue", np.Spec.LabelValue}} {
			if f[1] != "" {
				v, _ := json.Marshal(f[1]) // a string always marshals
				fmt.Fprintf(b, "      %s %s = %s\n", st.paint(st.destroy, "-"), f[0], escape.Controls(string(v)))
			}
		}
	}
	for _, q := range before.Queues(o) {
		// The Queue's name: an entry without one has its owner's.
		fmt.Fprintf(b, "      %s queue %q (node pool %s)\n", st.paint(st.destroy, "-"), tenancy.QueueName(o.Name, q.Name, q.NodePool), escape.Controls(q.NodePool))
	}
	b.WriteString("    }\n\n")
}

// writeFieldGroup writes the changes of one queue (or of the object's own
// fields): a new queue as its heading and one line per resource, a
// changed one as a line per field.
func writeFieldGroup(b *bytes.Buffer, cs []tenancy.Change, st Style) {
	indent := "      "
	c := &cs[0]
	if c.Field.Queue >= 0 {
		qs, qc := "~", st.change
		if c.Action == tenancy.ActionCreate {
			qs, qc = "+", st.add
		}
		fmt.Fprintf(b, "      %s queue %q (node pool %s) {\n", st.paint(qc, qs), c.Queue, escape.Controls(c.Pool))
		indent = "          "
	}
	if c.Action == tenancy.ActionCreate {
		for _, l := range foldCreated(cs) {
			fmt.Fprintf(b, "%s%s %s\n", indent, st.paint(st.add, "+"), l)
		}
	} else {
		for _, c := range cs {
			field, before, after := c.Field.Field.String(), escape.Controls(c.Before.String()), escape.Controls(c.After.String())
			if c.Before.IsNull() {
				fmt.Fprintf(b, "%s%s %s = %s\n", indent, st.paint(st.add, "+"), field, after)
			} else {
				fmt.Fprintf(b, "%s%s %s = %s -> %s\n", indent, st.paint(st.change, "~"), field, before, after)
			}
		}
	}
	if c.Field.Queue >= 0 {
		b.WriteString("        }\n")
	}
}

// foldCreated is the fields of one new queue, or of a new object outside
// its queues, as the views print them (escaped): "priority = 50" for a
// plain field, one "gpu {deserved 6, limit 8, overQuotaWeight 2}" per
// resource. A queue's name and nodepool are left out: its heading names
// them.
func foldCreated(cs []tenancy.Change) []string {
	var out []string
	for i := 0; i < len(cs); {
		c := &cs[i]
		r, _, isQuota := c.Field.Field.Quota()
		if !isQuota {
			if f := c.Field.Field; f != tenancy.FieldQueueName && f != tenancy.FieldQueueNodePool {
				out = append(out, f.String()+" = "+escape.Controls(c.After.String()))
			}
			i++
			continue
		}
		var nums []string
		for ; i < len(cs); i++ {
			r2, q, ok := cs[i].Field.Field.Quota()
			if !ok || r2 != r {
				break
			}
			nums = append(nums, q.String()+" "+escape.Controls(cs[i].After.String()))
		}
		out = append(out, string(r)+" {"+strings.Join(nums, ", ")+"}")
	}
	return out
}

func writeFindings(b *bytes.Buffer, p *planner.Plan, st Style) {
	files := desiredFiles(p)
	diag.WriteText(b, FindingDiagnostics(p.Findings, files), files, st.Diag())
}

// desiredFiles is the plan's desired file parsed for the snippets of the
// findings that point into it (diag.ParseFiles), or no file when none
// does: the text of a finding about the tenancy (most of them, in a large
// plan) never reads the HCL, whose parse grows with the plan.
func desiredFiles(p *planner.Plan) diag.Files {
	for i := range p.Findings {
		for _, l := range p.Findings[i].Where {
			if l.Desired && l.File == p.Desired.File {
				return diag.ParseFiles(map[string][]byte{p.Desired.File: []byte(p.Desired.Source)})
			}
		}
	}
	return diag.Files{}
}

// Findings writes findings as the text view does (diag.WriteText): the
// level and message, the code, and where each comes from (a tenancy
// file's line, or a range of an HCL file in files, underlined). `check`
// uses it for its text format.
func Findings(w io.Writer, fs []planner.Finding, files diag.Files, st Style) error {
	return diag.WriteText(w, FindingDiagnostics(fs, files), files, st.Diag())
}
