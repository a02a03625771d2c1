// Package live is the scheduler's live Queues of one snapshot as the
// planner's checks read them: by KAI Queue name, each usage quantity
// (status.allocated, status.allocatedNonPreemptible) parsed once. A plan
// checks its snapshot and its target against the same Queues, so they
// share one Queues rather than each parsing every quantity again.
package live

import (
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
)

// Queues is a snapshot's live Queues by name. It is read-only once made:
// two checks may read one at the same time.
type Queues struct {
	byName map[string]*Queue
}

// Queue is one live Queue with its usage read.
type Queue struct {
	*snapshot.LiveQueue
	// usage is Usage's answer per resource (quota.Resources' order), for
	// status.allocated then status.allocatedNonPreemptible.
	usage [nResources][2]usage
}

// nResources is len(quota.Resources).
const nResources = 3

type usage struct {
	v       quota.Value
	present bool
	err     error
}

// Read indexes the live Queues lqs (a snapshot's LiveQueues, which it
// points into) and reads their usage. Of two Queues of one name, the
// later is kept.
func Read(lqs []snapshot.LiveQueue) *Queues {
	qs := &Queues{byName: make(map[string]*Queue, len(lqs))}
	all := make([]Queue, len(lqs)) // one allocation for every Queue
	for i := range lqs {
		lq := &lqs[i]
		q := &all[i]
		q.LiveQueue = lq
		for ri, r := range quota.Resources {
			for np := range 2 {
				u := &q.usage[ri][np]
				u.v, u.present, u.err = lq.Usage(r, np == 1)
			}
		}
		qs.byName[lq.Name] = q
	}
	return qs
}

// Get is the Queue named name, or nil.
func (qs *Queues) Get(name string) *Queue { return qs.byName[name] }

// Usage is snapshot.LiveQueue.Usage, as read: the queue's usage of r
// (its non-preemptible usage when nonPreemptible), whether the status
// holds it, and the error of a quantity that does not parse.
func (q *Queue) Usage(r quota.Resource, nonPreemptible bool) (quota.Value, bool, error) {
	np := 0
	if nonPreemptible {
		np = 1
	}
	for ri, rr := range quota.Resources {
		if rr == r {
			u := q.usage[ri][np]
			return u.v, u.present, u.err
		}
	}
	return q.LiveQueue.Usage(r, nonPreemptible)
}
