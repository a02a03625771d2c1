package config

// The "did you mean" of desired.hcl's names: a block for an object or a
// queue the snapshot lacks is a new one, which must then give every
// required field; when it does not, the name was more likely mistyped, and
// the error says which name of the snapshot is nearest. A queue label that
// is a queue's name (the plan prints queue names) is the other common slip:
// the label is the node pool.

import (
	"fmt"
	"slices"

	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/tenancy"
)

// notInSnapshot is `project "pretrainig" is not in the snapshot — did you
// mean "pretraining"?`, the suggestion from the snapshot's objects of the
// kind, or without it when no name is near.
func (d *differ) notInSnapshot(k tenancy.Kind, name string) (msg string, suggested bool) {
	msg = fmt.Sprintf("%s %q is not in the snapshot", k.Info().Word, name)
	if dym := nearname.DidYouMean(name, d.x.Names(k)); dym != "" {
		return msg + " — " + dym, true
	}
	return msg, false
}

// queueLabelHint says what a queue label that names no queue of its object
// may have meant: a queue's name ("queue "pretraining-h200": the label is
// the node pool: did you mean queue "h200"?"), or a node pool's nearest
// name when the label is no node pool (the object's own pools first).
// "" when neither fits. existing are the object's queues in the snapshot.
func (d *differ) queueLabelHint(label string, existing []tenancy.Queue) string {
	if q := slices.IndexFunc(existing, func(q tenancy.Queue) bool { return q.Name == label }); q >= 0 {
		return fmt.Sprintf("queue %q: the label is the node pool: did you mean queue %q?", label, existing[q].NodePool)
	}
	if owner, pool, ok := d.queueNamed(label); ok {
		return fmt.Sprintf("queue %q: the label is the node pool: %q is the queue of %s on node pool %q", label, label, owner, pool)
	}
	pools := d.pools()
	if slices.Contains(pools, label) {
		return ""
	}
	var candidates []string
	for _, q := range existing {
		candidates = append(candidates, q.NodePool)
	}
	if dym := nearname.DidYouMean(label, append(candidates, pools...)); dym != "" {
		return fmt.Sprintf("node pool %q does not exist — %s", label, dym)
	}
	return fmt.Sprintf("node pool %q does not exist", label)
}

// queueNamed finds the snapshot's queue of that name: its object ("project
// pretraining") and node pool.
func (d *differ) queueNamed(name string) (owner, pool string, ok bool) {
	t := d.x.Tenancy()
	for i := range t.Departments {
		for _, q := range t.Departments[i].Spec.Queues {
			if q.KAIName(t.Departments[i].Metadata.Name) == name {
				return "department " + t.Departments[i].Metadata.Name, q.NodePool, true
			}
		}
	}
	for i := range t.Projects {
		for _, q := range t.Projects[i].Spec.Queues {
			if q.KAIName(t.Projects[i].Metadata.Name) == name {
				return "project " + t.Projects[i].Metadata.Name, q.NodePool, true
			}
		}
	}
	return "", "", false
}

// pools lists the node pools a queue may be on: the snapshot's, "default"
// (KRM always has it), and those desired.hcl creates.
func (d *differ) pools() []string {
	out := d.x.Names(tenancy.KindNodePool)
	if !slices.Contains(out, "default") {
		out = append(out, "default")
	}
	for _, np := range d.o.NodePools {
		if !slices.Contains(out, np.Name) {
			out = append(out, np.Name)
		}
	}
	return out
}
