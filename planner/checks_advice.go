package planner

// Advisory notes: numbers KRM and KAI accept that probably do not mean what
// they say — a cpu or memory value in the wrong unit, and a priority that
// cannot do what it seems to. Each is a note: the tenancy works as written.

import (
	"fmt"
	"math"
	"sort"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// unitSlipRatio is how far from its siblings' median a value must be to
// look written in the wrong unit: cores for millicores, GB for MB, KB for
// MB are 1000 times off; 300 leaves room for siblings that differ by a
// factor of three among themselves.
const unitSlipRatio = 300

// minUnitSlipGroup is the fewest siblings with a value for the median to
// say which one is off (of two, either could be).
const minUnitSlipGroup = 3

// unitHint says what a slip of a resource's unit looks like.
var unitHint = map[quota.Resource]string{
	quota.CPU:    "cpu is in millicores (1000 per core), so a value written in cores is 1000 times too small",
	quota.Memory: "memory is in MB (10^6 bytes), so a value written in GB is 1000 times too small, one in KB 1000 times too large",
}

// checkUnitSlips notes a cpu or memory deserved or limit about 1000 times
// off the median of its siblings' (the lower middle value: one of theirs;
// the queues at the top of a pool, or the
// projects' queues under one department queue), as a value written in the
// wrong unit is. KRM and KAI take the number as written: a project given 4
// "cores" as cpu deserved 4 is guaranteed 4 millicores. Only positive,
// finite values count (0 and -1 are deliberate), and only in a group of at
// least three; the ratio is a float64 estimate, as a heuristic may be.
func (c *checker) checkUnitSlips() {
	pools := make([]string, 0, len(c.top))
	for pool := range c.top {
		pools = append(pools, pool)
	}
	sort.Strings(pools)
	for _, pool := range pools {
		c.unitSlips(c.top[pool], "at the top of node pool ", pool)
	}
	for i := range c.s.Departments {
		d := &c.s.Departments[i]
		for qi := range d.Spec.Queues {
			dq := &d.Spec.Queues[qi]
			k := onPool{d.Metadata.Name, dq.NodePool}
			if c.deptQueue[k].q == dq {
				c.unitSlips(c.children[k], "under department queue ", c.deptQueue[k].name())
			}
		}
	}
}

// slipEntry is one value of a group of siblings that checkUnitSlips
// compares, with its float64 (quota.Value.Float64).
type slipEntry struct {
	k ownedQueue
	v quota.Value
	f float64
}

// unitSlips checks one group of sibling queues; where+whereName says where
// they are (joined only for a finding).
func (c *checker) unitSlips(group []ownedQueue, where, whereName string) {
	if len(group) < minUnitSlipGroup {
		return
	}
	for _, r := range []quota.Resource{quota.CPU, quota.Memory} {
		for _, field := range []tenancy.QuotaField{tenancy.Deserved, tenancy.Limit} {
			es := c.slips[:0] // reused: the findings keep none of it
			for _, k := range group {
				if v, _ := value(k.q, r, field); !v.IsNegative() && !v.IsZero() {
					es = append(es, slipEntry{k, v, v.Float64()})
				}
			}
			c.slips = es
			if len(es) < minUnitSlipGroup {
				continue
			}
			// By value. The float64s order the values as Cmp does where
			// they differ (a correctly rounded conversion is monotone), so
			// only equal float64s need the exact comparison: every answer
			// is Cmp's, and so is the order sort.Slice makes.
			sort.Slice(es, func(i, j int) bool {
				if es[i].f != es[j].f {
					return es[i].f < es[j].f
				}
				return es[i].v.Cmp(es[j].v) < 0
			})
			median := es[(len(es)-1)/2] // the lower middle: one of the values, exactly
			for _, e := range es {
				ratio := e.f / median.f
				if ratio < unitSlipRatio && ratio > 1.0/unitSlipRatio {
					continue
				}
				how := fmt.Sprintf("about %s times the median", roughly(ratio))
				if ratio < 1 {
					how = fmt.Sprintf("about 1/%s of the median", roughly(1/ratio))
				}
				c.add(Finding{Code: CodeUnitSlip, Level: LevelNote, Object: e.k.o.addr, Queue: e.k.name(), Pool: e.k.q.NodePool, Resource: string(r) + "." + field.String(),
					Message: fmt.Sprintf("%s: the %s %s of %s is %s of the %d queues %s (%s); %s",
						e.k.name(), r, field, quota.Amount(r, e.v), how, len(es), where+whereName, quota.Amount(r, median.v), unitHint[r]),
					Where: c.fieldLoc(e.k.o, e.k.i, r, field)})
			}
		}
	}
}

// roughly is a ratio for a person: two significant digits ("1500", "2.5").
func roughly(x float64) string {
	if x >= 10 {
		p := math.Pow(10, math.Floor(math.Log10(x))-1)
		return fmt.Sprintf("%.0f", math.Round(x/p)*p)
	}
	return fmt.Sprintf("%.2g", x)
}

// checkPriorityWithoutGuarantee notes a queue with a gpu guarantee of 0, a
// limit that lets it use cards, and a priority above KAI's default (100).
// Priority ranks a queue before its siblings for idle cards only. KAI's
// proportion plugin lets a reclaimer whose request does not fit its own
// deserved take cards only from queues above their fair share
// (reclaimable.FilterVictim), so this queue never takes back cards another
// queue uses within its guarantee; and a non-preemptible workload must fit
// in the queue's deserved (capacity_policy isAllocatedNonPreemptibleOverQuota),
// so none ever runs in it.
func (c *checker) checkPriorityWithoutGuarantee() {
	for _, o := range c.owners() {
		for qi := range o.queues {
			q := &o.queues[qi]
			if q.Priority == nil || *q.Priority <= tenancy.DefaultPriority {
				continue
			}
			d, _ := value(q, quota.GPU, tenancy.Deserved)
			l, _ := value(q, quota.GPU, tenancy.Limit)
			if !d.IsZero() || l.IsZero() || badNegative(l) {
				continue
			}
			c.add(Finding{Code: CodePriorityWithoutGuarantee, Level: LevelNote, Object: o.addr, Queue: o.name(qi), Pool: q.NodePool, Resource: string(quota.GPU),
				Message: fmt.Sprintf("%s: priority %d puts this queue before its lower-priority siblings for idle cards only: with a gpu guarantee of 0 it never reclaims cards another queue uses within its guarantee (KAI lets a queue that asks beyond its own guarantee reclaim only from queues above their fair share), and non-preemptible workloads never run in it (they must fit in the guarantee)",
					o.name(qi), *q.Priority),
				Where: c.loc.At(o.field(qi, tenancy.FieldPriority))})
		}
	}
}
