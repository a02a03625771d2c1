package planfile

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/between"
	"github.com/krmplan/krmplan/planner/split"
	"github.com/krmplan/krmplan/tenancy"
)

// DiffersError is a plan file that says something its inputs do not give:
// planned again from its snapshot and its desired file (or its changes),
// it makes another plan. What names the first difference. A plan_id is
// only a sha256, which whoever edits a file can recompute, so this is what
// stops an edited plan.
type DiffersError struct {
	File string // the plan file's name, as given to Decode
	What string // "the plan's change 3 sets gpu.deserved of queue a-q to 40, but desired.hcl gives 4"
}

func (e *DiffersError) Error() string { return e.File + ": " + e.What + "; make a new plan" }

// reverify plans the claimed plan (a file's, decoded) again and returns
// the plan made, with the file's plan id; renderable is the file's member
// of that name. It refuses, as a *DiffersError, a file whose changes,
// findings, renderable, order_verified, steps, summary or variables are
// not those of the plan made.
//
// The plan is made from the embedded snapshot and the desired file (its
// source, evaluated as plan evaluated it, with the variables plan did not
// take from their defaults set to their resolved values: loadDesired), or,
// for a plan without a desired file, from its changes
// (planner.FromChanges), or, for a plan between two git refs, from its two
// snapshots and its forced removals (between.Plan). The snapshot's values are read as at snapshot
// time (quota numbers, whole numbers, strings: the file's decoding), and
// every check runs again on the snapshot and the target, the names'
// validity (invalid-name) among them, and an unsafe order's finding is
// told its split (split.Remedy) as plan tells it. The server dry run's findings are
// the only ones that cannot be made again: they are the file's, and only
// ever block a render.
func reverify(name string, claimed *planner.Plan, renderable bool) (*planner.Plan, error) {
	p, what := rebuild(claimed)
	if what == "" {
		// As plan does: an unsafe order's finding names the two plans
		// that take the change.
		split.Remedy(claimed.Snapshot, p)
		p.AddFindings(serverFindings(claimed.Findings)...)
		what = differs(claimed, renderable, p)
	}
	if what != "" {
		return nil, &DiffersError{File: name, What: what}
	}
	p.PlanID = claimed.PlanID
	return p, nil
}

// rebuild makes the plan of claimed's inputs; what says why it cannot.
func rebuild(claimed *planner.Plan) (p *planner.Plan, what string) {
	d := claimed.Desired
	if claimed.Head != nil {
		// A plan between two git refs: its inputs are its two snapshots.
		if d.File != "" || d.Source != "" || len(d.Variables) > 0 {
			return nil, "the plan is between two git refs, but it has a desired file too"
		}
		p, err := between.Plan(claimed.Snapshot, claimed.Head, d.ForceRemovals)
		if err != nil {
			return nil, "the plan's changes between its base and its head cannot be planned: " + clip(err.Error(), 1000)
		}
		return p, ""
	}
	if len(d.ForceRemovals) > 0 {
		return nil, "the plan has force_removals, which only a plan between two git refs takes (a desired file forces a removal in its removed block)"
	}
	if d.File == "" && d.Source == "" && len(d.Variables) == 0 {
		p, err := planner.FromChanges(claimed.Snapshot, claimed.Changes)
		if err != nil {
			return nil, "the plan's changes cannot be planned against its snapshot: " + clip(err.Error(), 1000)
		}
		return p, ""
	}
	if n := int64(len(d.Source)); n > inputfile.Desired.Max {
		// As plan reads a desired file: the plan's is refused unparsed.
		return nil, "the plan's " + inputfile.Desired.TooLarge(shown(d.File), n).Error()
	}
	// The snapshot's checks run while the desired file is read again.
	k := planner.StartChecks(claimed.Snapshot)
	defer k.Stop()
	ov, what := loadDesired(d)
	if what != "" {
		return nil, what
	}
	p, diags := k.Build(ov)
	if diags.HasErrors() {
		return nil, fmt.Sprintf("the plan's desired file %s does not plan against its snapshot: %s", shown(d.File), firstError(diags))
	}
	return p, ""
}

// loadDesired loads the plan's desired file as plan loaded it; what says
// why it cannot. A variable whose resolved value is what its default gives
// is left to its default, which is evaluated again exactly (a default of
// 1/3 has more digits than a literal may have); the others (set with --var
// or --var-file) are set to their resolved values, in a var file.
func loadDesired(d planner.Desired) (ov *config.Overlay, what string) {
	src := []byte(d.Source)
	ov, diags := config.LoadOrdered(d.File, src, nil, nil)
	set := map[string]string{}
	for name, v := range d.Variables {
		if got, ok := ov.Variables[name]; !ok || got != v {
			set[name] = v
		}
	}
	if len(set) > 0 {
		vars, what := variablesFile(set)
		if what != "" {
			return nil, what
		}
		ov, diags = config.LoadOrdered(d.File, src, nil, []config.VarFile{{Name: variablesName, Src: vars}})
	}
	if diags.HasErrors() {
		if first := firstError(diags); strings.HasPrefix(first, variablesName+":") {
			// A value with more digits than a literal may have (--var
			// x=1/3) cannot be set again exactly.
			return nil, "the plan's resolved variables cannot be set again: " + first
		}
		return nil, fmt.Sprintf("the plan's desired file %s does not load: %s", shown(d.File), firstError(diags))
	}
	if !maps.Equal(ov.Variables, d.Variables) {
		return nil, fmt.Sprintf("the plan's variables are %s, but %s makes them %s", shown(variablesText(d.Variables)), shown(d.File), shown(variablesText(ov.Variables)))
	}
	return ov, ""
}

// variablesName names the var file of a plan's resolved variables in
// diagnostics.
const variablesName = "<the plan's variables>"

// variablesFile is a var file that sets each variable of vars to its
// resolved value (HCL literal text, as plan.json holds it); what says why
// it cannot be one: a name that is not an HCL identifier.
func variablesFile(vars map[string]string) (src []byte, what string) {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		if !hclsyntax.ValidIdentifier(name) {
			return nil, fmt.Sprintf("the plan's variable %q is not a variable name", shown(name))
		}
		b.WriteString(name + " = " + vars[name] + "\n")
	}
	return []byte(b.String()), ""
}

// variablesText lists variables for a message: `{a = 1, b = "x"}`.
func variablesText(vars map[string]string) string {
	parts := make([]string, 0, len(vars))
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		parts = append(parts, name+" = "+vars[name])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// firstError is the first error of diags as one line: "file:3,5-9:
// summary; detail" (at most 1,000 characters).
func firstError(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			return clip(d.Error(), 1000)
		}
	}
	return clip(diags.Error(), 1000)
}

// serverFindings are the findings of the server dry run in fs.
func serverFindings(fs []planner.Finding) []planner.Finding {
	var out []planner.Finding
	for _, f := range fs {
		if f.Code == planner.CodeServerDryRun || f.Code == planner.CodeServerDryRunRefused {
			out = append(out, f)
		}
	}
	return out
}

// differs describes the first way the claimed plan (renderable is its
// file's member) is not the plan p made of its inputs, "" when there is
// none: its changes, then whether it renders, its findings, order_verified,
// steps and summary. (The snapshot is the plan's input, not something it
// says: it is read as state.json is, its digest checked.)
func differs(claimed *planner.Plan, renderable bool, p *planner.Plan) string {
	if d := diffChanges(claimed, p); d != "" {
		return d
	}
	if d := diffRenderable(claimed, renderable, p); d != "" {
		return d
	}
	if d := diffFindings(claimed.Findings, p.Findings); d != "" {
		return d
	}
	if claimed.OrderVerified != p.OrderVerified {
		return fmt.Sprintf("the plan says order_verified %v, but verifying its steps again gives %v", claimed.OrderVerified, p.OrderVerified)
	}
	if d := diffSteps(claimed.Steps, p.Steps); d != "" {
		return "the plan's " + d
	}
	if claimed.Summary != p.Summary {
		return fmt.Sprintf("the plan's summary is %s, but its changes and findings give %s", summaryText(claimed.Summary), summaryText(p.Summary))
	}
	return ""
}

// from names where the plan's changes come from in a message: the desired
// file, or the plan's own changes when it has none.
func from(p *planner.Plan) string {
	if p.Desired.File != "" {
		return shown(p.Desired.File)
	}
	if p.Head != nil {
		return "the diff of the plan's base and head"
	}
	return "the plan's changes"
}

// diffChanges describes the first change of claimed that is not p's.
func diffChanges(claimed, p *planner.Plan) string {
	src := from(claimed)
	for i := range max(len(claimed.Changes), len(p.Changes)) {
		switch {
		case i >= len(claimed.Changes):
			return fmt.Sprintf("the plan has %s, but %s gives %d: it lacks %s", words.Count(len(claimed.Changes), "change"), src, len(p.Changes), changeText(&p.Changes[i]))
		case i >= len(p.Changes):
			return fmt.Sprintf("the plan has %s, but %s gives %d: change %d (%s) is not one of them", words.Count(len(claimed.Changes), "change"), src, len(p.Changes), i+1, changeText(&claimed.Changes[i]))
		}
		if d := diffChange(&claimed.Changes[i], &p.Changes[i], src); d != "" {
			return fmt.Sprintf("the plan's change %d %s", i+1, d)
		}
	}
	return ""
}

// changeMembers are the members of a change in plan.json, in its order.
var changeMembers = []string{"action", "kind", "object", "queue", "pool", "queue_index", "new_queue", "file",
	"field", "path", "before", "after", "source", "resource", "shrinks", "force", "moved_to"}

// diffChange describes how the change c of a file is not the change w
// that src (the desired file) gives, "" when it is: "sets gpu.deserved of
// queue a-q to 40, but desired.hcl gives 4", or the first member of
// plan.json that differs.
func diffChange(c, w *tenancy.Change, src string) string {
	cj, err1 := c.MarshalJSON()
	wj, err2 := w.MarshalJSON()
	if err1 == nil && err2 == nil && string(cj) == string(wj) {
		return ""
	}
	switch {
	case c.Field != w.Field:
		return fmt.Sprintf("(%s) is not the one %s gives there, %s", changeText(c), src, changeText(w))
	case !c.Before.Equal(w.Before):
		return fmt.Sprintf("says %s was %s, but the plan's snapshot holds %s", shown(c.Describe()), shown(c.Before.String()), w.Before)
	case !c.After.Equal(w.After):
		return fmt.Sprintf("sets %s to %s, but %s gives %s", shown(c.Describe()), shown(c.After.String()), src, w.After)
	}
	if !sameSource(c.Source, w.Source) {
		return fmt.Sprintf("(%s) has source %s, but %s gives %s", shown(c.Describe()), shown(sourceText(c.Source)), src, sourceText(w.Source))
	}
	var cm, wm map[string]json.RawMessage
	if json.Unmarshal(cj, &cm) == nil && json.Unmarshal(wj, &wm) == nil {
		for _, k := range changeMembers {
			if !sameJSON(cm[k], wm[k]) {
				return fmt.Sprintf("(%s) has %s %s, but %s gives %s", shown(c.Describe()), k, memberText(cm[k]), src, memberText(wm[k]))
			}
		}
	}
	return fmt.Sprintf("is %s, but %s gives %s", shown(string(cj)), src, shown(string(wj)))
}

// sameSource reports whether two changes' sources are the same.
func sameSource(a, b *tenancy.Location) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// sourceText is a change's source for a message.
func sourceText(l *tenancy.Location) string {
	if l == nil {
		return "none"
	}
	return locationText(*l)
}

// memberText is a member's JSON for a message, "none" when it is absent.
func memberText(b json.RawMessage) string {
	if len(b) == 0 {
		return "none"
	}
	return shown(compact(b))
}

// changeText is a change for a message: "gpu.deserved of queue a-q: 3 -> 2".
func changeText(c *tenancy.Change) string {
	return fmt.Sprintf("%s: %s -> %s", shown(c.Describe()), shown(c.Before.String()), shown(c.After.String()))
}

// diffRenderable describes how the claim that the plan renders (its
// renderable member, or its findings holding no error) is not p's.
func diffRenderable(claimed *planner.Plan, renderable bool, p *planner.Plan) string {
	errs := errorMessages(p.Findings)
	switch {
	case len(errs) > 0 && (renderable || claimed.Renderable()):
		claim := "says renderable"
		if !renderable {
			claim = "holds no error finding"
		}
		return fmt.Sprintf("the plan %s, but re-checking it finds %s: %s", claim, words.Count(len(errs), "error"), joinMessages(errs))
	case len(errs) == 0 && (!renderable || !claimed.Renderable()):
		return fmt.Sprintf("the plan says it is not renderable (%s), but re-checking it finds no error", words.Count(len(errorMessages(claimed.Findings)), "error"))
	}
	return ""
}

// errorMessages are the messages of the error findings of fs.
func errorMessages(fs []planner.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Level == planner.LevelError {
			out = append(out, f.Message)
		}
	}
	return out
}

// joinMessages is the first two messages and how many more there are.
func joinMessages(msgs []string) string {
	if len(msgs) <= 2 {
		return strings.Join(msgs, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(msgs[:2], "; "), len(msgs)-2)
}

// diffFindings describes the first finding of the file (claimed) that is
// not re-checking's (made), in the order both are sorted in.
func diffFindings(claimed, made []planner.Finding) string {
	for i := range max(len(claimed), len(made)) {
		switch {
		case i >= len(claimed):
			return fmt.Sprintf("re-checking the plan finds the %s %s %q, which the plan lacks", made[i].Level, made[i].Code, shown(made[i].Message))
		case i >= len(made):
			return fmt.Sprintf("the plan has the %s %s %q, which re-checking it does not find", shown(string(claimed[i].Level)), shown(string(claimed[i].Code)), shown(claimed[i].Message))
		}
		if d := diffFinding(fileFinding(claimed[i]), fileFinding(made[i])); d != "" {
			return fmt.Sprintf("the plan's finding %d (%s %s) has %s", i+1, shown(string(claimed[i].Level)), shown(string(claimed[i].Code)), d)
		}
	}
	return ""
}

// diffFinding describes the first member of plan.json in which the file's
// finding c is not the one re-checking makes, m: `message "x", but
// re-checking it gives "y"`; "" when there is none.
func diffFinding(c, m finding) string {
	for _, d := range []struct {
		member string
		c, m   any
	}{
		{"code", c.Code, m.Code}, {"level", c.Level, m.Level}, {"object", c.Object, m.Object}, {"queue", c.Queue, m.Queue},
		{"pool", c.Pool, m.Pool}, {"resource", c.Resource, m.Resource}, {"message", c.Message, m.Message},
		{"where", whereText(c.Where), whereText(m.Where)}, {"already_present", c.AlreadyPresent, m.AlreadyPresent}, {"before", c.Before, m.Before},
	} {
		if d.c != d.m {
			return fmt.Sprintf("%s %s, but re-checking it gives %s", d.member, memberValue(d.c), memberValue(d.m))
		}
	}
	return ""
}

// memberValue is a member's value for a message: a string quoted.
func memberValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(shown(s))
	}
	return shown(fmt.Sprint(v))
}

// locations is a finding's locations as a message shows them, unquoted.
type locations string

// whereText is a finding's locations for a message: "[t.yaml:11:63,
// desired.hcl:3,24-3,25 (bytes 54-55)]".
func whereText(ls []tenancy.Location) locations {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = locationText(l)
	}
	return locations("[" + strings.Join(parts, ", ") + "]")
}

// locationText is a location for a message: "t.yaml:11:63" in a tenancy
// file, "desired.hcl:3,24-3,25 (bytes 54-55)" in desired.hcl.
func locationText(l tenancy.Location) string {
	if l.Desired {
		return fmt.Sprintf("%s:%d,%d-%d,%d (bytes %d-%d)", l.File, l.Line, l.Column, l.EndLine, l.EndColumn, l.StartByte, l.EndByte)
	}
	return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column)
}

// summaryText is a summary for a message.
func summaryText(s planner.Summary) string {
	return fmt.Sprintf("%d to add, %d to change, %d to destroy, %s, %s, %s", s.Add, s.Change, s.Destroy,
		words.Count(s.Errors, "error"), words.Count(s.Warnings, "warning"), words.Count(s.Notes, "note"))
}
