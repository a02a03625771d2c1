// Package planner turns a snapshot and a desired overlay into a plan: the
// target state, the changes, the findings of the checks, and the ordered
// steps that reach the target through states that all pass the checks.
// It does no I/O; plan.json is produced and read here as bytes.
package planner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// FormatVersion is the version of the plan.json schema.
// 2: the plan_id is over the file's bytes (seal) and the embedded
// snapshot keeps positions only for the objects the plan changes.
const FormatVersion = 2

// Plan is plan.json: everything a reviewer and render need, deterministic
// so that it diffs well in a pull request.
type Plan struct {
	FormatVersion int `json:"format_version"`
	// PlanID is the sha256 (hex) of the canonical JSON of the plan with
	// PlanID empty; render refuses a plan whose content does not match it.
	PlanID string `json:"plan_id"`
	// Renderable is false when the plan has an error finding.
	Renderable bool `json:"renderable"`
	// OrderVerified is true when every intermediate state of Steps was
	// simulated and passed the checks.
	OrderVerified bool      `json:"order_verified"`
	Summary       Summary   `json:"summary"`
	Changes       []Change  `json:"changes"`
	Steps         []Step    `json:"steps"`
	Findings      []Finding `json:"findings"`
	Desired       Desired   `json:"desired"`
	// Snapshot is the snapshot the plan was made from (its Digest names
	// it), with the positions of values (Origin.Values) kept only for the
	// objects the plan changes: render splices only those, and at 10,000
	// projects the positions are most of a snapshot's bytes.
	Snapshot snapshot.State `json:"snapshot"`

	// file is the plan.json bytes that PlanID was computed over (seal) or
	// that the plan was decoded from.
	file []byte
}

// Desired is the HCL the plan was made from.
type Desired struct {
	File      string            `json:"file"`
	Source    string            `json:"source"`
	Variables map[string]string `json:"variables,omitempty"`
}

// Summary counts objects and findings. Add and Change count objects, as
// Terraform counts resources; krmplan never destroys.
type Summary struct {
	Add      int `json:"add"`
	Change   int `json:"change"`
	Destroy  int `json:"destroy"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
}

// Build plans the overlay ov against the snapshot before. Diagnostics are
// errors of the overlay itself against this snapshot (a new object missing
// a required field, a change to an immutable label pair); with an error
// diagnostic there is no plan. Findings of the checks are in the plan.
func Build(before *snapshot.State, ov *config.Overlay) (*Plan, hcl.Diagnostics) {
	target, set, diags := applyOverlay(before, ov)
	if diags.HasErrors() {
		return nil, diags
	}
	changes := diffStates(before, target, set)
	if changes == nil {
		changes = []Change{}
	}
	if diags = append(diags, placeNewObjects(before, ov, changes)...); diags.HasErrors() {
		return nil, diags
	}
	// The checks of the target, the checks of the snapshot and the
	// verification of the steps only read before and target: they run at
	// the same time. The verification is wasted when the target has errors.
	steps := buildSteps(before, target, changes)
	if steps == nil {
		steps = []Step{}
	}
	var findings, beforeFindings []Finding
	var wg sync.WaitGroup
	wg.Go(func() { findings = CheckChange(before, target, set) })
	wg.Go(func() { beforeFindings = Check(before, nil) })
	stepErrs := stepErrors(before, target, changes, steps)
	wg.Wait()
	bad := firstUnsafe(stepErrs, beforeFindings)
	if bad != nil && movesProject(changes) {
		moved := buildStepsIn(before, target, changes, moveRank)
		if firstUnsafe(stepErrors(before, target, changes, moved), beforeFindings) == nil {
			steps, bad = moved, nil
		}
	}
	markPresent(findings, beforeFindings)
	verified := false
	if !hasErrors(findings) {
		if bad != nil {
			findings = append(findings, *bad)
			sortFindings(findings)
		} else {
			verified = true
		}
	}
	p := &Plan{
		FormatVersion: FormatVersion,
		Renderable:    !hasErrors(findings),
		OrderVerified: verified,
		Changes:       changes,
		Steps:         steps,
		Findings:      findings,
		Desired:       Desired{File: ov.File, Source: string(ov.Source), Variables: ov.Variables},
		Snapshot:      embedded(before, changes),
	}
	p.Summary = summarize(changes, findings)
	p.seal()
	return p, diags
}

// markPresent marks each finding of the target that the snapshot has too
// (by key: the numbers in a message may differ) as AlreadyPresent, and
// keeps the snapshot's message in Before when no finding of the snapshot
// with that key has the same message and level.
func markPresent(findings, beforeFindings []Finding) {
	present := map[string][]Finding{}
	for _, f := range beforeFindings {
		present[f.key()] = append(present[f.key()], f)
	}
	for i := range findings {
		f := &findings[i]
		was := present[f.key()]
		if len(was) == 0 {
			continue
		}
		f.AlreadyPresent = true
		if !slices.ContainsFunc(was, func(b Finding) bool { return b.Message == f.Message && b.Level == f.Level }) {
			f.Before = was[0].Message
		}
	}
}

// CheckState runs the checks on a state as it is (no desired change), for
// the `check` command and for a plan's "already present" marks.
func CheckState(s *snapshot.State) []Finding { return Check(s, nil) }

func hasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Level == LevelError {
			return true
		}
	}
	return false
}

func summarize(changes []Change, findings []Finding) Summary {
	var s Summary
	created, changed := map[string]bool{}, map[string]bool{}
	for _, c := range changes {
		k := c.Kind + "/" + c.Object
		if c.Action == ActionCreate && !c.NewQueue {
			created[k] = true
		} else {
			changed[k] = true
		}
	}
	s.Add, s.Change = len(created), len(changed)
	for _, f := range findings {
		switch f.Level {
		case LevelError:
			s.Errors++
		case LevelWarning:
			s.Warnings++
		default:
			s.Notes++
		}
	}
	return s
}

// seal sets PlanID, the hex sha256 of the plan.json bytes written with
// plan_id empty, and keeps the bytes with the id for File. Hashing the
// bytes written means a plan is marshalled once, and checked on reading
// without being marshalled again.
func (p *Plan) seal() {
	p.PlanID = idPlaceholder
	b := p.Marshal()
	id, _, err := jsonfile.SumEmpty(b, "plan_id")
	if err == nil {
		err = jsonfile.Overwrite(b, jsonfile.Member{Name: "plan_id", Value: p.PlanID}, id)
	}
	if err != nil {
		panic(fmt.Sprintf("planner: seal: %v", err)) // Marshal writes plan_id second
	}
	p.PlanID, p.file = id, b
}

// idPlaceholder is as long as a plan_id: seal marshals the plan with it
// and writes the id over it.
var idPlaceholder = strings.Repeat("0", 64)

// File returns the plan.json bytes of p as Build or AddFindings sealed
// them, or as Decode read them: what `plan --out` writes. It is Marshal
// without marshalling again; a plan changed any other way has no file.
func (p *Plan) File() []byte { return p.file }

// embedded is the snapshot a plan carries: before, with the positions of
// values kept only for the objects that changes touch. The other objects
// keep their file and line (render inserts new objects after the last of
// their kind); their Origin is a new one, before's is not changed.
func embedded(before *snapshot.State, changes []Change) snapshot.State {
	changed := make(map[string]bool, len(changes))
	for _, c := range changes {
		changed[snapshot.ObjectKey(c.Kind, c.Object)] = true
	}
	trim := func(kind, name string, o **tenancy.Origin) {
		if *o != nil && !changed[snapshot.ObjectKey(kind, name)] {
			*o = &tenancy.Origin{File: (*o).File, Line: (*o).Line}
		}
	}
	s := *before
	s.NodePools = slices.Clone(before.NodePools)
	for i := range s.NodePools {
		trim(KindNodePool, s.NodePools[i].Metadata.Name, &s.NodePools[i].Origin)
	}
	s.Departments = slices.Clone(before.Departments)
	for i := range s.Departments {
		trim(KindDepartment, s.Departments[i].Metadata.Name, &s.Departments[i].Origin)
	}
	s.Projects = slices.Clone(before.Projects)
	for i := range s.Projects {
		trim(KindProject, s.Projects[i].Metadata.Name, &s.Projects[i].Origin)
	}
	return s
}

// Marshal returns the plan.json bytes: indented JSON with a final newline,
// HTML characters as they are.
func (p *Plan) Marshal() []byte {
	b, err := jsonfile.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("planner: marshal: %v", err))
	}
	return b
}

// Decode reads plan.json bytes (name is used in errors). It refuses another
// format version and a plan whose plan_id does not match its content
// (changed after it was made: tampered, or edited by hand).
func Decode(name string, b []byte) (*Plan, error) {
	var p Plan
	fp, err := jsonfile.DecodeSummed(b, &p, "plan_id")
	if err != nil {
		return nil, fmt.Errorf("%s: not a krmplan plan: %w", name, err)
	}
	switch p.FormatVersion {
	case FormatVersion:
	case 0:
		return nil, fmt.Errorf("%s: not a krmplan plan: it has no format_version", name)
	default:
		return nil, fmt.Errorf("%s: plan format_version %d, this krmplan reads %d: make a new plan", name, p.FormatVersion, FormatVersion)
	}
	if p.PlanID == "" {
		return nil, fmt.Errorf("%s: not a krmplan plan: it has no plan_id", name)
	}
	if !fp.Holds(p.PlanID) || fp.Sum != p.PlanID {
		return nil, fmt.Errorf("%s: the plan's content does not match its plan_id %s (it was changed after it was made); make a new plan", name, short(p.PlanID))
	}
	if err := p.checkSteps(); err != nil {
		return nil, fmt.Errorf("%s: the plan's steps do not match its changes (the file was edited): %v; make a new plan", name, err)
	}
	p.file = b
	return &p, nil
}

// MatchID reports whether id approves the plan: the full plan_id or a
// unique prefix of at least 12 hex digits.
func (p *Plan) MatchID(id string) bool {
	id = strings.ToLower(strings.TrimSpace(id))
	return len(id) >= 12 && strings.HasPrefix(p.PlanID, id)
}

// short is the first 12 digits of a plan id, quoted when it is not hex
// digits (an edited file: its bytes are not printed raw).
func short(id string) string {
	if len(id) > 12 {
		id = id[:12]
	}
	if id == "" || strings.Trim(id, "0123456789abcdef") != "" {
		return strconv.Quote(id)
	}
	return id
}
