package planner

import (
	"github.com/krmplan/krmplan/planner/capacity"
	"github.com/krmplan/krmplan/snapshot"
)

// PoolCapacity is one node pool's capacity as KAI counts it (package
// capacity).
type PoolCapacity = capacity.PoolCapacity

// PoolCapacities is capacity.PoolCapacities: every node pool's capacity
// by name, nil when the nodes were not read.
func PoolCapacities(s *snapshot.State) map[string]*PoolCapacity { return capacity.PoolCapacities(s) }

// PoolCapacitiesOf is capacity.PoolCapacitiesOf: PoolCapacities with only
// the pools in only counted (nil counts every pool).
func PoolCapacitiesOf(s *snapshot.State, only map[string]bool) map[string]*PoolCapacity {
	return capacity.PoolCapacitiesOf(s, only)
}
