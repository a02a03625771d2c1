// Package fairshare computes the fair share KAI Scheduler gives every queue
// of a node pool, exactly as its proportion plugin does, and says where
// that number is uncertain and why.
//
// It is pure: Divide takes a Pool (its capacity and queue tree, each
// queue's quota, priority, demand and age) and returns every queue's share
// of gpu (cards), cpu (millicores) and memory (MB); Explain traces one
// queue's share step by step; Capacity counts a pool's capacity from its
// nodes. Nothing here reads a file or a cluster.
//
// # The rules, from KAI's code
//
// Paths are in github.com/kai-scheduler/KAI-Scheduler at commit d5bc503a
// (the division code is the same from v0.16.8), under
// pkg/scheduler/plugins/proportion unless said otherwise;
// ../shared/notes/fair-share.md has the measurements.
//
//   - One division per pool and per resource, recomputed every scheduling
//     cycle (proportion.go setFairShare; resource_division
//     SetResourcesShare loops CPU, memory, GPU independently).
//   - Inputs as KAI reads them (createQueueResourceAttrs): gpu and cpu
//     values as written, memory as max(-1, MB × 10^6) bytes, so a memory
//     value of -0.000001 MB or less is -1, unlimited; omitted values are 0
//     (a limit of 0 is a ceiling); priority nil is 100
//     (queue_info.NewQueueInfo).
//   - A queue's request is added to every ancestor
//     (updateQueuesResourceUsageForPendingJob): a parent's demand is the
//     sum of its children's, their limits not applied; requestable is the
//     request capped by the limit unless the limit is -1
//     (ResourceShare.GetRequestableShare).
//   - The top level (queues without a parent) divides the pool's
//     capacity, each queue's children divide its fair share
//     (setFairShareForQueues); a queue whose parent is missing is deleted
//     with its descendants (cluster_info cleanQueueOrphans).
//   - Deserved phase (resource_division setDeservedResource): every
//     sibling gets min(deserved, requestable), -1 deserving the whole
//     amount being divided; nothing is scaled down when the guarantees
//     exceed it, and the over-quota phase runs only if something is left.
//   - Over-quota phase (divideOverQuotaResource, divideUpToFairShare):
//     priority bands, highest first, each taking what the bands above left,
//     their rounding remainders included. In a round, each unsatisfied
//     queue with a weight is offered A × w/Σw of what the band had at the
//     round's start, w = max(0, n + k·(n − usage)) with n its
//     overQuotaWeight over the unsatisfied queues' sum (calcShareWeights);
//     it takes its remaining request if that fits, else the offer's whole
//     units (whole cards, millicores, bytes), keeping the fraction as its
//     remainder. A new round runs only if some queue needed strictly less
//     than its offer.
//   - Leftover step (divideRemainingResource), after all bands: band by
//     band, the remainder entries by remainder (largest first), then
//     creation time (oldest first), then queue name, each get min(1, what
//     is left) once, with no check of limit or demand.
//
// # Arithmetic: KAI's float64, shown as exact decimals
//
// KAI computes all of this in float64, and its results are what the
// scheduler enforces, so Divide reproduces them bit for bit: the same
// operations in the same order, with math.Min, math.Max and math.Floor as
// KAI calls them, and no multiply fused into an add (explicit conversions
// stop the Go compiler from doing so). That is KAI's amd64 build; its
// arm64 build may fuse n + k·(n − usage) into one rounding, which changes
// nothing while kValue is 1 and usage 0. A floor of 0.9999999999999997 is 0 here as it is in KAI. Results
// are written as exact decimals from each float64's shortest text, so 0.1
// prints as 0.1 and 0.1 + 0.2 as 0.30000000000000004, KAI's value.
//
// Where float64 and exact decimal arithmetic part ways, the share says so
// (Share.Float) instead of picking one silently:
//
//   - Exact holds what exact arithmetic (the same rules on the decimals as
//     written) gives where it differs from KAI. Every input and every sum
//     is checked for exactness, and each comparison KAI makes on a
//     rounded share within its error bound is decided exactly; a level
//     with an inexact value or a comparison that went the other way is
//     divided again in exact rational arithmetic and compared.
//   - OrderDependent marks a share that KAI itself can compute differently
//     from one cycle to the next: it sums siblings in Go map order, which
//     Go randomises, and a float64 sum can depend on the order of its
//     terms. Sums of integers and halves never do (fixedSum); where a
//     comparison falls within what another order can change, the level is
//     divided again with every value the sum takes in any order and the
//     shares that change are marked. The share shown is the one KAI
//     computes visiting siblings in the order of Pool.Queues.
//   - Rounded marks a share with more digits after the point than a quota
//     number holds (18), shown rounded.
//
// AgeTie marks a share that could differ by one unit because the leftover
// step broke a tie between equal remainders by name where creation times
// are unknown (an unknown age sorts after every known one); a parent's
// mark passes to its children.
//
// # Cost
//
// Time is linear in queues × rounds: each level sorts its siblings once
// and each round visits its band once. The checks above add work only to
// levels that need them, which integer quotas almost never do.
package fairshare
