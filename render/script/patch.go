package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// ErrNotApproved is returned by Approve for a plan without approval.
var ErrNotApproved = errors.New("the plan is not approved: run render at a terminal and answer yes, or pass --approve <plan id>")

// Approve decides whether p may be rendered. It refuses a plan with error
// findings, and one that approveID does not name (the full plan_id or a
// unique prefix of at least 12 hex digits). prompted reports that a person
// typed "yes" at a terminal after seeing the plan, which approves it too.
// The plan's integrity (plan_id against content) is checked by
// planfile.Decode when the file is read.
func Approve(p *planner.Plan, approveID string, prompted bool) error {
	if !p.Renderable() {
		return fmt.Errorf("plan %s has %s; fix the desired file and plan again", p.PlanID[:12], words.Count(p.Summary.Errors, "error"))
	}
	if approveID != "" {
		if !p.MatchID(approveID) {
			if len(strings.TrimSpace(approveID)) < 12 {
				return fmt.Errorf("--approve %s: give the plan id or at least its first 12 hex digits", approveID)
			}
			return fmt.Errorf("--approve %s does not match this plan (plan id %s)", approveID, p.PlanID)
		}
		return nil
	}
	if prompted {
		return nil
	}
	return ErrNotApproved
}

// PatchScript returns the shell script of an approved plan: one kubectl
// command per step, in the plan's verified order. Every patch tests the
// queue name and the value as read before replacing it, so a value that
// someone changed since the snapshot makes kubectl fail (422) and, with
// `set -e`, the script stops there. It never tests resourceVersion.
//
// Every byte that comes from the plan is data to sh (see shell.go):
// comments are escaped, arguments single-quoted, object names validated.
// It refuses (an error naming the step and the value) a step whose object
// name is not a Kubernetes object name, whose kind or action is unknown,
// whose patch or manifest is not JSON (a manifest must be the step's
// object), and a cluster context with a control character, which the
// script could not show as it is.
func PatchScript(p *planner.Plan) ([]byte, error) {
	kubectl := []word{"kubectl"}
	if ctx := p.Snapshot.Source.Context; ctx != "" {
		if escape.Has(ctx) {
			return nil, fmt.Errorf("the snapshot's cluster context %q holds a control character: kubectl --context would get a name the script cannot show; use a context name without one", ctx)
		}
		kubectl = append(kubectl, "--context", quoted(ctx))
	}
	var w shell
	writeHeader(&w, p)
	for n, st := range p.Steps {
		w.blank()
		w.comment(fmt.Sprintf("%d/%d %s: %s %s", n+1, len(p.Steps), st.Phase, st.Object.Kind, st.Object.Name))
		if err := writeStep(&w, kubectl, p.Snapshot.Source.Context != "", st); err != nil {
			return nil, fmt.Errorf("step %d/%d (%s %q): %w", n+1, len(p.Steps), st.Object.Kind, st.Object.Name, err)
		}
	}
	return w.b.Bytes(), nil
}

// writeHeader writes the script's comments about the plan, then set -eu.
func writeHeader(w *shell, p *planner.Plan) {
	src := p.Snapshot.Source
	w.code("#!/bin/sh")
	w.comment("krmplan patch script for plan " + p.PlanID)
	switch src.Kind {
	case "git":
		w.comment(fmt.Sprintf("snapshot: git %s at %s (commit %s)", src.Repo, src.Ref, src.Commit))
	default:
		w.comment("snapshot: cluster context " + src.Context)
	}
	w.comment(words.Count(len(p.Steps), "step") + " in phases (new node pools, shrinking projects, shrinking departments,")
	w.comment("growing departments, growing projects); every intermediate state was")
	w.comment("verified against the checks. Each patch first tests the values it changes:")
	w.comment("if one changed since the snapshot, kubectl fails and the script stops.")
	if hasDelete(p.Steps) {
		w.comment("A deletion first tests the object as read, then deletes it with its uid as a")
		w.comment("precondition, after a server dry run: a namesake created since is never deleted.")
	}
	for _, f := range p.Findings {
		if f.Code == planner.CodeGitOpsOwned {
			w.comment("WARNING: " + f.Message)
		}
	}
	for _, r := range ProfileReminders(p) {
		w.comment(r)
	}
	w.code("set -eu")
}

// hasDelete reports whether a step deletes an object.
func hasDelete(steps []planner.Step) bool {
	return slices.ContainsFunc(steps, func(st planner.Step) bool { return st.Action == planner.StepDelete })
}

// writeStep writes the kubectl command of one step: kubectl create with
// the manifest as a here-document, or kubectl patch with the JSON patch as
// one quoted word. fieldManager adds --field-manager=krmplan to a patch
// (a live snapshot names the manager in the object's managedFields).
func writeStep(w *shell, kubectl []word, fieldManager bool, st planner.Step) error {
	if !slices.Contains(tenancy.Planned, st.Object.Kind) {
		return fmt.Errorf("kind %q is not a KRM kind krmplan renders (NodePool, Department, Project)", st.Object.Kind)
	}
	name, err := objectName(st.Object.Kind.String(), st.Object.Name)
	if err != nil {
		return err
	}
	switch st.Action {
	case planner.StepCreate:
		body, err := manifest(st)
		if err != nil {
			return err
		}
		w.hereDoc(body, append(kubectl, "create", "-f", "-")...)
	case planner.StepPatch:
		ops, err := json.Marshal(st.Ops)
		if err == nil {
			ops, err = asciiJSON(ops)
		}
		if err != nil {
			return fmt.Errorf("the patch is not JSON: %w", err)
		}
		args := append(kubectl, "patch", word(st.Object.Kind.Plural()), name, "--type=json")
		if fieldManager {
			args = append(args, "--field-manager=krmplan")
		}
		w.command(append(args, "-p", quoted(string(ops)))...)
	case planner.StepDelete:
		return writeDelete(w, kubectl, name, st)
	default:
		return fmt.Errorf("action %q is not %s, %s or %s", st.Action, planner.StepPatch, planner.StepCreate, planner.StepDelete)
	}
	return nil
}

// manifest is the new object of a create step as indented ASCII JSON. It
// must be a JSON object of the step's kind and name.
func manifest(st planner.Step) ([]byte, error) {
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(st.Manifest, &obj); err != nil {
		return nil, fmt.Errorf("the manifest is not a JSON object: %w", err)
	}
	if obj.Kind != st.Object.Kind.String() || obj.Metadata.Name != st.Object.Name {
		return nil, fmt.Errorf("the manifest is %s %q, not the step's object", obj.Kind, obj.Metadata.Name)
	}
	compact, err := asciiJSON(st.Manifest)
	if err != nil {
		return nil, fmt.Errorf("the manifest is not JSON: %w", err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("the manifest is not JSON: %w", err)
	}
	return pretty.Bytes(), nil
}
