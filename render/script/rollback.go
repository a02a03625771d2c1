package script

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/rollback"
	"github.com/krmplan/krmplan/tenancy"
)

// RollbackPath is the file the rollback of a patch script written to path
// goes to: beside it, apply.sh → apply.rollback.sh, any other name + ".rollback.sh".
func RollbackPath(path string) string {
	dir, base := filepath.Split(path)
	return dir + strings.TrimSuffix(base, ".sh") + ".rollback.sh"
}

// Separator stands between the patch script of p and its rollback when
// both are printed on stdout: comment lines. The patch script ends with
// exit, so that sh never runs the rollback after it.
func Separator(p *planner.Plan) []byte {
	var w shell
	w.blank()
	w.comment("---- 8< ---- the rollback script of plan " + p.PlanID + " follows.")
	w.comment("The patch script above ends at its exit: sh never reaches this line. render -o FILE")
	w.comment("writes the two scripts to their own files, FILE and its .rollback.sh.")
	w.blank()
	return w.b.Bytes()
}

// RollbackScript returns the shell script that undoes the patch script of
// p (PatchScript with the same options), step by step, last first, in the
// order rollback.Steps verifies: `sh rollback.sh` undoes every step,
// `sh rollback.sh N` undoes steps N down to 1 — what a patch script that
// stopped at step N+1 applied. Each undo is announced ("krmplan: undoing
// step 3/4: …"). A patch tests every value as the plan leaves it before it
// puts back the snapshot's; a new object is deleted only when a server dry
// run of its tests passes (it carries this plan's annotation and the
// values the plan gave it), by its uid, so that an object someone created
// under the same name is never deleted. On a refusal the script names the
// values that changed since the patch script ran, which steps were undone
// and which are still applied, and exits 10 + the step's number (250 past
// 239); 0 when every step asked for was undone, 2 for a wrong argument.
// Its input bytes go through shell.go as the patch script's do; the errors
// are PatchScript's, and rollback.Steps'.
func RollbackScript(p *planner.Plan, o Options) ([]byte, error) {
	kubectl, err := o.kubectl()
	if err != nil {
		return nil, err
	}
	back, err := rollback.Steps(p)
	if err != nil {
		return nil, err
	}
	var w shell
	writeRollbackHeader(&w, p, o)
	writePrelude(&w, p, o, kubectl, deleteLibrary+"\n"+rollbackLibrary+renameLibraries(p))
	total := len(back)
	for i, st := range back {
		n := total - i // the patch script's step it undoes
		w.blank()
		if err := writeUndoGiveback(&w, p, n); err != nil {
			return nil, fmt.Errorf("undoing step %d/%d (%s %q): %w", n, total, st.Object.Kind, st.Object.Name, err)
		}
		if err := writeUndo(&w, kubectl, p.PlanID, n, total, st, p.Steps[n-1]); err != nil {
			return nil, fmt.Errorf("undoing step %d/%d (%s %q): %w", n, total, st.Object.Kind, st.Object.Name, err)
		}
		if err := writeUndoRelabel(&w, kubectl, p, n); err != nil {
			return nil, fmt.Errorf("undoing step %d/%d (%s %q): %w", n, total, st.Object.Kind, st.Object.Name, err)
		}
	}
	w.blank()
	w.code(`krmplan_say "undone: $(krmplan_steps "$krmplan_from" 1): the cluster holds the snapshot's values for them again"`)
	w.code("exit 0")
	return w.b.Bytes(), nil
}

// writeUndoRelabel writes, after the undo of step n when that step removed
// the old project of a `moved` block (the undo created it again), the
// relabel of its namespace back to it: the patch script gave the label to
// the new project, which the undo of an earlier step deletes.
func writeUndoRelabel(w *shell, kubectl []word, p *planner.Plan, n int) error {
	r, err := renameOf(p, p.Steps[n-1])
	if r == nil || err != nil {
		return err
	}
	w.code(`if [ "$krmplan_from" -ge ` + strconv.Itoa(n) + ` ]; then`)
	w.depth++
	relabel(w, kubectl, r.ns, r.key+"="+r.from, fmt.Sprintf("undoing step %d/%d", n, len(p.Steps)), n)
	w.depth--
	w.code("fi")
	return nil
}

// writeUndoGiveback writes, before the undo of step n when that step
// created the new project of a `moved` block (the undo deletes it), the
// namespace given back to the old project should it still name the new
// one — whatever the rollback undoes: the undo of the old project's
// removal relabels it when that step is among those undone, but a patch
// script stopped inside that step may have left the new label (its own
// give-back refused), and the new project must not go with the namespace
// labelled for it.
func writeUndoGiveback(w *shell, p *planner.Plan, n int) error {
	created := p.Steps[n-1]
	if created.Action != planner.StepCreate || created.Object.Kind != tenancy.KindProject {
		return nil
	}
	for _, st := range p.Steps {
		r, err := renameOf(p, st)
		if err != nil {
			return err
		}
		if r == nil || r.to != created.Object.Name {
			continue
		}
		giveback, err := r.giveback(false)
		if err != nil {
			return err
		}
		w.code(`if [ "$krmplan_from" -ge ` + strconv.Itoa(n) + ` ]; then`)
		w.depth++
		w.command(giveback...)
		failed(w, fmt.Sprintf("undoing step %d/%d failed: namespace %s still names project %s, which the undo deletes", n, len(p.Steps), r.ns, r.to), n)
		w.depth--
		w.code("fi")
	}
	return nil
}

// writeRollbackHeader writes the rollback script's comments.
func writeRollbackHeader(w *shell, p *planner.Plan, o Options) {
	w.code("#!/bin/sh")
	w.comment("krmplan rollback script for plan " + p.PlanID)
	writeSource(w, p, o)
	name := rollbackName(o)
	if o.Rollback == "" {
		name = "this script"
	}
	w.comment(fmt.Sprintf("It undoes the patch script's %s, the last first: sh %s undoes all", words.Count(len(p.Steps), "step"), name))
	w.comment("of them; with N, steps N down to 1 (what the patch script applied when it stopped")
	w.comment("at step N+1). The order was verified: each state it passes through is one the")
	w.comment("patch script passes through. Each patch first tests the values the plan set;")
	w.comment("a new object is deleted only while it carries the annotation " + planner.CreatedByAnnotation + "=" + p.PlanID[:min(12, len(p.PlanID))] + "…")
	w.comment("and the plan's values (a server dry run of those tests), by its uid.")
	w.comment("Exit code: 0 every step asked for undone; 10+N undoing step N failed (250 for")
	w.comment("a step past 239); 2 a wrong argument.")
}

// writeUndo writes the undo of step n of total: its comment, its
// announcement, the kubectl command — a patch, krmplan_delete, or the
// create of an object the plan removed — and its
// report, all inside an if that runs it only when n is among the steps to
// undo.
func writeUndo(w *shell, kubectl []word, planID string, n, total int, st, forward planner.Step) error {
	if !planned(st.Object.Kind) {
		return fmt.Errorf("kind %q is not a KRM kind krmplan renders (NodePool, Department, Project)", st.Object.Kind)
	}
	name, err := objectName(st.Object.Kind.String(), st.Object.Name)
	if err != nil {
		return err
	}
	guards, err := guardArgs(st, "the patch script ran", "the plan set")
	if err != nil {
		return err
	}
	plural := word(st.Object.Kind.Plural())
	var cmd []word
	var body []byte
	switch st.Action {
	case planner.StepCreate:
		// The re-creation of an object the plan removed, as read.
		if body, err = manifest(st, planID); err != nil {
			return err
		}
		cmd = append(kubectl, "create", "-f", "-")
	case planner.StepDelete:
		tests, err := opsWord(planner.TestOps(st))
		if err != nil {
			return err
		}
		cmd = []word{"krmplan_delete", plural, name, deleteURL(st.Object.Kind, name), tests}
	case planner.StepPatch:
		ops, err := opsWord(st.Ops)
		if err != nil {
			return err
		}
		cmd = append(kubectl, "patch", plural, name, "--type=json", "--field-manager=krmplan", "-p", ops)
	default:
		return fmt.Errorf("action %q is not %s, %s or %s", st.Action, planner.StepPatch, planner.StepCreate, planner.StepDelete)
	}
	w.comment(fmt.Sprintf("undo %d/%d %s: %s", n, total, st.Phase, objectWord(st.Object)))
	w.code(`if [ "$krmplan_from" -ge ` + strconv.Itoa(n) + ` ]; then`)
	w.depth++
	w.command("krmplan_say", shown(fmt.Sprintf("undoing step %d/%d: %s: %s", n, total, st.Phase, objectWord(st.Object))))
	if st.Action == planner.StepCreate {
		// The removed object may still be finalizing: KRM's finalizers
		// keep it, Terminating, until they are done, and a create meets
		// AlreadyExists until then.
		w.command("krmplan_gone", plural, name, shown(objectWord(st.Object)), word(strconv.Itoa(n)), "||", "krmplan_failed", word(strconv.Itoa(n)))
	}
	report := append([]word{"krmplan_guards", shown(objectWord(st.Object)), plural, name}, guards...)
	if st.Action == planner.StepCreate {
		report = []word{"krmplan_absent", shown(objectWord(st.Object)), plural, name}
	}
	undone, err := alreadyUndone(plural, name, n, total, st, forward)
	if err != nil {
		return err
	}
	w.guardedUnless(cmd, body, fmt.Sprintf("undoing step %d/%d failed: kubectl refused the %s of %s", n, total, st.Action, objectWord(st.Object)), report, n, undone)
	w.depth--
	w.code("fi")
	return nil
}

// alreadyUndone is, for the undo st of a patch step (forward), what tells
// after a refusal that the step is undone already: a server dry run of the
// forward step's own tests (the queues' names and the values the snapshot
// read). When they hold, the object holds what the undo would put back — a
// second `sh rollback.sh N`, or a patch script that never reached the
// step — so the script says so and goes on to the next step instead of
// reporting the plan's values as changed. Nil for other undos: a deleted
// object is found gone by krmplan_delete, and a re-created object's create
// reports that it exists. Only a step that replaces values qualifies:
// the tests of one that adds a queue or a field, or removes one, do not
// show whether it is still there.
func alreadyUndone(plural, name word, n, total int, st, forward planner.Step) (*unless, error) {
	tests := planner.TestOps(forward)
	if st.Action != planner.StepPatch || forward.Action != planner.StepPatch || len(tests) == 0 || !onlyReplaces(forward) {
		return nil, nil
	}
	ops, err := opsWord(tests)
	if err != nil {
		return nil, err
	}
	return &unless{
		check: []word{"krmplan_holds", plural, name, ops},
		say:   shown(fmt.Sprintf("step %d/%d is already undone: %s holds the values the snapshot read (a server dry run of the step's tests)", n, total, objectWord(st.Object))),
	}, nil
}

// onlyReplaces reports whether every operation of st but its tests is a
// replace (each of which follows a test of the value it replaces).
func onlyReplaces(st planner.Step) bool {
	for _, op := range st.Ops {
		if op.Op != planner.OpTest && op.Op != planner.OpReplace {
			return false
		}
	}
	return true
}
