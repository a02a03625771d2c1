package script

import (
	"fmt"
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

// writeRelabel writes, before step n when it removes the old project of a
// `moved` block, the relabel of the namespace the new project took over:
// KRM refuses a spec.namespace labelled for another project
// (NamespaceReady=False) and never moves the label itself, so the script
// gives it to the new project — after its creation, before the old one's
// removal, so the namespace is never labelled for a project that is gone.
// When the namespace is the old project's default one, the relabel also
// sets the manual-override label (see rename.override), in the same
// update. The relabel is part of step n: should kubectl refuse it, step n
// is not applied.
func writeRelabel(w *shell, kubectl []word, p *planner.Plan, n int, st planner.Step) error {
	r, err := renameOf(p, st)
	if r == nil || err != nil {
		return err
	}
	label := r.key + "=" + r.to
	what := fmt.Sprintf("step %d/%d", n, len(p.Steps))
	w.comment(fmt.Sprintf("%s begins with the relabel: namespace %s carries over from project %s to project %s, and KRM never moves its label", what, r.ns, r.from, r.to))
	if r.override == "" {
		relabel(w, kubectl, r.ns, label, what, n)
		return nil
	}
	w.comment(fmt.Sprintf("%s is %s's default namespace: while %s exists, KRM takes it back for it at each reconcile (the relabel triggers one),", r.ns, r.from, r.from))
	w.comment(fmt.Sprintf("so the relabel also sets %s=true, which KRM leaves alone, until %s is gone", r.override, r.from))
	w.command("krmplan_say", shown(fmt.Sprintf("%s: namespace %s is relabelled %s, with %s=true until project %s is gone", what, r.ns, label, r.override, r.from)))
	w.command("krmplan_hold", r.ns, quoted(label), quoted(r.override), labelPath(r.override))
	failed(w, fmt.Sprintf("%s failed: kubectl refused to relabel namespace %s", what, r.ns), n)
	return nil
}

// writeSettle writes, after step n when it removed the old project of a
// `moved` block whose namespace was held (rename.override), the end of the
// hold: the wait until the old project is gone (KRM's finalizer deletes
// its Queues first), the label given back to the new project should
// anything have written the old one's name there meanwhile, and the
// override label removed unless it was set before the relabel. Should
// that fail, the script stops at step n, whose delete was applied.
func writeSettle(w *shell, p *planner.Plan, n int, st planner.Step) error {
	r, err := renameOf(p, st)
	if r == nil || r.override == "" || err != nil {
		return err
	}
	w.command("krmplan_settle", r.ns, quoted(r.key), word(r.to), word(r.from), labelPath(r.key), quoted(r.override))
	w.code("if [ $? -ne 0 ]; then")
	w.depth++
	w.command("krmplan_say", shown(fmt.Sprintf("step %d/%d: project %s is deleted, but namespace %s is not settled (above); the steps after it are not applied", n, len(p.Steps), r.from, r.ns)))
	w.command("krmplan_exit", word(strconv.Itoa(n)))
	w.depth--
	w.code("fi")
	return nil
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
