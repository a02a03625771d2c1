// Package planner turns a snapshot and desired.hcl into a plan: the
// changes (from config), the target state (tenancy.Apply), the findings of
// the checks, and the ordered steps that reach the target through states
// that all pass the checks. It does no I/O; planner/planfile writes and
// reads a plan as plan.json.
package planner

import (
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/planner/capacity"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Plan is a plan in memory: everything a reviewer and render need.
// planfile.Encode writes it as plan.json (and sets PlanID), and
// planfile.Decode reads it back, recomputing what the file only repeats.
type Plan struct {
	// PlanID is the sha256 (hex) of plan.json with plan_id empty; "" until
	// the plan is encoded or decoded.
	PlanID string
	// OrderVerified is true when every intermediate state of Steps was
	// simulated and passed the checks.
	OrderVerified bool
	Summary       Summary
	Changes       []tenancy.Change
	Steps         []Step
	Findings      []Finding
	Desired       Desired
	// Head is the git snapshot a plan between two refs reaches (package
	// between; its changes are tenancy.Diff(Snapshot, Head)), else nil.
	Head *snapshot.State
	// Snapshot is the snapshot the plan was made from (its Digest names
	// it), as read: plan.json embeds it as state.json's bytes.
	Snapshot *snapshot.State
	// Target is the snapshot's tenancy with every change applied: what the
	// plan leaves (tenancy.Apply). It shares the objects the plan does not
	// change with Snapshot.
	Target *tenancy.Tenancy

	indexes sync.Once
	before  *tenancy.Index
	target  *tenancy.Index

	nodesOnce sync.Once
	nodes     *capacity.Counter
}

// Renderable reports whether render may render the plan: it has no error
// finding. It is derived from the findings, never stored.
func (p *Plan) Renderable() bool { return !hasErrors(p.Findings) }

// ForcedRemovals counts the removals (objects removed whole and queue
// entries) that force allowed although they break something: the changes
// with force = true (or a plan between refs' --force-removal) that have a
// forced-removal warning, on their object and, for a queue entry, on its
// node pool. A removal is counted once, however many warnings it has; a
// force that allowed nothing (an idle queue) is not counted. Like
// Renderable it is derived from the findings, never stored; the views'
// headers show it.
func (p *Plan) ForcedRemovals() int {
	type place struct {
		object tenancy.ObjectAddr
		pool   string
	}
	// The warnings' places once, so that a plan of thousands of forced
	// removals is not each change against each finding.
	object, queue := map[tenancy.ObjectAddr]bool{}, map[place]bool{}
	for _, f := range p.Findings {
		if f.Code == CodeForcedRemoval {
			object[f.Object] = true
			queue[place{f.Object, f.Pool}] = true
		}
	}
	n := 0
	for i := range p.Changes {
		c := &p.Changes[i]
		switch {
		case !c.Force: // only a forced change has the warning
		case c.Destroys() && object[c.Object()], !c.Destroys() && queue[place{c.Object(), c.Pool}]:
			n++
		}
	}
	return n
}

// Indexes returns the indexes of the snapshot's and the target's tenancy,
// made once per plan.
func (p *Plan) Indexes() (before, target *tenancy.Index) {
	p.indexes.Do(func() {
		if p.before == nil {
			p.before = tenancy.NewIndex(&p.Snapshot.Tenancy)
		}
		if p.target == nil {
			p.target = tenancy.NewIndex(p.Target)
		}
	})
	return p.before, p.target
}

// Nodes is the snapshot's nodes as the plan's checks read them, each once
// (capacity.Counter), for what counts the pools again of the snapshot or
// the target, which have those nodes (the pool bars, the fair share).
func (p *Plan) Nodes() *capacity.Counter {
	p.nodesOnce.Do(func() {
		if p.nodes == nil {
			p.nodes = capacity.NewCounter(p.Snapshot)
		}
	})
	return p.nodes
}

// TargetState is the snapshot with the target's objects: the state the
// checks see after the plan (cluster data as the snapshot read it).
func (p *Plan) TargetState() *snapshot.State { return withTenancy(p.Snapshot, p.Target) }

// withTenancy is s with its objects replaced by t's.
func withTenancy(s *snapshot.State, t *tenancy.Tenancy) *snapshot.State {
	c := *s
	c.Tenancy = *t
	return &c
}

// Desired is the HCL the plan was made from.
type Desired struct {
	File      string            `json:"file"`
	Source    string            `json:"source"`
	Variables map[string]string `json:"variables,omitempty"`
	// ForceRemovals are a plan between two git refs' --force-removal (package between).
	ForceRemovals []tenancy.RemovalAddr `json:"force_removals,omitempty"`
}

// Summary counts objects and findings. Add, Change and Destroy count
// objects, as Terraform counts resources: an object that loses a queue
// entry is changed, one that is removed whole is destroyed.
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
	k := StartChecks(before)
	defer k.Stop()
	return k.Build(ov)
}

// Checking is a snapshot whose own checks have started (StartChecks): a
// plan's findings are marked by them, and they do not depend on the
// changes, so they run while the desired file is read and the plan is
// made.
type Checking struct {
	before *snapshot.State
	bx     *tenancy.Index
	sh     *shared
	pb     *pending
}

// StartChecks starts the checks of the snapshot before, on a goroutine of
// their own, for one Build on it; Stop must follow.
func StartChecks(before *snapshot.State) *Checking {
	bx := tenancy.NewIndex(&before.Tenancy)
	sh, pb := startBefore(before, bx)
	return &Checking{before: before, bx: bx, sh: sh, pb: pb}
}

// Stop ends the snapshot's checks when no plan took them (an error before
// or in Build), and waits for them: nothing is left running. After a plan
// it only returns.
func (k *Checking) Stop() { k.pb.stop() }

// Build is the package's Build of ov against the snapshot k checks: once,
// before Stop.
func (k *Checking) Build(ov *config.Overlay) (*Plan, hcl.Diagnostics) {
	before, bx := k.before, k.bx
	changes, set, diags := ov.Changes(bx, readFiles(before))
	if diags.HasErrors() {
		return nil, diags
	}
	p, err := build(before, bx, changes, set, k.sh, k.pb)
	if err != nil {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Internal error",
			Detail: "the changes of desired.hcl do not apply to the snapshot: " + err.Error() + "; please report this with the desired file"})
	}
	p.Desired = Desired{File: ov.File, Source: string(ov.Source), Variables: ov.Variables}
	return p, diags
}

// FromChanges plans exactly changes against the snapshot before, as Build
// plans the changes of an overlay: the target (tenancy.Apply), every
// check, the steps and their verified order. It is how a plan without a
// desired file is made and re-verified (a plan between two git refs,
// issue #16). The findings point at desired.hcl only for the values the
// changes set (their Source); Desired is empty. An error is a change
// whose file cannot place its object, by the rules of desired.hcl's file =
// (config.CheckPlacements), or a change that does not fit before
// (*tenancy.ApplyError).
func FromChanges(before *snapshot.State, changes []tenancy.Change) (*Plan, error) {
	bx := tenancy.NewIndex(&before.Tenancy)
	sh, pb := startBefore(before, bx)
	defer pb.stop()
	if err := config.CheckPlacements(bx, readFiles(before), changes); err != nil {
		return nil, err
	}
	set := config.Ranges{}
	for i := range changes {
		if c := &changes[i]; c.Source != nil {
			set[c.Field] = *c.Source
		}
	}
	return build(before, bx, changes, set, sh, pb)
}

// pending is the checks of a plan's snapshot, run on a goroutine of their
// own from the start of Build: they do not depend on the changes, so they
// run while the changes, the target and the steps are made.
type pending struct {
	wg       sync.WaitGroup
	findings []Finding
	sh       *shared
}

// startBefore starts the checks of the snapshot before (bx indexes it),
// with what the checks of the plan's states share.
func startBefore(before *snapshot.State, bx *tenancy.Index) (*shared, *pending) {
	sh := newShared(before)
	pb := &pending{sh: sh}
	pb.wg.Go(func() { pb.findings = sh.run(before, before, bx, bx, nil, nil, false) })
	return sh, pb
}

// wait returns the snapshot's findings once they are made.
func (pb *pending) wait() []Finding {
	pb.wg.Wait()
	return pb.findings
}

// stop ends the checks early when there is no plan to give them to (an
// error of the changes), and waits for them: nothing is left running.
func (pb *pending) stop() {
	pb.sh.abandon.Store(true)
	pb.wg.Wait()
}

// build is the plan of changes against before (bx indexes its tenancy);
// set maps the values desired.hcl sets to their ranges; pb checks before,
// with sh.
func build(before *snapshot.State, bx *tenancy.Index, changes []tenancy.Change, set config.Ranges, sh *shared, pb *pending) (*Plan, error) {
	draft := tenancy.NewDraft(&before.Tenancy)
	if err := draft.Apply(changes); err != nil {
		return nil, err
	}
	p := &Plan{Changes: changes, Target: draft.Tenancy(), target: draft.Index(), nodes: sh.nodes}
	p.Steps, p.OrderVerified, p.Findings = sh.order(before, withTenancy(before, p.Target), bx, p.target, changes, set, pb)
	// The snapshot's index is made again when asked for; the target's is
	// the draft's.
	p.Snapshot = before
	p.Summary = p.summary()
	return p, nil
}

// order builds the steps, runs the checks of the target and of the
// snapshot (sh is made from it), and verifies the steps; it returns the steps, whether they
// were verified, and the findings (with unsafe-order when no order is
// safe). The checks and the verification only read the two states: they
// run at the same time. The verification is wasted when the target has
// errors.
func (sh *shared) order(before, target *snapshot.State, bx, tx *tenancy.Index, changes []tenancy.Change, set config.Ranges, pb *pending) ([]Step, bool, []Finding) {
	steps := BuildSteps(bx, tx, changes)
	var findings []Finding
	var wg sync.WaitGroup
	wg.Go(func() { findings = sh.run(before, target, bx, tx, set, changes, false) })
	stepErrs := sh.stepErrors(before, bx, tx, changes, steps)
	wg.Wait()
	beforeFindings := pb.wait()
	bad := firstUnsafe(stepErrs, beforeFindings)
	if bad != nil && movesProject(changes) {
		moved := buildStepsIn(bx, tx, changes, moveRank)
		if firstUnsafe(sh.stepErrors(before, bx, tx, changes, moved), beforeFindings) == nil {
			steps, bad = moved, nil
		}
	}
	markPresent(findings, beforeFindings)
	if hasErrors(findings) {
		return steps, false, findings
	}
	if bad != nil {
		findings = append(findings, *bad)
		sortFindings(findings)
		return steps, false, findings
	}
	return steps, true, findings
}

// markPresent marks each finding of the target that the snapshot has too
// (by key: the numbers in a message may differ) as AlreadyPresent, and
// keeps the snapshot's message in Before when no finding of the snapshot
// with that key has the same message and level.
func markPresent(findings, beforeFindings []Finding) {
	present := map[findingKey][]Finding{}
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

// Summarize counts the objects the changes create, change and destroy, and
// the findings by level.
func Summarize(changes []tenancy.Change, findings []Finding) Summary {
	var s Summary
	created, changed, destroyed := map[tenancy.ObjectAddr]bool{}, map[tenancy.ObjectAddr]bool{}, map[tenancy.ObjectAddr]bool{}
	for i := range changes {
		switch c := &changes[i]; {
		case c.Creates():
			created[c.Object()] = true
		case c.Destroys():
			destroyed[c.Object()] = true
		default:
			changed[c.Object()] = true
		}
	}
	for o := range destroyed {
		delete(changed, o) // an object removed whole is destroyed, not changed
	}
	s.Add, s.Change, s.Destroy = len(created), len(changed), len(destroyed)
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

// Summary counts the plan's changed objects and findings, as Build and
// AddFindings set p.Summary.
func (p *Plan) summary() Summary { return Summarize(p.Changes, p.Findings) }

// MatchID reports whether id approves the plan: the full plan_id or a
// unique prefix of at least 12 hex digits.
func (p *Plan) MatchID(id string) bool {
	id = strings.ToLower(strings.TrimSpace(id))
	return len(id) >= 12 && strings.HasPrefix(p.PlanID, id)
}

// readFiles are the repository paths of the tenancy files the snapshot
// read (none for a cluster's), and each --tenancy path under which it read
// none (a plan between refs reads a path the base lacks as empty: a file
// the pull request adds, "p", or a folder, "p/"), which the next snapshot
// reads once it exists.
func readFiles(st *snapshot.State) []string {
	paths := make([]string, 0, len(st.Source.Files))
	for _, f := range st.Source.Files {
		paths = append(paths, f.Path)
	}
	for _, p := range st.Source.Paths {
		if p == "." || slices.ContainsFunc(st.Source.Files, func(f snapshot.SourceFile) bool { return f.Path == p || strings.HasPrefix(f.Path, p+"/") }) {
			continue
		}
		if !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			p += "/" // a folder
		}
		paths = append(paths, p)
	}
	return paths
}
