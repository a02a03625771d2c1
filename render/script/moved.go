package script

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"k8s.io/apimachinery/pkg/util/validation"
)

// rename is what the scripts write around the delete step of the old
// project of a `moved` block: the namespace that carries over to the new
// project, and how its label moves.
type rename struct {
	from, to string // the old project and the new one (validated names)
	ns       word   // the namespace, validated
	key      string // the project label key (kai/project)
	// override is the manual-override label key when the namespace is the
	// old project's default one (it had no spec.namespace), "" otherwise.
	// While such a project exists, every reconcile of it by KRM's project
	// controller rewrites its default namespace's labels to its own
	// (handleExistingNamespace), and the relabel itself triggers one: KRM
	// maps a namespace's update to the projects its old and its new label
	// name. A namespace with override=true is left alone by that handler
	// and its events are dropped (docs/krm-domain.md, Renaming a project),
	// so the relabel sets it until the old project is gone.
	override string
}

// renameOf is the rename of a delete step whose project a `moved` block
// renames, nil for another step. The namespace, the label keys and the
// names are validated: a key that is not a Kubernetes label key is an
// error, as kubectl would refuse it.
func renameOf(p *planner.Plan, st planner.Step) (*rename, error) {
	if st.Action != planner.StepDelete {
		return nil, nil
	}
	r := &rename{from: st.Object.Name}
	for _, i := range st.Changes {
		if i >= 0 && i < len(p.Changes) && p.Changes[i].MovedTo != "" {
			r.to = p.Changes[i].MovedTo
		}
	}
	if r.to == "" {
		return nil, nil
	}
	r.key = p.Target.KRMConfig.LabelKey()
	for _, name := range []string{r.from, r.to} {
		if _, err := objectName("Project", name); err != nil {
			return nil, err
		}
	}
	found := false
	for i := range p.Target.Projects {
		if proj := &p.Target.Projects[i]; proj.Metadata.Name == r.to {
			ns, err := objectName("Namespace", proj.NamespaceName(p.Target.KRMConfig.NamePrefix()))
			if err != nil {
				return nil, err
			}
			r.ns, found = ns, true
		}
	}
	if !found {
		return nil, fmt.Errorf("project %q, which project %q is moved to, is not in the plan's target", r.to, r.from)
	}
	for i := range p.Snapshot.Tenancy.Projects {
		if old := &p.Snapshot.Tenancy.Projects[i]; old.Metadata.Name == r.from && old.Spec.Namespace == "" {
			r.override = p.Target.KRMConfig.OverrideKey()
		}
	}
	for _, k := range []string{r.key, r.override} {
		if errs := validation.IsQualifiedName(k); k != "" && len(errs) > 0 {
			return nil, fmt.Errorf("the label key %q is not a Kubernetes label key: %s", k, strings.Join(errs, "; "))
		}
	}
	return r, nil
}

// labelPath is the kubectl -o jsonpath= expression of a namespace's label
// key (a validated label key: letters, digits, '-', '_', '.' and one '/';
// its dots escaped, as kubectl's JSONPath reads a dot as a step).
func labelPath(key string) word {
	return quoted("jsonpath={.metadata.labels." + strings.ReplaceAll(key, ".", `\.`) + "}")
}

// writeRenamedDelete writes step n when it removes the old project of a
// `moved` block (false for another step), applied whole or not at all:
//
//  1. the delete's checks (krmplan_delete_checks: its tests and the
//     DELETE as server dry runs): refused, nothing is changed;
//  2. the relabel of the namespace the new project took over: KRM
//     refuses a spec.namespace labelled for another project
//     (NamespaceReady=False) and never moves the label itself, so the
//     script gives it to the new project — after its creation, before
//     the old one's removal, so the namespace is never labelled for a
//     project that is gone. A default namespace also gets the
//     manual-override label (see rename.override), in the same update;
//  3. the delete: refused, the namespace is given back to the old project
//     (krmplan_giveback, only while it names the new one), the override
//     label removed unless it was there before, then the step's report;
//  4. for a held namespace, the end of the hold (writeSettle).
func writeRenamedDelete(w *shell, kubectl []word, p *planner.Plan, n int, st planner.Step) (bool, error) {
	r, err := renameOf(p, st)
	if r == nil || err != nil {
		return false, err
	}
	cmd, name, _, err := stepCommand(kubectl, p.PlanID, st)
	if err != nil {
		return true, err
	}
	report, err := stepReport(st, name)
	if err != nil {
		return true, err
	}
	giveback, err := r.giveback(true)
	if err != nil {
		return true, err
	}
	total := len(p.Steps)
	announce(w, n, total, st)
	refusal := writeRefusal(w, n, total, st, report)
	w.comment(fmt.Sprintf("first the delete's checks (server dry runs, which change nothing), then the relabel: namespace %s carries over from project %s to project %s, and KRM never moves its label", r.ns, r.from, r.to))
	w.command(append([]word{"krmplan_delete_checks"}, cmd[1:]...)...)
	refusedThen(w, refusal, n)
	writeRelabel(w, kubectl, r, fmt.Sprintf("step %d/%d", n, total), n)
	w.comment(fmt.Sprintf("should the delete be refused now, namespace %s goes back to project %s before the report: the step is not applied", r.ns, r.from))
	w.command(cmd...)
	refusedThen(w, refusal, n, giveback...)
	writeSettle(w, r, n, total)
	return true, nil
}

// writeRefusal writes, for step n of a rename, the function that says
// kubectl refused its delete and reports each test that fails now
// (report): the delete is refused either in its checks, before the
// relabel, or itself, after it, and both say the same, so it is written
// once. It returns the function's name, krmplan_refused_N.
func writeRefusal(w *shell, n, total int, st planner.Step, report []word) word {
	name := fmt.Sprintf("krmplan_refused_%d", n)
	w.comment(fmt.Sprintf("what step %d/%d says when kubectl refuses the delete, in its checks or itself", n, total))
	w.code(name + "() {")
	w.depth++
	w.command("krmplan_say", shown(refused(n, total, st)))
	w.continued(report, 4, 3)
	w.depth--
	w.code("}")
	return word(name)
}

// refusedThen writes: should the command before have failed, the
// refusal's report (writeRefusal), then the command then (the namespace's
// giveback after the relabel), then stop at step n (krmplan_failed).
func refusedThen(w *shell, refusal word, n int, then ...word) {
	w.code("if [ $? -ne 0 ]; then")
	w.depth++
	w.command(refusal)
	if len(then) > 0 {
		w.command(then...)
	}
	w.command("krmplan_failed", word(strconv.Itoa(n)))
	w.depth--
	w.code("fi")
}

// writeRelabel writes the relabel of r's namespace for the new project,
// announced as what (the step), and krmplan_failed n should kubectl refuse
// it (one update: nothing is changed then).
func writeRelabel(w *shell, kubectl []word, r *rename, what string, n int) {
	label := r.key + "=" + r.to
	if r.override == "" {
		relabel(w, kubectl, r.ns, label, what, n)
		return
	}
	w.comment(fmt.Sprintf("%s is %s's default namespace: while %s exists, KRM takes it back for it at each reconcile (the relabel triggers one),", r.ns, r.from, r.from))
	w.comment(fmt.Sprintf("so the relabel also sets %s=true, which KRM leaves alone, until %s is gone", r.override, r.from))
	w.command("krmplan_say", shown(fmt.Sprintf("%s: namespace %s is relabelled %s, with %s=true until project %s is gone", what, r.ns, label, r.override, r.from)))
	w.command("krmplan_hold", r.ns, quoted(label), quoted(r.override), labelPath(r.override))
	failed(w, fmt.Sprintf("%s failed: kubectl refused to relabel namespace %s", what, r.ns), n)
}

// giveback is the krmplan_giveback call that labels r's namespace for the
// old project again while it names the new one: a JSON patch that tests
// the new name and replaces it with the old one and, when unhold is true
// and the namespace was held (rename.override), a second one that also
// removes the override label, which the script uses when krmplan_hold
// found it unset.
func (r *rename) giveback(unhold bool) ([]word, error) {
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	path := "/metadata/labels/" + esc.Replace(r.key)
	ops := []planner.Op{{Op: planner.OpTest, Path: path, Value: jsonString(r.to)}, {Op: "replace", Path: path, Value: jsonString(r.from)}}
	back, err := opsWord(ops)
	if err != nil {
		return nil, err
	}
	out := []word{"krmplan_giveback", r.ns, quoted(r.key), word(r.to), word(r.from), labelPath(r.key), back}
	if unhold && r.override != "" {
		both, err := opsWord(append(ops, planner.Op{Op: "remove", Path: "/metadata/labels/" + esc.Replace(r.override)}))
		if err != nil {
			return nil, err
		}
		out = append(out, both)
	}
	return out, nil
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// writeSettle writes, after step n when it removed the old project of a
// `moved` block whose namespace was held (rename.override), the end of the
// hold: the wait until the old project is gone (KRM's finalizer deletes
// its Queues first), the label given back to the new project should
// anything have written the old one's name there meanwhile, and the
// override label removed unless it was set before the relabel. Should
// that fail, the script stops at step n, whose delete was applied.
func writeSettle(w *shell, r *rename, n, total int) {
	if r.override == "" {
		return
	}
	w.command("krmplan_settle", r.ns, quoted(r.key), word(r.to), word(r.from), labelPath(r.key), quoted(r.override))
	w.code("if [ $? -ne 0 ]; then")
	w.depth++
	w.command("krmplan_say", shown(fmt.Sprintf("step %d/%d: project %s is deleted, but namespace %s is not settled (above); the steps after it are not applied", n, total, r.from, r.ns)))
	w.command("krmplan_exit", word(strconv.Itoa(n)))
	w.depth--
	w.code("fi")
}

// relabel writes the kubectl label of namespace ns with label (key=value),
// announced as what, and krmplan_failed n should kubectl refuse it.
func relabel(w *shell, kubectl []word, ns word, label, what string, n int) {
	w.command("krmplan_say", shown(fmt.Sprintf("%s: namespace %s is relabelled %s", what, ns, label)))
	w.command(append(kubectl, "label", "namespace", ns, quoted(label), "--overwrite")...)
	failed(w, fmt.Sprintf("%s failed: kubectl refused to relabel namespace %s", what, ns), n)
}

// failed writes: should the command before have failed, say so and stop
// at step n (krmplan_failed).
func failed(w *shell, say string, n int) {
	w.code("if [ $? -ne 0 ]; then")
	w.depth++
	w.command("krmplan_say", shown(say))
	w.command("krmplan_failed", word(strconv.Itoa(n)))
	w.depth--
	w.code("fi")
}

// commandsOfRename is, for a view of the plan (Commands), the commands
// around the delete of a renamed project: the relabel before it (before
// is true), the end of the hold after it.
func commandsOfRename(w *shell, kubectl []word, r *rename, before bool) {
	label := quoted(r.key + "=" + r.to)
	switch {
	case before && r.override == "":
		w.command(append(kubectl, "label", "namespace", r.ns, label, "--overwrite")...)
	case before:
		w.command(append(kubectl, "label", "namespace", r.ns, label, quoted(r.override+"=true"), "--overwrite")...)
	case r.override != "":
		w.command(append(kubectl, "wait", "--for=delete", word("projects.kai.resources/"+r.from), "--timeout=300s")...)
		w.comment(fmt.Sprintf("then, should %s=%s be back meanwhile, %s=%s again; and the override label removed unless it was set before:", r.key, r.from, r.key, r.to))
		w.command(append(kubectl, "label", "namespace", r.ns, quoted(r.override+"-"))...)
	}
}

// movedLibrary is the patch script's part for a `moved` block whose
// namespace is the old project's default one:
//
//   - krmplan_hold NS LABEL OVERRIDE OVERRIDE_PATH: remembers the override
//     label's value (krmplan_held, "" when absent), then sets LABEL and
//     OVERRIDE=true on namespace NS in one update;
//   - krmplan_settle NS KEY NEW OLD KEY_PATH OVERRIDE: after the delete of
//     project OLD, waits until it is gone (up to 300 s: KRM's finalizer
//     deletes its Queues first), gives KEY back to NEW if it reads OLD (an
//     older KRM, or a reconcile that started before the hold), and removes
//     OVERRIDE unless krmplan_hold found it set. It fails, leaving the
//     override, when OLD is not gone in time or KEY names a third project.
const movedLibrary = `krmplan_hold() {
	krmplan_held=$(krmplan_kubectl get namespace "$1" -o "$4") || return 1
	krmplan_kubectl label namespace "$1" "$2" "$3=true" --overwrite
}

krmplan_settle() {
	if ! krmplan_kubectl wait --for=delete "projects.kai.resources/$4" --timeout=300s >/dev/null; then
		krmplan_say "  project $4 is not gone after 300 s (KRM's finalizer has not finished): namespace $1 keeps $6=true, so that KRM does not take it back for $4; once kubectl get projects.kai.resources $4 says NotFound, check that $1 is labelled $2=$3 and run: kubectl label namespace $1 $6-"
		return 1
	fi
	krmplan_now=$(krmplan_kubectl get namespace "$1" -o "$5") || return 1
	if [ "$krmplan_now" = "$4" ]; then
		krmplan_say "  namespace $1 was labelled $2=$4 again before project $4 was gone: it is relabelled $2=$3"
		krmplan_kubectl label namespace "$1" "$2=$3" --overwrite || return 1
	elif [ "$krmplan_now" != "$3" ]; then
		krmplan_say "  namespace $1 is labelled $2=$krmplan_now, neither $3 nor $4: someone else relabelled it; it is left so, with $6=true"
		return 1
	fi
	if [ -z "$krmplan_held" ]; then
		krmplan_kubectl label namespace "$1" "$6-" || return 1
	fi
}
`

// renameLibrary is the scripts' part for a `moved` block:
// krmplan_giveback NS KEY NEW OLD KEY_PATH PATCH [UNHOLD_PATCH] labels
// namespace NS KEY=OLD again when it reads NEW, with PATCH (a JSON patch
// that tests NEW first), or UNHOLD_PATCH when given and krmplan_hold
// found the override label unset; it leaves a namespace that reads OLD
// (nothing to do) or a third name (someone else's, said) as it is, and
// fails only when kubectl cannot read or patch it.
const renameLibrary = `krmplan_giveback() {
	krmplan_now=$(krmplan_kubectl get namespace "$1" -o "$5") || {
		krmplan_say "  kubectl cannot read namespace $1: check that it is labelled $2=$4 (kubectl label namespace $1 $2=$4 --overwrite)"
		return 1
	}
	if [ "$krmplan_now" = "$4" ]; then
		return 0
	elif [ "$krmplan_now" != "$3" ]; then
		krmplan_say "  namespace $1 is labelled $2=$(printf '%s' "$krmplan_now" | LC_ALL=C tr -c '[:print:]' '?'), neither $3 nor $4: someone else relabelled it; it is left so"
		return 0
	fi
	krmplan_back=$6
	if [ $# -ge 7 ] && [ -z "${krmplan_held-}" ]; then
		krmplan_back=$7
	fi
	if ! krmplan_kubectl patch namespace "$1" --type=json -p "$krmplan_back" >/dev/null; then
		krmplan_say "  kubectl refused to give namespace $1 back to project $4: it is still labelled $2=$3; label it: kubectl label namespace $1 $2=$4 --overwrite"
		return 1
	fi
	krmplan_say "  namespace $1 is labelled $2=$4 again, as before the step"
}
`

// renameLibraries is the scripts' parts for p's `moved` blocks:
// renameLibrary when there is one, movedLibrary too when one holds a
// namespace; each after a newline.
func renameLibraries(p *planner.Plan) string {
	var own string
	renames := func(held bool) bool {
		return slices.ContainsFunc(p.Steps, func(st planner.Step) bool {
			r, _ := renameOf(p, st)
			return r != nil && (!held || r.override != "")
		})
	}
	if renames(false) {
		own += "\n" + renameLibrary
	}
	if renames(true) {
		own += "\n" + movedLibrary
	}
	return own
}
