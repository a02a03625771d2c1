package snapshot

import (
	"fmt"

	"github.com/krmplan/krmplan/quota"
	"k8s.io/apimachinery/pkg/api/resource"
)

// StatusResourceName is the name KAI's scheduler gives each quota resource
// in Queue.status.allocated and allocatedNonPreemptible.
var StatusResourceName = map[quota.Resource]string{
	quota.GPU:    "nvidia.com/gpu",
	quota.CPU:    "cpu",
	quota.Memory: "memory",
}

// QuotaFromQuantity converts a Kubernetes quantity of resource r, as the
// scheduler writes it in a Queue's status (GPUs, cores, bytes: "2",
// "1500m", "3Gi"), into the unit of a KRM queue's spec (cards, millicores,
// MB = 10^6 bytes), exactly: 1500m cpu is 1500 millicores, 3Gi of memory is
// 3221.225472 MB. The quantity is parsed by apimachinery's ParseQuantity.
func QuotaFromQuantity(r quota.Resource, text string) (quota.Value, error) {
	q, err := resource.ParseQuantity(text)
	if err != nil {
		return quota.Value{}, fmt.Errorf("%s %q: %w", StatusResourceName[r], text, err)
	}
	shift := map[quota.Resource]int{quota.GPU: 0, quota.CPU: 3, quota.Memory: -6}[r]
	// AsDec is exact: unscaled × 10^-scale.
	d := q.AsDec()
	v, err := quota.Parse(fmt.Sprintf("%se%d", d.UnscaledBig().String(), shift-int(d.Scale())))
	if err != nil {
		return quota.Value{}, fmt.Errorf("%s %q: %w", StatusResourceName[r], text, err)
	}
	return v, nil
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
