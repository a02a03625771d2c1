package fairshare

import (
	"time"

	"github.com/krmplan/krmplan/quota"
)

// PerResource holds one T per quota resource.
type PerResource[T any] struct {
	GPU, CPU, Memory T
}

// At returns r's entry; r must be quota.GPU, quota.CPU or quota.Memory.
func (p *PerResource[T]) At(r quota.Resource) *T {
	switch r {
	case quota.GPU:
		return &p.GPU
	case quota.CPU:
		return &p.CPU
	case quota.Memory:
		return &p.Memory
	}
	panic("fairshare: unknown resource " + string(r))
}

// at is At by index in quota.Resources order (gpu, cpu, memory).
func (p *PerResource[T]) at(r int) *T {
	switch r {
	case 0:
		return &p.GPU
	case 1:
		return &p.CPU
	}
	return &p.Memory
}

// Pool is one node pool as KAI's scheduler divides it: its capacity and all
// of its queues (KAI runs one division per SchedulingShard, and KRM makes one
// shard per node pool).
type Pool struct {
	// Capacity is what the top level divides: gpu in cards, cpu in
	// millicores, memory in MB. nil is unknown: that resource is not
	// divided and every queue's share of it is unknown.
	Capacity PerResource[*quota.Value]
	// Queues are the pool's queues in any order. A queue whose Parent is
	// "" is at the top level (a department's queue, or a root project's);
	// the others divide their parent's fair share. The order is the one
	// the division visits siblings in where KAI's own order (a Go map's)
	// could matter; see the package documentation.
	Queues []Queue
	// KValue is the proportion plugin's kValue (SchedulingShard
	// spec.kValue). nil is 1, KAI's default (proportion.New); a value of
	// 0 or less reads as 0, as proportion.New makes it. It changes nothing
	// while every Usage is 0.
	KValue *float64
}

// Queue is one KAI Queue with the demand the preview assumes for it.
type Queue struct {
	// Name is the Queue CR's metadata.name (KAI's queue UID, the leftover
	// step's last tie-break), not its display name.
	Name string
	// Parent is the parent queue's Name, "" for a top-level queue.
	Parent string
	// Priority is spec.priority; nil is KAI's default, 100
	// (DefaultQueuePriority). Higher priorities are served first.
	Priority *int
	// Created is the Queue's creationTimestamp, the leftover step's second
	// tie-break; the zero Time is unknown (such a queue sorts after every
	// queue whose age is known, and ties among them fall to the name).
	Created time.Time
	// Quota is spec.resources.{gpu,cpu,memory} as KRM writes it from the
	// queue entry: gpu in cards, cpu in millicores, memory in MB. The zero
	// Value is what KAI reads for an omitted field (limit 0 is a ceiling
	// of 0, overQuotaWeight 0 never borrows); -1 is unlimited for Deserved
	// and Limit.
	Quota PerResource[Quota]
	// Demand is what the queue's own workloads request. KAI adds a queue's
	// request to every ancestor, so a parent's demand is its own Demand
	// plus its children's (their limits are not applied on the way up).
	Demand PerResource[Demand]
	// Usage is KAI's historical usage of the queue, normalised to the
	// cluster's capacity (the time-based fair-share term); 0 without a
	// usage database, which is KAI's default.
	Usage PerResource[float64]
}

// Quota is one resource of a queue's spec.resources.
type Quota struct {
	Deserved, Limit, OverQuotaWeight quota.Value
}

// Demand is what a queue requests of one resource: without bound, or an
// amount in KRM units (cards, millicores, MB); the zero Demand is idle.
type Demand struct {
	Unbounded bool
	Amount    quota.Value
}

// Full is the demand of a saturated queue: it takes all it is given.
var Full = Demand{Unbounded: true}

// DefaultPriority is KAI's priority for a queue without spec.priority.
const DefaultPriority = 100

// Result is the division of one pool.
type Result struct {
	// Queues has one entry per Pool.Queues entry, in the same order.
	Queues []QueueShare
}

// QueueShare is one queue's fair share.
type QueueShare struct {
	Name string
	// Dropped says why KAI takes no account of the queue, "" when it
	// divides it: a queue whose parent is not in the pool is deleted from
	// the session with its descendants (cluster_info cleanQueueOrphans),
	// and a queue in a parent cycle is never reached from the top level.
	// A dropped queue's shares are 0.
	Dropped string
	Share   PerResource[Share]
}

// Share is a queue's fair share of one resource. Its values are KAI's own
// float64 results, written as exact decimals in KRM units.
type Share struct {
	// fair and guaranteed are KAI's float64 values in its internal unit:
	// cards, millicores, bytes.
	fair, guaranteed float64
	// Float describes where float64 arithmetic makes the result uncertain.
	Float Float
	res   int8
	// Known is false when the pool's capacity of the resource is unknown;
	// the values are then 0 and mean nothing.
	Known bool
	// AgeTie is set when the share could differ by one unit because the
	// leftover step broke a tie between queues by name where their
	// creation times are unknown (or because the parent's share could).
	AgeTie bool
}

// Float says where KAI's float64 arithmetic and exact decimal arithmetic
// part ways for a share. The zero Float is "no difference".
type Float struct {
	// Exact is what exact decimal arithmetic (the same rules, no rounding
	// except the rules' own floors) gives, when it differs from KAI's
	// float64 result; nil when they agree.
	Exact *quota.Value
	// OrderDependent is set when KAI's float64 result itself depends on
	// the order its Go maps happen to be visited in, which Go randomises:
	// the share shown is one of KAI's possible results.
	OrderDependent bool
	// Rounded is set when KAI's value has more digits after the point than
	// a quota number holds (MaxDecimals) and is shown rounded.
	Rounded bool
}

// Uncertain reports whether f marks anything.
func (f Float) Uncertain() bool { return f.Exact != nil || f.OrderDependent || f.Rounded }

// shifts is the power of ten from KAI's internal unit to KRM's, per
// resource index: cards, millicores, bytes → MB.
var shifts = [3]int32{0, 0, -6}

// krm converts a KAI float64 of resource r into KRM units. Divide has
// checked that every share is within a quota number's range.
func krm(r int8, f float64) (quota.Value, bool) {
	v, rounded, err := quota.FromFloat64(f, shifts[r])
	if err != nil {
		return quota.Zero, false
	}
	return v, rounded
}

// FairShare is the queue's fair share in KRM units (cards, millicores, MB).
func (s Share) FairShare() quota.Value { v, _ := krm(s.res, s.fair); return v }

// Guaranteed is what the deserved phase gave the queue:
// min(deserved, limit, demand), never scaled down.
func (s Share) Guaranteed() quota.Value { v, _ := krm(s.res, s.guaranteed); return v }

// OverQuota is what the queue got beyond Guaranteed: its over-quota rounds
// and any leftover unit (FairShare − Guaranteed, exactly, as plain
// numbers: a negative deserved can make either -1, which is no limit
// here).
func (s Share) OverQuota() quota.Value {
	return s.FairShare().Minus(s.Guaranteed())
}

// KAI returns the fair share as KAI's scheduler holds it: a float64 in its
// internal unit (cards, millicores, bytes). Two divisions give a queue the
// same share exactly when these are equal.
func (s Share) KAI() float64 { return s.fair }
