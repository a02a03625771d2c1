// Package krmunits converts the Kubernetes quantities KAI's scheduler
// writes in a Queue's status (GPUs, cores, bytes) into the units of a KRM
// queue's spec (cards, millicores, MB), exactly.
package krmunits

import (
	"fmt"
	"math/big"

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

// FromQuantity converts a Kubernetes quantity of resource r, as the
// scheduler writes it in a Queue's status (GPUs, cores, bytes: "2",
// "1500m", "3Gi"), into the unit of a KRM queue's spec (cards, millicores,
// MB = 10^6 bytes), exactly: 1500m cpu is 1500 millicores, 3Gi of memory is
// 3221.225472 MB. The quantity is parsed by apimachinery's ParseQuantity.
func FromQuantity(r quota.Resource, text string) (quota.Value, error) {
	q, err := resource.ParseQuantity(text)
	if err != nil {
		return quota.Value{}, fmt.Errorf("%s %q: %w", StatusResourceName[r], text, err)
	}
	shift := unitShift(r)
	// AsDec is exact: unscaled × 10^-scale.
	d := q.AsDec()
	exp := int64(shift) - int64(d.Scale())
	// An unscaled value that fits in an int64 (any usage a cluster reports)
	// is converted without the text round trip below, with the same result.
	if u := d.UnscaledBig(); u.IsInt64() && exp == int64(int32(exp)) {
		if v, ok := quota.FromScaled(u.Int64(), int32(exp)); ok {
			return v, nil
		}
	}
	return scaledByText(r, text, d.UnscaledBig(), exp)
}

// scaledByText is unscaled × 10^exp read by quota.Parse from its text: the
// general path of FromQuantity, for any size, and the one that makes
// its range errors. text is the quantity, for the error.
func scaledByText(r quota.Resource, text string, unscaled *big.Int, exp int64) (quota.Value, error) {
	v, err := quota.Parse(fmt.Sprintf("%se%d", unscaled.String(), exp))
	if err != nil {
		return quota.Value{}, fmt.Errorf("%s %q: %w", StatusResourceName[r], text, err)
	}
	return v, nil
}

// unitShift is the power of ten from a status quantity's unit to the
// spec's: cards are GPUs, millicores are 10^-3 cores, MB are 10^6 bytes.
func unitShift(r quota.Resource) int {
	switch r {
	case quota.CPU:
		return 3
	case quota.Memory:
		return -6
	}
	return 0
}
