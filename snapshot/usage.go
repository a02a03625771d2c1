package snapshot

import (
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot/krmunits"
)

// StatusResourceName is the name KAI's scheduler gives each quota resource
// in Queue.status.allocated and allocatedNonPreemptible
// (krmunits.StatusResourceName).
var StatusResourceName = krmunits.StatusResourceName

// QuotaFromQuantity converts a Kubernetes quantity of resource r, as the
// scheduler writes it in a Queue's status, into the unit of a KRM queue's
// spec, exactly (krmunits.FromQuantity).
func QuotaFromQuantity(r quota.Resource, text string) (quota.Value, error) {
	return krmunits.FromQuantity(r, text)
}

// Usage returns the queue's usage of r in spec units: status.allocated, or
// status.allocatedNonPreemptible when nonPreemptible is set. present is
// false when the scheduler wrote no entry for r (nothing in use).
func (q *LiveQueue) Usage(r quota.Resource, nonPreemptible bool) (v quota.Value, present bool, err error) {
	m := q.Allocated
	if nonPreemptible {
		m = q.AllocatedNonPreemptible
	}
	text, ok := m[StatusResourceName[r]]
	if !ok {
		return quota.Zero, false, nil
	}
	v, err = QuotaFromQuantity(r, text)
	return v, err == nil, err
}
