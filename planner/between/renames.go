package between

import (
	"fmt"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// renames finds the projects a pull request renames: a project only the
// base has and one only the head has whose queues match by KAI Queue name
// (docs/krm-domain.md, "Renaming a project"). KRM has no rename: the
// project's Queues are found by labels naming the project, so a new
// project makes new Queues, and its namespace is refused while it is
// labelled for the old one. What it returns for each pair:
//
//   - Both projects' queues have derived names (name: "", so the Queue
//     names follow the owner: nlp-h100 becomes language-h100) on the same
//     node pools, and the new one names the old one's namespace: a rename
//     a moved block plans. When the new project keeps the old one's spec
//     (parent, defaultNodePools, each queue's priority and numbers), the
//     old project's destroy is marked MovedTo and the plan is the moved
//     block's (created first, namespace relabelled, removed last, the
//     moved-project warning); otherwise an error: rename in one pull
//     request, change the values in the next, as a moved block requires.
//   - The same queues, but another namespace: a removal and a creation,
//     as planned, with a warning that the namespace and its workloads do
//     not carry over.
//   - A queue name of the new project is one of the old project's (an
//     explicit name kept, or written out): an error, since while the old
//     Queue exists KRM gives the new one a random suffix, for good.
//
// (A queue entry whose name the head changes within one object gets the
// warning queue-name-kept from the planner's removal checks, as in a
// desired.hcl plan.)
func renames(changes []tenancy.Change, bx, hx *tenancy.Index, krm *tenancy.KRMConfig) []planner.Finding {
	var gone []int // the indices of the projects' destroys
	var added []tenancy.ObjectAddr
	var out []planner.Finding
	for i := range changes {
		c := &changes[i]
		switch {
		case c.Object().Kind != tenancy.KindProject:
		case c.Destroys():
			gone = append(gone, i)
		case c.Creates() && !slices.Contains(added, c.Object()):
			added = append(added, c.Object())
		}
	}
	paired := map[tenancy.ObjectAddr]bool{}
	for _, gi := range gone {
		old := bx.Project(changes[gi].Object().Name)
		for _, a := range added {
			if paired[a] {
				continue
			}
			f, moved, ok := rename(old, hx.Project(a.Name), krm)
			if !ok {
				continue
			}
			paired[a] = true
			if moved {
				changes[gi].MovedTo = a.Name
			} else {
				out = append(out, f)
			}
			break
		}
	}
	return out
}

// rename is what the removal of project old and the creation of project
// nu make, when their queues match (ok): planned as a moved block's rename
// (moved), or the finding that says why not.
func rename(old, nu *tenancy.Project, krm *tenancy.KRMConfig) (f planner.Finding, moved, ok bool) {
	o, n := old.Metadata.Name, nu.Metadata.Name
	if q, pool := sharedQueueName(old, nu); q != "" {
		return planner.Finding{Code: planner.CodeRenameQueueNameTaken, Level: planner.LevelError, Object: tenancy.KindProject.Object(n), Queue: q, Pool: pool,
			Message: fmt.Sprintf("project %s is removed and project %s is added with its queue name %s: KRM cannot rename a project, and while %s's Queue %s exists (KRM deletes it after the project) KRM names %s's queue %s plus \"-\" and 4 random characters, for good (a project's Queue is found by its labels, then by name only when no other object owns one); rename it in two pull requests: remove %s, and once its Queues are gone add %s with the queue names, or give %s's queues derived names (name: \"\") and spec.namespace: %s to plan it as a rename",
				o, n, q, o, q, n, q, o, n, n, old.NamespaceName(krm.NamePrefix()))}, false, true
	}
	if !sameDerivedQueues(old.Spec.Queues, nu.Spec.Queues) {
		return f, false, false
	}
	prefix := krm.NamePrefix()
	ons, nns := old.NamespaceName(prefix), nu.NamespaceName(prefix)
	names := fmt.Sprintf("%s to %s", strings.Join(queueNames(old), ", "), strings.Join(queueNames(nu), ", "))
	at := tenancy.KindProject.Object(n)
	diff := specDiff(old, nu)
	if ons == nns && nu.Spec.Namespace == "" && diff == "" {
		// The old project named the new one's default namespace: a moved
		// block writes it in spec.namespace, which the head leaves out.
		diff = "its spec.namespace (left out; write " + ons + ")"
	}
	switch {
	case ons == nns && diff == "":
		return f, true, true
	case ons == nns:
		return planner.Finding{Code: planner.CodeRenameChanged, Level: planner.LevelError, Object: at,
			Message: fmt.Sprintf("project %s renames project %s (the same queues, %s, and its namespace %s), but changes %s: KRM cannot rename a project, and krmplan plans a rename (created, the namespace relabelled, the old one removed) only of the project as it is; rename it in one pull request and change it in the next",
				n, o, names, ons, diff)}, false, true
	}
	if diff != "" {
		return f, false, false // other values, another namespace: another project
	}
	return planner.Finding{Code: planner.CodeRenameNamespaceNotCarried, Level: planner.LevelWarning, Object: at,
		Message: fmt.Sprintf("project %s has project %s's queues (%s) but not its namespace: KRM cannot rename a project, so this plan removes %s and creates %s with namespace %s, and %s stays with its workloads, labelled %s=%s; to rename %s with its namespace, set spec.namespace: %s on %s (the plan is then a rename: the namespace relabelled between the create and the remove)",
			n, o, names, o, n, nns, ons, krm.LabelKey(), o, o, ons, n)}, false, true
}

// sharedQueueName is the first KAI Queue name (and its node pool) of nu's
// queues that old's queues have too, "" when none.
func sharedQueueName(old, nu *tenancy.Project) (name, pool string) {
	olds := queueNames(old)
	for _, q := range nu.Spec.Queues {
		if k := q.KAIName(nu.Metadata.Name); slices.Contains(olds, k) {
			return k, q.NodePool
		}
	}
	return "", ""
}

// queueNames are p's KAI Queue names, in its order.
func queueNames(p *tenancy.Project) []string {
	out := make([]string, len(p.Spec.Queues))
	for i := range p.Spec.Queues {
		out[i] = p.Spec.Queues[i].KAIName(p.Metadata.Name)
	}
	return out
}

// sameDerivedQueues reports whether a and b have queues on the same node
// pools, every one with a derived name.
func sameDerivedQueues(a, b []tenancy.Queue) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	for _, q := range a {
		i := queueIndex(b, q.NodePool)
		if q.Name != "" || i < 0 || b[i].Name != "" {
			return false
		}
	}
	return true
}

// specDiff names what nu sets otherwise than old (the queues matched by
// node pool), "" when nothing: its parent, defaultNodePools, a queue's
// priority or a quota field (an omitted one differs from a written one,
// as a moved block keeps it omitted).
func specDiff(old, nu *tenancy.Project) string {
	var out []string
	if old.Spec.Parent != nu.Spec.Parent {
		out = append(out, fmt.Sprintf("its parent (%q to %q)", old.Spec.Parent, nu.Spec.Parent))
	}
	if !slices.Equal(old.Spec.DefaultNodePools, nu.Spec.DefaultNodePools) {
		out = append(out, "its defaultNodePools")
	}
	for _, q := range old.Spec.Queues {
		h := &nu.Spec.Queues[queueIndex(nu.Spec.Queues, q.NodePool)]
		same := (q.Priority == nil) == (h.Priority == nil) && (q.Priority == nil || *q.Priority == *h.Priority)
		for _, r := range quota.Resources {
			for _, f := range tenancy.QuotaFields {
				a, b := q.Resources.Get(r).Get(f), h.Resources.Get(r).Get(f)
				same = same && (a == nil) == (b == nil) && (a == nil || a.Cmp(*b) == 0)
			}
		}
		if !same {
			out = append(out, "its queue on node pool "+q.NodePool)
		}
	}
	return strings.Join(out, ", ")
}
