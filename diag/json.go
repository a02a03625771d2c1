package diag

// JSON is a diagnostic in the JSON views ("diagnostics" of plan, show and
// check --format json), shaped after Terraform's JSON diagnostics.
type JSON struct {
	// Severity is "error" (blocks render, exit 1), "warning" or "note".
	Severity string `json:"severity"`
	// Code is the finding's stable code, e.g. "projects-over-department".
	Code string `json:"code"`
	// Summary is the message: it names the queue and the size of the gap.
	Summary string `json:"summary"`
	// Detail is an HCL problem's explanation (omitted when empty: a
	// finding has none).
	Detail string `json:"detail,omitempty"`
	// Address is the object the finding is about ("project.workspace"),
	// Queue, Pool and Resource where they apply.
	Address  string `json:"address,omitempty"`
	Queue    string `json:"queue,omitempty"`
	Pool     string `json:"pool,omitempty"`
	Resource string `json:"resource,omitempty"`
	// AlreadyPresent marks a finding that the snapshot has too: the plan
	// does not introduce it.
	AlreadyPresent bool `json:"already_present"`
	// Before is the snapshot's message of an already present finding
	// whose numbers this plan changes (omitted otherwise).
	Before string `json:"before,omitempty"`
	// Range is the first value that causes the finding (null when none is
	// known); RelatedRanges are the others.
	Range         *JSONRange  `json:"range"`
	RelatedRanges []JSONRange `json:"related_ranges"`
}

// JSONRange is a place in a file: a line of a tenancy file, or a range of
// desired.hcl (then with byte offsets and an end).
type JSONRange struct {
	Filename string  `json:"filename"`
	Start    JSONPos `json:"start"`
	// End is set for a desired.hcl range; a tenancy file's value only has
	// its start.
	End *JSONPos `json:"end,omitempty"`
	// AtBase marks, in a plan between two git refs, a line of the base
	// (a value the head removes); the other lines are the head's.
	AtBase bool `json:"at_base,omitempty"`
}

// JSONPos is a 1-based line and column; Column 0 means only the line is
// known. Byte is the 0-based offset, when known.
type JSONPos struct {
	Line   int  `json:"line"`
	Column int  `json:"column"`
	Byte   *int `json:"byte,omitempty"`
}

// JSONOf is each diagnostic in the JSON views' shape, in order; the JSON
// carries no block and no values (the text view shows them).
func JSONOf(ds []Diagnostic) []JSON {
	out := make([]JSON, 0, len(ds))
	for i := range ds {
		d := &ds[i]
		j := JSON{Severity: string(d.Severity), Code: d.Code, Summary: d.Summary, Detail: d.Detail, Address: d.Address,
			Queue: d.Queue, Pool: d.Pool, Resource: d.Resource, AlreadyPresent: d.AlreadyPresent, Before: d.Before,
			RelatedRanges: []JSONRange{}}
		if d.Subject != nil {
			r := JSONRangeOf(*d.Subject)
			j.Range = &r
		}
		for _, r := range d.Related {
			j.RelatedRanges = append(j.RelatedRanges, JSONRangeOf(r))
		}
		out = append(out, j)
	}
	return out
}

// JSONRangeOf is r in the JSON views' shape: an HCL range with its bytes
// and end, a tenancy file's line with its start only.
func JSONRangeOf(r Range) JSONRange {
	out := JSONRange{Filename: r.File, Start: JSONPos{Line: r.Start.Line, Column: r.Start.Column}, AtBase: r.Base}
	if r.HCL {
		sb, eb := r.Start.Byte, r.End.Byte
		out.Start.Byte = &sb
		out.End = &JSONPos{Line: r.End.Line, Column: r.End.Column, Byte: &eb}
	}
	return out
}
