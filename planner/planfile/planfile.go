// Package planfile writes and reads plan.json (format_version 4), the file
// of a planner.Plan: deterministic, so that it diffs well in a pull
// request, with a plan_id that is the sha256 of its own bytes.
//
// The file holds the plan's inputs (the snapshot, the desired file's
// source and resolved variables) and repeats what follows from them (the
// changes, the findings, the steps, whether the order was verified, the
// summary, whether it renders) so that a reviewer and a program can read
// it. Decode trusts none of what follows: it plans the inputs again, as
// plan did (every check, the order's verification), and refuses a file
// that says anything else, naming the first difference (*DiffersError).
// Whoever edits a plan file can recompute its plan_id, a sha256; they
// cannot make render do what the checks refuse, nor show display what
// render would not do.
package planfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// FormatVersion is the version of the plan.json schema.
// 2: the plan_id is over the file's bytes and the embedded snapshot keeps
// positions only for the objects the plan changes.
// 3: it keeps the positions the findings point at too, and a file is read
// only if planning its inputs again gives what it says (reverify): a plan
// of version 2 lacks positions that planning it again needs.
// 4: the snapshot (and a plan between two refs' head) is embedded as
// state.json's own bytes, whole, each line indented two spaces more, and
// read as state.json is read (snapshot.Decode: its digest checked): a plan
// of version 3 embeds a snapshot trimmed and laid out otherwise.
const FormatVersion = 4

// file is plan.json, member by member.
type file struct {
	FormatVersion int `json:"format_version"`
	// PlanID is the sha256 (hex) of the file with plan_id empty.
	PlanID string `json:"plan_id"`
	// Renderable is false when the plan has an error finding.
	Renderable bool `json:"renderable"`
	// OrderVerified is true when every intermediate state of the steps
	// was simulated and passed the checks.
	OrderVerified bool             `json:"order_verified"`
	Summary       planner.Summary  `json:"summary"`
	Changes       []tenancy.Change `json:"changes"`
	Steps         []step           `json:"steps"`
	Findings      []finding        `json:"findings"`
	Desired       planner.Desired  `json:"desired"`
	// Head is the git snapshot of the head of a plan between two refs:
	// the changes are those from the snapshot (the base) to it. Absent
	// otherwise. Head and Snapshot are state.json's bytes (writeEmbedded):
	// Encode writes them after the other members, Decode takes them as
	// they are (embedded).
	Head     *embedded `json:"head,omitempty"`
	Snapshot *embedded `json:"snapshot,omitempty"`
}

// step is a planner.Step as plan.json writes it.
type step struct {
	Phase    planner.Phase      `json:"phase"`
	Action   planner.StepAction `json:"action"` // "patch" or "create"
	Kind     tenancy.Kind       `json:"kind"`
	Object   string             `json:"object"`
	Changes  []int              `json:"changes"` // indices into changes
	Ops      []planner.Op       `json:"ops,omitempty"`
	Manifest json.RawMessage    `json:"manifest,omitempty"`
}

// finding is a planner.Finding as plan.json writes it; object is
// "Kind/name".
type finding struct {
	Code           planner.Code       `json:"code"`
	Level          planner.Level      `json:"level"`
	Object         string             `json:"object,omitempty"`
	Queue          string             `json:"queue,omitempty"`
	Pool           string             `json:"pool,omitempty"`
	Resource       string             `json:"resource,omitempty"`
	Message        string             `json:"message"`
	Where          []tenancy.Location `json:"where,omitempty"`
	AlreadyPresent bool               `json:"already_present,omitempty"`
	Before         string             `json:"before,omitempty"`
}

// Encode is EncodeFrom with no state.json bytes: p's snapshots are
// encoded from their states.
func Encode(p *planner.Plan) ([]byte, error) { return EncodeFrom(p, Sources{}) }

// EncodeFrom returns the plan.json bytes of p (indented JSON with a final
// newline, HTML characters as they are) and sets p.PlanID: the hex sha256
// of those bytes with plan_id empty. Hashing the bytes written means a
// plan is marshalled once, and checked on reading without being
// marshalled again. The snapshot (and the head) are the last members,
// state.json's bytes as src holds them, each line indented two spaces
// more (writeEmbedded), or encoded from the state where src has none.
func EncodeFrom(p *planner.Plan, src Sources) ([]byte, error) {
	e, err := EncodeParts(p, src)
	if err != nil {
		return nil, err
	}
	return e.Bytes(), nil
}

// EncodeParts is EncodeFrom's file kept in its parts, to be written
// (Encoded.WriteTo) rather than copied into one buffer; it sets p.PlanID.
func EncodeParts(p *planner.Plan, src Sources) (*Encoded, error) {
	e, err := encode(p, src)
	if err != nil {
		return nil, fmt.Errorf("plan.json: %w", err)
	}
	id, _, err := e.sum()
	if err == nil {
		err = jsonfile.Overwrite(e.head, jsonfile.Member{Name: "plan_id", Value: idPlaceholder}, id)
	}
	if err != nil {
		return nil, fmt.Errorf("plan.json: %w", err) // Marshal writes plan_id second
	}
	p.PlanID = id
	return e, nil
}

// encode is plan.json of p with the placeholder plan_id: the members
// Marshal writes, then the snapshots' state.json bytes.
func encode(p *planner.Plan, src Sources) (*Encoded, error) {
	f := toFile(p)
	f.PlanID = idPlaceholder
	head, err := jsonfile.Marshal(f)
	if err != nil {
		return nil, err
	}
	snap, err := stateBytes("snapshot", p.Snapshot, src.Snapshot)
	if err != nil {
		return nil, err
	}
	// The members end "\n}\n": the snapshots go before the brace.
	e := &Encoded{head: bytes.TrimSuffix(head, []byte("\n}\n"))}
	if p.Head != nil {
		headState, err := stateBytes("head", p.Head, src.Head)
		if err != nil {
			return nil, err
		}
		e.embedded = append(e.embedded, part{"head", headState})
	}
	e.embedded = append(e.embedded, part{"snapshot", snap})
	return e, nil
}

// idPlaceholder is as long as a plan_id: Encode marshals the plan with it
// and writes the id over it.
var idPlaceholder = strings.Repeat("0", 64)

func toFile(p *planner.Plan) *file {
	f := &file{FormatVersion: FormatVersion, PlanID: p.PlanID, Renderable: p.Renderable(), OrderVerified: p.OrderVerified,
		Summary: p.Summary, Changes: p.Changes, Desired: p.Desired}
	if p.Steps != nil {
		f.Steps = make([]step, len(p.Steps))
		for i, st := range p.Steps {
			f.Steps[i] = step{Phase: st.Phase, Action: st.Action, Kind: st.Object.Kind, Object: st.Object.Name,
				Changes: st.Changes, Ops: st.Ops, Manifest: st.Manifest}
		}
	}
	if p.Findings != nil {
		f.Findings = make([]finding, len(p.Findings))
		for i, x := range p.Findings {
			f.Findings[i] = fileFinding(x)
		}
	}
	return f
}

// fileFinding is x as plan.json writes it.
func fileFinding(x planner.Finding) finding {
	return finding{Code: x.Code, Level: x.Level, Object: x.Object.String(), Queue: x.Queue, Pool: x.Pool,
		Resource: x.Resource, Message: x.Message, Where: x.Where, AlreadyPresent: x.AlreadyPresent, Before: x.Before}
}

// Decode reads plan.json bytes (name is used in errors) and returns the
// plan its inputs make. It refuses another format version, a plan whose
// plan_id does not match its content (changed after it was made: tampered,
// or edited by hand), and, as a *DiffersError, a plan that its snapshot and
// desired file (or its changes) do not make (reverify). It costs about
// what planning the desired file costs.
func Decode(name string, b []byte) (*planner.Plan, error) {
	var f file
	t, fp, err := decodeSummed(name, b, &f)
	if t != nil {
		defer t.wait() // its goroutine ends before Decode returns
	}
	if err != nil {
		// A file that does not match its plan_id was edited: say so
		// rather than what the edit broke.
		if fp.Err == nil && len(fp.Values) == 1 && fp.Values[0] != "" && fp.Sum != fp.Values[0] {
			return nil, edited(name, fp.Values[0])
		}
		return nil, fmt.Errorf("%s: not a krmplan plan: %w", name, err)
	}
	switch f.FormatVersion {
	case FormatVersion:
	case 0:
		return nil, fmt.Errorf("%s: not a krmplan plan: it has no format_version", name)
	default:
		return nil, fmt.Errorf("%s: plan format_version %d, this krmplan reads %d: make a new plan", name, f.FormatVersion, FormatVersion)
	}
	if f.PlanID == "" {
		return nil, fmt.Errorf("%s: not a krmplan plan: it has no plan_id", name)
	}
	if fp.Err != nil {
		// The plan_id is summed where Encode writes it, among the first
		// bytes: a file laid out otherwise (megabytes of spaces before it,
		// say) cannot be checked, which is what is wrong with it.
		return nil, fmt.Errorf("%s: the plan's plan_id cannot be checked: %w; make a new plan", name, fp.Err)
	}
	if !fp.Holds(f.PlanID) || fp.Sum != f.PlanID {
		return nil, edited(name, f.PlanID)
	}
	snap, head, err := embeddedStates(name, t, &f)
	if err != nil {
		return nil, err
	}
	return fromFile(name, &f, snap, head)
}

// embeddedStates are the plan's snapshot and head (nil when it has
// none): the tail's, or, for a file decoded whole (t nil), f's members
// decoded.
func embeddedStates(name string, t *tail, f *file) (snap, head *snapshot.State, err error) {
	if t != nil {
		snap, head, err = t.states()
		if err == nil && head == nil && f.Head != nil {
			head, err = decodeEmbedded(name, "head", f.Head.state, "", 0)
		}
		return snap, head, err
	}
	if f.Snapshot == nil {
		return nil, nil, fmt.Errorf("%s: not a krmplan plan: it has no snapshot", name)
	}
	if snap, err = decodeEmbedded(name, "snapshot", f.Snapshot.state, "", 0); err == nil && f.Head != nil {
		head, err = decodeEmbedded(name, "head", f.Head.state, "", 0)
	}
	return snap, head, err
}

// edited is the refusal of a file whose content does not match its
// plan_id.
func edited(name, id string) error {
	return fmt.Errorf("%s: the plan's content does not match its plan_id %s (it was changed after it was made); make a new plan", name, short(id))
}

// fromFile is the plan of a file whose plan_id matched: the plan its
// inputs make, once it is checked that the file says nothing else
// (reverify).
func fromFile(name string, f *file, snap, head *snapshot.State) (*planner.Plan, error) {
	claimed := &planner.Plan{PlanID: f.PlanID, OrderVerified: f.OrderVerified, Summary: f.Summary, Changes: f.Changes,
		Desired: f.Desired, Snapshot: snap, Head: head}
	if err := fromFindings(claimed, f.Findings); err != nil {
		return nil, fmt.Errorf("%s: %w; make a new plan", name, err)
	}
	if f.Steps != nil {
		claimed.Steps = make([]planner.Step, len(f.Steps))
		for i, st := range f.Steps {
			if !st.Kind.Valid() {
				return nil, fmt.Errorf("%s: step %d has no kind; make a new plan", name, i+1)
			}
			claimed.Steps[i] = planner.Step{Phase: st.Phase, Action: st.Action, Object: st.Kind.Object(st.Object),
				Changes: st.Changes, Ops: st.Ops, Manifest: st.Manifest}
		}
	}
	return reverify(name, claimed, f.Renderable)
}

func fromFindings(p *planner.Plan, fs []finding) error {
	if fs == nil {
		return nil
	}
	p.Findings = make([]planner.Finding, len(fs))
	for i, x := range fs {
		var o tenancy.ObjectAddr
		if x.Object != "" {
			var err error
			if o, err = tenancy.ParseObjectAddr(x.Object); err != nil {
				return fmt.Errorf("finding %d: %w", i+1, err)
			}
		}
		p.Findings[i] = planner.Finding{Code: x.Code, Level: x.Level, Object: o, Queue: x.Queue, Pool: x.Pool,
			Resource: x.Resource, Message: x.Message, Where: x.Where, AlreadyPresent: x.AlreadyPresent, Before: x.Before}
	}
	return nil
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
