package dryrun

// The live check of a patch script's guards (`krmplan render --format
// patch --check-live`): before the script is written, the tests its steps
// make are sent to the API server as dry runs, so that a plan the cluster
// has moved away from is refused with the value that changed, instead of
// stopping the script halfway.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/guard"
	"github.com/krmplan/krmplan/snapshot/live"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// GuardFailure is a guard of a plan's step that does not hold on the live
// cluster now.
type GuardFailure struct {
	// N is the step's number (1-based), Of the number of steps.
	N, Of int
	Step  planner.Step
	// Guard is the test that fails, for a patch step; zero for a create
	// step, whose object exists now, and for a patch step whose object is
	// gone (Gone).
	Guard guard.Guard
	// Now is the value the cluster holds at the guard's path, as JSON; ""
	// when there is none.
	Now  string
	Gone bool
}

// Message says what failed: "step 2/4 (shrinking departments: Department
// vision): gpu.deserved of queue vision-h100
// (/spec/queues/0/resources/gpu/deserved) changed since the snapshot: the
// plan read 8, the cluster holds 6".
func (g GuardFailure) Message() string {
	at := fmt.Sprintf("step %d/%d (%s: %s %s)", g.N, g.Of, g.Step.Phase, g.Step.Object.Kind, g.Step.Object.Name)
	switch {
	case g.Step.Action == planner.StepCreate:
		return fmt.Sprintf("%s: %s %s exists now: someone created it since the snapshot", at, g.Step.Object.Kind, g.Step.Object.Name)
	case g.Gone:
		return fmt.Sprintf("%s: %s %s does not exist any more: someone deleted it since the snapshot", at, g.Step.Object.Kind, g.Step.Object.Name)
	}
	now := g.Now
	if now == "" {
		now = "nothing there"
	}
	if g.Guard.Path == "/metadata/uid" { // a delete's: the object of this name is another one now
		return fmt.Sprintf("%s: %s %s was deleted and created again since the snapshot: its uid is %s, the plan read %s; the script never deletes it", at, g.Step.Object.Kind, g.Step.Object.Name, strings.Trim(now, `"`), strings.Trim(string(g.Guard.Value), `"`))
	}
	read := string(g.Guard.Value)
	if read == "null" { // the test that the field is absent
		read = "nothing there"
	}
	return fmt.Sprintf("%s: %s (%s) changed since the snapshot: the plan read %s, the cluster holds %s", at, g.Guard.What, g.Guard.Path, read, now)
}

// CheckGuards sends the guards of every step to the API server, changing
// nothing: for a patch or delete step its tests alone as a JSON patch with
// dryRun=All (the server applies the tests as it would in the real patch);
// when the server refuses them (422), each test alone, and the object is
// read to say what it holds where a test fails. A create step's guard is
// that its object does not exist yet. It returns the guards that fail, in
// step order; an error when the server cannot answer (unreachable, ctx
// done, forbidden), naming the step.
func CheckGuards(ctx context.Context, dyn dynamic.Interface, steps []planner.Step) ([]GuardFailure, error) {
	var out []GuardFailure
	for i, st := range steps {
		fail := GuardFailure{N: i + 1, Of: len(steps), Step: st}
		res := dyn.Resource(live.KindGVR(st.Object.Kind))
		where := fmt.Sprintf("step %d/%d (%s %s %s)", i+1, len(steps), st.Action, st.Object.Kind, st.Object.Name)
		switch st.Action {
		case planner.StepCreate:
			_, err := res.Get(ctx, st.Object.Name, metav1.GetOptions{})
			switch {
			case err == nil:
				out = append(out, fail)
			case !apierrors.IsNotFound(err):
				return nil, fmt.Errorf("%s: reading the object: %w", where, err)
			}
			continue
		case planner.StepPatch, planner.StepDelete: // a delete's ops are its tests of the object as read
		default:
			return nil, fmt.Errorf("%s: unknown action %q", where, st.Action)
		}
		held, err := dryRunTests(ctx, res, st.Object.Name, planner.TestOps(st))
		switch {
		case apierrors.IsNotFound(err) && st.Action == planner.StepDelete:
			continue // already gone: the script says "nothing to delete"
		case apierrors.IsNotFound(err):
			fail.Gone = true
			out = append(out, fail)
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", where, err)
		case held:
			continue
		}
		fs, err := failingGuards(ctx, res, fail)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out = append(out, fs...)
	}
	return out, nil
}

// dryRunTests sends the test operations ops to the object name with
// dryRun=All: true when they hold, false when the server refuses them as
// invalid (422, a test failing), an error otherwise.
func dryRunTests(ctx context.Context, res dynamic.ResourceInterface, name string, ops []planner.Op) (bool, error) {
	if len(ops) == 0 {
		return true, nil
	}
	b, err := json.Marshal(ops)
	if err != nil {
		return false, err
	}
	_, err = res.Patch(ctx, name, types.JSONPatchType, b, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsInvalid(err):
		return false, nil
	}
	return false, err
}

// failingGuards tests each guard of f.Step alone and returns those that
// fail, each with the value the object holds at its path.
func failingGuards(ctx context.Context, res dynamic.ResourceInterface, f GuardFailure) ([]GuardFailure, error) {
	var out []GuardFailure
	var obj map[string]any
	for _, g := range guard.Of(f.Step) {
		held, err := dryRunTests(ctx, res, f.Step.Object.Name, []planner.Op{{Op: "test", Path: g.Path, Value: g.Value}})
		if err != nil {
			return nil, err
		}
		if held {
			continue
		}
		if obj == nil {
			o, err := res.Get(ctx, f.Step.Object.Name, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("reading the object: %w", err)
			}
			obj = o.Object
		}
		f.Guard, f.Now = g, valueAt(obj, g.Path)
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, errors.New("the API server refused the step's tests together but none alone; plan again from a new snapshot")
	}
	return out, nil
}

// valueAt is the JSON of the value at the JSON pointer p of obj, "" when
// there is none.
func valueAt(obj any, p string) string {
	v := obj
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return ""
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
