package views

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// JSONFormatVersion is the version of the documents that `--format json`
// writes (docs/json-format.md). The minor number grows when a field is
// added; the major number only when a field changes meaning or goes away.
const JSONFormatVersion = "1.1"

// PlanJSON is the document of `plan --format json` and `show --format
// json`: a stable view of a plan for programs, shaped after Terraform's
// JSON plan (resource_changes with address and change.actions/before/
// after). plan.json is the plan file itself; this is its public schema.
type PlanJSON struct {
	FormatVersion string `json:"format_version"`
	PlanID        string `json:"plan_id"`
	// Renderable is false when a diagnostic is an error: render refuses.
	Renderable bool `json:"renderable"`
	// OrderVerified is true when every intermediate state of Steps was
	// simulated and passed the checks.
	OrderVerified bool         `json:"order_verified"`
	Summary       JSONSummary  `json:"summary"`
	Snapshot      JSONSnapshot `json:"snapshot"`
	// Head is, in a plan between two git refs, the head's snapshot.
	Head            *JSONSnapshot    `json:"head,omitempty"`
	Desired         JSONDesired      `json:"desired"`
	ResourceChanges []ResourceChange `json:"resource_changes"`
	Diagnostics     []Diagnostic     `json:"diagnostics"`
	Steps           []JSONStep       `json:"steps"`
	// FairShare is the fair share the plan moves, under full demand.
	FairShare *JSONPlanFairShare `json:"fair_share"`
}

// JSONSummary counts objects and diagnostics. Add and Change count objects,
// as Terraform counts resources; krmplan never destroys, so Destroy is 0.
type JSONSummary struct {
	Add      int `json:"add"`
	Change   int `json:"change"`
	Destroy  int `json:"destroy"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
}

// JSONSnapshot names the snapshot a plan was made against.
type JSONSnapshot struct {
	Digest string          `json:"digest"`
	Source snapshot.Source `json:"source"`
	// NotRead lists the sources the snapshot lacks (nodes, queues,
	// namespaces) and why; the checks that need them did not run.
	NotRead []snapshot.NotRead `json:"not_read"`
}

// JSONDesired names the desired file a plan was made from, and the values
// of its variables as HCL literals.
type JSONDesired struct {
	File      string            `json:"file"`
	Variables map[string]string `json:"variables"`
	// ForceRemovals are a plan between two git refs' --force-removal.
	ForceRemovals []tenancy.RemovalAddr `json:"force_removals,omitempty"`
}

// ResourceChange is one object the plan creates or changes, as Terraform
// writes a resource change.
type ResourceChange struct {
	// Address is "<block>.<name>" as desired.hcl names the object:
	// node_pool.h100, department.research, project.workspace.
	Address string       `json:"address"`
	Kind    string       `json:"kind"` // NodePool, Department or Project
	Name    string       `json:"name"`
	Change  ObjectChange `json:"change"`
}

// ObjectChange is what happens to one object: actions ["create"] or ["update"],
// the whole object before (null when created) and after, and each field
// that differs.
type ObjectChange struct {
	Actions []string        `json:"actions"`
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
	Fields  []FieldChange   `json:"fields"`
}

// FieldChange is one value that the plan sets.
type FieldChange struct {
	// Queue and Pool name the queue the field belongs to; both are empty
	// for an object-level field (a project's parent, namespace,
	// defaultNodePools, a pool's label pair).
	Queue string `json:"queue,omitempty"`
	Pool  string `json:"pool,omitempty"`
	// Field is the short name: "gpu.deserved", "cpu.limit", "priority",
	// "name", "parent", ...; Path its JSON pointer inside the object.
	Field string `json:"field"`
	Path  string `json:"path"`
	// Before is null when the field was absent (omitted, or a new object
	// or queue); -1 is unlimited.
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
	// Source is where desired.hcl sets the value, when it does.
	Source *Range `json:"source"`
}

// Diagnostic is one finding of the checks in the JSON views (diag.JSON).
type Diagnostic = diag.JSON

// Range is a place in a file (diag.JSONRange): a line of a tenancy file,
// or a range of desired.hcl (then with byte offsets and an end).
type Range = diag.JSONRange

// Pos is a line, column and byte of a Range (diag.JSONPos).
type Pos = diag.JSONPos

// JSONStep is one command of the rendered change, in the order render
// runs them.
type JSONStep struct {
	Index   int    `json:"index"` // 1-based
	Phase   string `json:"phase"`
	Action  string `json:"action"` // "patch" or "create"
	Address string `json:"address"`
	Kind    string `json:"kind"`
	Object  string `json:"object"`
	// Paths are the JSON pointers of the fields the step sets.
	Paths []string `json:"paths"`
	// Ops is the JSON patch (RFC 6902) of a patch step; Manifest the whole
	// object of a create step.
	Ops      []planner.Op    `json:"ops,omitempty"`
	Manifest json.RawMessage `json:"manifest,omitempty"`
}

// Address is "<block>.<name>" for an object, as desired.hcl names it
// ("project.workspace").
func Address(a tenancy.ObjectAddr) string { return a.Kind.Info().Block + "." + a.Name }

// NewPlanJSON builds the JSON view of a plan.
func NewPlanJSON(p *planner.Plan) *PlanJSON {
	out := &PlanJSON{
		FormatVersion: JSONFormatVersion,
		PlanID:        p.PlanID,
		Renderable:    p.Renderable(),
		OrderVerified: p.OrderVerified,
		Summary: JSONSummary{Add: p.Summary.Add, Change: p.Summary.Change, Destroy: p.Summary.Destroy,
			Errors: p.Summary.Errors, Warnings: p.Summary.Warnings, Notes: p.Summary.Notes},
		Snapshot:        JSONSnapshot{Digest: p.Snapshot.Digest, Source: p.Snapshot.Source, NotRead: p.Snapshot.NotRead},
		Desired:         JSONDesired{File: p.Desired.File, Variables: p.Desired.Variables, ForceRemovals: p.Desired.ForceRemovals},
		ResourceChanges: []ResourceChange{},
		Diagnostics:     DiagnosticsOf(p.Findings),
		Steps:           []JSONStep{},
		FairShare:       newPlanFairShare(p),
	}
	if h := p.Head; h != nil {
		out.Head = &JSONSnapshot{Digest: h.Digest, Source: h.Source, NotRead: append([]snapshot.NotRead{}, h.NotRead...)}
	}
	if out.Snapshot.NotRead == nil {
		out.Snapshot.NotRead = []snapshot.NotRead{}
	}
	if out.Desired.Variables == nil {
		out.Desired.Variables = map[string]string{}
	}
	before, after := p.Indexes()
	byAddr := map[tenancy.ObjectAddr]int{}
	for _, c := range p.Changes {
		i, ok := byAddr[c.Object()]
		if !ok {
			action := tenancy.ActionUpdate.String()
			switch {
			case c.Creates():
				action = tenancy.ActionCreate.String()
			case c.Destroys():
				action = "delete" // Terraform's JSON plan word
			}
			o := c.Object()
			rc := ResourceChange{Address: Address(o), Kind: o.Kind.String(), Name: o.Name, Change: ObjectChange{
				Actions: []string{action},
				Before:  manifestOrNull(before, o),
				After:   manifestOrNull(after, o),
				Fields:  []FieldChange{},
			}}
			out.ResourceChanges = append(out.ResourceChanges, rc)
			i = len(out.ResourceChanges) - 1
			byAddr[o] = i
		}
		fc := FieldChange{Queue: c.Queue, Pool: c.Pool, Field: c.Field.Field.String(), Path: c.Field.Pointer(),
			Before: c.Before.AppendJSON(nil), After: c.After.AppendJSON(nil)}
		if c.Source != nil {
			r := diag.JSONRangeOf(diag.RangeOf(*c.Source, nil))
			fc.Source = &r
		}
		out.ResourceChanges[i].Change.Fields = append(out.ResourceChanges[i].Change.Fields, fc)
	}
	for n, st := range p.Steps {
		js := JSONStep{Index: n + 1, Phase: string(st.Phase), Action: string(st.Action), Address: Address(st.Object), Kind: st.Object.Kind.String(),
			Object: st.Object.Name, Paths: []string{}, Ops: st.Ops, Manifest: st.Manifest}
		for _, ci := range st.Changes {
			if ci >= 0 && ci < len(p.Changes) {
				js.Paths = append(js.Paths, p.Changes[ci].Field.Pointer())
			}
		}
		out.Steps = append(out.Steps, js)
	}
	return out
}

// manifestOrNull is object a as kubectl shows it, or null when x has no
// such object.
func manifestOrNull(x *tenancy.Index, a tenancy.ObjectAddr) json.RawMessage {
	if b, ok := x.Manifest(a); ok {
		return b
	}
	return json.RawMessage("null")
}

// DiagnosticsOf converts findings to the JSON views' diagnostics, in the
// findings' order.
func DiagnosticsOf(fs []planner.Finding) []Diagnostic {
	return diag.JSONOf(FindingDiagnostics(fs, nil))
}

// JSON writes the JSON view of a plan (PlanJSON): indented, with a final
// newline, deterministic.
func JSON(w io.Writer, p *planner.Plan) error {
	return WriteJSON(w, NewPlanJSON(p))
}

// WriteJSON writes v as indented JSON with a final newline, without HTML
// escaping, the way every krmplan JSON document is written.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// CheckJSON is the document of `check --format json`: the findings of the
// tenancy as it is.
type CheckJSON struct {
	FormatVersion string `json:"format_version"`
	// Source names what was checked: kind "files" (the work tree, with
	// Files) or "git" (Repo, Ref, Commit and Files).
	Source CheckSource `json:"source"`
	// Passed is false when a diagnostic is an error (check exits 1).
	Passed  bool       `json:"passed"`
	Summary CheckCount `json:"summary"`
	// Diagnostics are the findings at or above the requested level.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// CheckSource is what `check` read.
type CheckSource struct {
	Kind   string   `json:"kind"`
	Repo   string   `json:"repo,omitempty"`
	Ref    string   `json:"ref,omitempty"`
	Commit string   `json:"commit,omitempty"`
	Files  []string `json:"files"`
}

// CheckCount counts every finding of a check, shown or not.
type CheckCount struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
}
