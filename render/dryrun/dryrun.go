// Package dryrun checks a plan's steps against the live API server without
// changing it: the server-side dry run of `krmplan plan --server-dry-run` and
// the guard check of `krmplan render --format patch --check-live`. It sits
// above planner (it sends the planner's steps) and uses snapshot/live for
// the kinds' resources, so that snapshot/live, the reader, never imports
// the planner (DESIGN §7: snapshot → planner → render).
package dryrun

// The server-side dry run of a plan's steps (`krmplan plan --server-dry-run`).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot/live"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// FieldManager is the field manager krmplan names in its requests and in
// the patch script (--field-manager=krmplan).
const FieldManager = "krmplan"

// ServerDryRun sends each step to the API server in order with
// dryRun=All: a patch step as its JSON patch (types.JSONPatchType, the
// test operations included), a create step as a Create of its manifest, a
// delete step as its tests and a Delete with the uid precondition.
// Nothing is persisted, so every step is checked against the live object
// as it is now: step N does not see the effect of step N-1 (a step that
// depends on an earlier one is not something the planner emits: each
// patch tests and changes values of its own queue). It returns an error
// finding (planner.CodeServerDryRunRefused) for every step the server refuses, naming
// the step and the object and quoting the server's words — a 422 on a
// patch with test operations and no further detail is the test failing,
// i.e. the value changed since the snapshot — and one note (planner.CodeServerDryRun)
// saying how many steps were accepted and what a dry run cannot show. An
// error is returned, and no finding, when the server cannot answer (it is
// unreachable, ctx is done, a step's kind is unknown).
func ServerDryRun(ctx context.Context, dyn dynamic.Interface, steps []planner.Step) ([]planner.Finding, error) {
	var out []planner.Finding
	accepted := 0
	for n, st := range steps {
		if !st.Object.Kind.Valid() {
			return nil, fmt.Errorf("step %d: unknown kind %q", n+1, st.Object.Kind)
		}
		gvr := live.KindGVR(st.Object.Kind)
		var err error
		switch st.Action {
		case planner.StepCreate:
			var o unstructured.Unstructured
			if err := json.Unmarshal(st.Manifest, &o.Object); err != nil {
				return nil, fmt.Errorf("step %d (create %s %s): the manifest is not JSON: %w", n+1, st.Object.Kind, st.Object.Name, err)
			}
			_, err = dyn.Resource(gvr).Create(ctx, &o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager})
		case planner.StepPatch:
			ops, merr := json.Marshal(st.Ops)
			if merr != nil {
				return nil, fmt.Errorf("step %d (patch %s %s): %w", n+1, st.Object.Kind, st.Object.Name, merr)
			}
			_, err = dyn.Resource(gvr).Patch(ctx, st.Object.Name, types.JSONPatchType, ops, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager})
		case planner.StepDelete:
			err = dryRunDelete(ctx, dyn.Resource(gvr), st)
		default:
			return nil, fmt.Errorf("step %d: unknown action %q", n+1, st.Action)
		}
		if err == nil {
			accepted++
			continue
		}
		var status apierrors.APIStatus
		if ctx.Err() != nil || !errors.As(err, &status) {
			return nil, fmt.Errorf("dry run of step %d (%s %s %s): %w", n+1, st.Action, st.Object.Kind, st.Object.Name, err)
		}
		out = append(out, planner.Finding{Code: planner.CodeServerDryRunRefused, Level: planner.LevelError, Object: st.Object,
			Message: fmt.Sprintf("step %d/%d (%s %s %s, %s): the API server refused it in a dry run: %s%s",
				n+1, len(steps), st.Action, st.Object.Kind, st.Object.Name, st.Phase, status.Status().Message, staleHint(st, err, status))})
	}
	note := fmt.Sprintf("server dry run: the API server accepted %d of %d steps (dryRun=All, nothing persisted)", accepted, len(steps))
	if accepted == len(steps) {
		note = fmt.Sprintf("server dry run: the API server accepted all %s (dryRun=All, nothing persisted)", words.Count(len(steps), "step"))
	}
	note += "; each step was checked against the live object as it is now, without the effect of the steps before it, since a dry run persists nothing"
	out = append(out, planner.Finding{Code: planner.CodeServerDryRun, Level: planner.LevelNote, Message: note})
	return out, nil
}

// staleHint explains a refusal that is the JSON-patch test failing: 422
// Invalid with no cause, on a patch that has test operations. The server's
// text for it is generic ("the server rejected our request due to an error
// in our request") and differs between versions, so it is recognised by
// its shape, not its words.
func staleHint(st planner.Step, err error, status apierrors.APIStatus) string {
	if st.Action == planner.StepDelete && apierrors.IsConflict(err) {
		return " — the object of this name has another uid than the snapshot read: it was deleted and created again since; take a new snapshot and plan again"
	}
	if (st.Action != planner.StepPatch && st.Action != planner.StepDelete) || !apierrors.IsInvalid(err) {
		return ""
	}
	if d := status.Status().Details; d != nil && len(d.Causes) > 0 {
		return ""
	}
	for _, op := range st.Ops {
		if op.Op == "test" {
			return " — a value this patch tests (a queue name or a number as read) is no longer what the snapshot read: the object changed since the snapshot; take a new snapshot and plan again"
		}
	}
	return ""
}

// dryRunDelete sends a delete step with dryRun=All: its tests as a JSON
// patch, then a Delete whose precondition is the uid the step tests (the
// object's uid read now when the snapshot had none).
func dryRunDelete(ctx context.Context, r dynamic.NamespaceableResourceInterface, st planner.Step) error {
	uid, ok := st.TestedUID()
	if !ok {
		o, err := r.Get(ctx, st.Object.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		uid = string(o.GetUID())
	}
	if len(st.Ops) > 0 {
		ops, err := json.Marshal(st.Ops)
		if err != nil {
			return err
		}
		if _, err := r.Patch(ctx, st.Object.Name, types.JSONPatchType, ops, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager}); err != nil {
			return err
		}
	}
	u := types.UID(uid)
	return r.Delete(ctx, st.Object.Name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}, Preconditions: &metav1.Preconditions{UID: &u}})
}
