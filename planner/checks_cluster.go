package planner

// The checks of the catalogue that need what a cluster adds to a snapshot:
// nodes (pool cards, schedulable cards, new pools), namespaces, and the
// scheduler's live Queues (usage, the numbers it holds). When a source was
// not read, the checks that need it say so in one note instead of passing
// silently.

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner/capacity"
	"github.com/krmplan/krmplan/planner/live"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// maxNamesListed bounds the node names one message lists.
const maxNamesListed = 10

// cardsOf returns the pool's cards, Ready or not, and those schedulable
// right now (capacity.Pool). A pool no node carries has 0 of both.
func (c *checker) cardsOf(pool string) (total, schedulable quota.Value) {
	pc := c.caps[pool]
	if pc == nil {
		return quota.Zero, quota.Zero
	}
	return pc.Cards, pc.Schedulable()
}

// poolOverCapacity: the gpu guarantees of the queues at the top of a pool
// (its departments' queues, and project queues outside a department) must
// fit in the pool's cards. KRM accepts any guarantee; KAI's scheduler then
// cannot give every department its guarantee when the pool is busy. A
// guarantee of -1 on a pool with a known card count is over it too.
// Cards are counted as KAI counts them (capacity.Pool: nvidia.com/gpu +
// amd.com/gpu + N per nvidia.com/mig-<N>g.<M>gb instance). Guarantees
// above the pool's cards (all its nodes, Ready or not) are an error.
// Guarantees that fit those cards but not the cards schedulable right now
// (some nodes not Ready, cordoned, under pressure or short of allocatable
// cards) are a warning naming those nodes: they fit once the nodes are
// settled.
func (c *checker) poolOverCapacity(pool string) {
	tops := c.top[pool]
	if len(tops) == 0 {
		return
	}
	total, schedulable := c.cardsOf(pool)
	sum := quota.Zero
	var unlimited []string
	orphans := false
	for _, t := range tops {
		v, _ := value(t.q, quota.GPU, tenancy.Deserved)
		if badNegative(v) || v.IsZero() {
			continue
		}
		orphans = orphans || t.o.addr.Kind == tenancy.KindProject
		if v.IsUnlimited() {
			unlimited = append(unlimited, t.name())
		}
		sum = sum.Add(v)
	}
	if sum.Cmp(schedulable) <= 0 && sum.Cmp(total) <= 0 {
		return
	}
	who := "departments are"
	if orphans {
		who = "departments and project queues outside a department are"
	}
	f := Finding{Code: CodePoolOverCapacity, Level: LevelError, Object: tenancy.KindNodePool.Object(pool), Pool: pool, Resource: string(quota.GPU),
		Where: c.guaranteesLoc(tops, quota.GPU)}
	switch {
	case len(unlimited) > 0:
		f.Message = fmt.Sprintf("pool %s: %s guaranteed unlimited cards (-1 on %s), the pool has %s",
			pool, who, words.List(unlimited, maxNamesListed), quota.Amount(quota.GPU, total))
	case sum.Cmp(total) > 0:
		f.Message = fmt.Sprintf("pool %s: %s guaranteed %s, the pool has %s — %s over",
			pool, who, quota.Amount(quota.GPU, sum), quota.Amount(quota.GPU, total), quota.Amount(quota.GPU, sum.Sub(total)))
	default:
		f.Level = LevelWarning
		var unsettled []string
		if pc := c.caps[pool]; pc != nil {
			unsettled = pc.Unsettled
		}
		are := "are"
		if schedulable.Equal(quota.FromInt(1)) {
			are = "is"
		}
		f.Message = fmt.Sprintf("pool %s: %s guaranteed %s, within the pool's %s, but only %s %s schedulable right now — %s over until its nodes are settled: %s",
			pool, who, quota.Amount(quota.GPU, sum), quota.Amount(quota.GPU, total), quota.Amount(quota.GPU, schedulable), are,
			quota.Amount(quota.GPU, sum.Sub(schedulable)), joinClauses(unsettled, maxNamesListed))
	}
	c.add(f)
}

// checkPoolNodes, when the nodes were read: a pool some of whose cards are
// not schedulable right now, naming the nodes (KAI's scheduler counts
// nothing of a node that is not Ready, is cordoned or has a pressure
// condition, nor cards the device plugin does not report allocatable);
// and a department's gpu limit above the pool's cards, which KRM accepts
// but can never be reached.
func (c *checker) checkPoolNodes() {
	if c.caps == nil {
		return
	}
	for _, pool := range c.poolNames() {
		if pc := c.caps[pool]; pc != nil && len(pc.Unsettled) > 0 {
			c.add(Finding{Code: CodePoolCardsUnschedulable, Level: LevelWarning, Object: tenancy.KindNodePool.Object(pool), Pool: pool,
				Message: fmt.Sprintf("pool %s: not all of the pool's %s are schedulable right now: %s",
					pool, quota.Amount(quota.GPU, pc.Cards), joinClauses(pc.Unsettled, maxNamesListed)),
				Where: c.loc.At(tenancy.KindNodePool.Object(pool).Field(tenancy.FieldLabelValue))})
		}
		cards, _ := c.cardsOf(pool)
		for _, t := range c.top[pool] {
			if t.o.addr.Kind != tenancy.KindDepartment {
				continue
			}
			l, _ := value(t.q, quota.GPU, tenancy.Limit)
			if l.IsNegative() || l.Cmp(cards) <= 0 {
				continue
			}
			c.add(Finding{Code: CodeDepartmentLimitOverPool, Level: LevelWarning, Object: t.o.addr, Queue: t.name(), Pool: pool, Resource: string(quota.GPU),
				Message: fmt.Sprintf("%s: the department's gpu limit of %s is above the %s of pool %s — %s of it can never be reached",
					t.name(), quota.Amount(quota.GPU, l), quota.Amount(quota.GPU, cards), pool, quota.Amount(quota.GPU, l.Sub(cards))),
				Where: c.fieldLoc(t.o, t.i, quota.GPU, tenancy.Limit)})
		}
	}
}

// joinClauses joins node descriptions with "; ", the first max of them.
func joinClauses(cs []string, max int) string {
	if len(cs) <= max {
		return strings.Join(cs, "; ")
	}
	return fmt.Sprintf("%s; and %d more nodes", strings.Join(cs[:max], "; "), len(cs)-max)
}

// checkNewPools, for a node pool the plan creates, when the nodes were
// read: KRM accepts a pool whose label pair no node carries, and one whose
// nodes the ManagedNodesConfig's nodeSelectorTerms do not select; KRM then
// manages none of those nodes, and the pool's queues get no cards from them.
func (c *checker) checkNewPools() {
	if c.caps == nil {
		return
	}
	for _, p := range c.s.NodePools {
		name := p.Metadata.Name
		if !c.newPools[name] || p.Spec.LabelKey == "" {
			continue
		}
		where := c.loc.At(tenancy.KindNodePool.Object(name).Field(tenancy.FieldLabelValue))
		pc := c.caps[name]
		if pc == nil || len(pc.Nodes) == 0 {
			c.add(Finding{Code: CodeNewPoolNoNodes, Level: LevelWarning, Object: tenancy.KindNodePool.Object(name), Pool: name,
				Message: fmt.Sprintf("node pool %s is new, and no node carries the label %s=%s; its queues get no cards until nodes are labelled",
					name, p.Spec.LabelKey, p.Spec.LabelValue),
				Where: where})
			continue
		}
		mn := c.s.ManagedNodes
		if mn == nil || len(mn.Terms) == 0 {
			continue
		}
		var outside []string
		for _, n := range pc.Nodes {
			if !tenancy.SelectsNode(mn.Terms, n.Labels) {
				outside = append(outside, n.Name)
			}
		}
		if len(outside) == 0 {
			continue
		}
		c.add(Finding{Code: CodeNewPoolNotManaged, Level: LevelWarning, Object: tenancy.KindNodePool.Object(name), Pool: name,
			Message: fmt.Sprintf("node pool %s is new, and %d of its %d nodes are outside the ManagedNodesConfig %s: %s; KRM manages only the nodes its nodeSelectorTerms select",
				name, len(outside), len(pc.Nodes), mn.Metadata.Name, words.List(outside, maxNamesListed)),
			Where: where})
	}
}

// checkProjectNamespaces, for every project when the namespaces were read:
// KRM accepts a project whose namespace is missing, carries no project
// label, or is labelled for another project; KRM binds a namespace to a
// project by that label (KRMConfig's namespaceProjectLabelKey, default
// kai/project), so the project's workloads do not land in its queues
// until the namespace exists with <key>=<project>. A project's namespace
// is spec.namespace, which KRM never creates, or else
// <projectNamePrefix>-<project> (default kai-<project>), which KRM creates
// and labels itself when KRMConfig's createNamespaces is on (the default):
// that one missing is a finding only for a project the plan does not
// create, or when createNamespaces is off (namespaceFinding).
func (c *checker) checkProjectNamespaces() {
	if len(c.s.Projects) == 0 {
		return
	}
	key, prefix := c.s.KRMConfig.LabelKey(), c.s.KRMConfig.NamePrefix()
	if !c.s.Read(snapshot.SourceNamespaces) {
		c.add(Finding{Code: CodeNamespacesNotRead, Level: LevelNote,
			Message: fmt.Sprintf("namespace checks not run: namespaces not read (%s) — whether each project's namespace exists and is labelled %s=<project> was not checked",
				c.notReadReason(snapshot.SourceNamespaces), key)})
		return
	}
	nss := make(map[string]*snapshot.Namespace, len(c.s.Namespaces))
	for i := range c.s.Namespaces {
		nss[c.s.Namespaces[i].Name] = &c.s.Namespaces[i]
	}
	for i := range c.s.Projects {
		p := &c.s.Projects[i]
		f, ok := c.namespaceFinding(p, nss[p.NamespaceName(prefix)], key, prefix)
		if !ok {
			continue
		}
		// Named and located only for a finding: most projects have none.
		f.Level, f.Object = LevelWarning, tenancy.KindProject.Object(p.Metadata.Name)
		f.Where = c.loc.At(f.Object.Field(tenancy.FieldNamespace))
		c.add(f)
	}
}

// namespaceFinding is the finding about project p's namespace ns (nil when
// missing), if any: its code and message.
func (c *checker) namespaceFinding(p *tenancy.Project, ns *snapshot.Namespace, key, prefix string) (Finding, bool) {
	name, nsName := p.Metadata.Name, p.NamespaceName(prefix)
	label, labelled := "", false
	if ns != nil {
		label, labelled = ns.Labels[key]
	}
	if p.Spec.Namespace != "" {
		switch {
		case ns == nil:
			return Finding{Code: CodeNamespaceMissing, Message: fmt.Sprintf("project %s: namespace %s does not exist; KRM accepts the project, but its workloads need that namespace, labelled %s=%s", name, nsName, key, name)}, true
		case !labelled:
			return Finding{Code: CodeNamespaceNotLabelled, Message: fmt.Sprintf("project %s: namespace %s is not labelled %s=%s; KRM binds a namespace to its project by that label", name, nsName, key, name)}, true
		case label != name && label == tenancy.MovedFrom(c.changes, name): // a rename's: the patch script relabels it
		case label != name:
			return Finding{Code: CodeNamespaceLabelledOtherProject, Message: fmt.Sprintf("project %s: namespace %s is labelled %s=%s, which binds it to project %s, not to %s", name, nsName, key, label, label, name)}, true
		}
		return Finding{}, false
	}
	// The default name: KRM creates the namespace and labels it itself.
	creates := c.s.KRMConfig.CreatesNamespaces()
	switch {
	case ns == nil && !creates:
		return Finding{Code: CodeNamespaceMissing, Message: fmt.Sprintf("project %s: namespace %s (KRM's name for a project without spec.namespace) does not exist, and the KRMConfig turns createNamespaces off, so KRM will not create it; create it labelled %s=%s, or set spec.namespace", name, nsName, key, name)}, true
	case ns == nil && c.bx.Project(name) == nil:
		return Finding{}, false // a new project: KRM creates its namespace
	case ns == nil:
		return Finding{Code: CodeNamespaceMissing, Message: fmt.Sprintf("project %s: namespace %s (KRM's name for a project without spec.namespace) does not exist; KRM creates it when it reconciles the project, so it has not yet", name, nsName)}, true
	case !labelled && creates:
		return Finding{Code: CodeNamespaceNotLabelled, Message: fmt.Sprintf("project %s: namespace %s is not labelled %s=%s; KRM takes over a namespace of its default name when it reconciles the project, labelling it and dropping the namespace's other labels", name, nsName, key, name)}, true
	case !labelled:
		return Finding{Code: CodeNamespaceNotLabelled, Message: fmt.Sprintf("project %s: namespace %s is not labelled %s=%s, and the KRMConfig turns createNamespaces off, so KRM does not label it; KRM binds a namespace to its project by that label", name, nsName, key, name)}, true
	case label != name && creates:
		return Finding{Code: CodeNamespaceLabelledOtherProject, Message: fmt.Sprintf("project %s: namespace %s is labelled %s=%s; KRM takes over a namespace of its default name for project %s and rewrites its labels, so project %s loses it", name, nsName, key, label, name, label)}, true
	case label != name:
		return Finding{Code: CodeNamespaceLabelledOtherProject, Message: fmt.Sprintf("project %s: namespace %s is labelled %s=%s, which binds it to project %s, not to %s", name, nsName, key, label, label, name)}, true
	}
	return Finding{}, false
}

// checkLiveQueues compares the tenancy with the scheduler's Queues (matched
// by KAI Queue name, derived for a queue without one) when they were read: usage against the limits and guarantees of
// the state checked, and the Queue's numbers against the source the plan
// starts from, unless the Queue carries KRM's manual-override label
// (KRMConfig's resourceManualOverrideLabelKey=true, any case: KRM then
// leaves the Queue alone, krm-facts 7), which is a note of its own. A queue name over 58 characters is skipped: KRM gives its
// Queue a random suffix (queue-name-too-long).
func (c *checker) checkLiveQueues() {
	if !c.s.Read(snapshot.SourceQueues) {
		for _, o := range c.owners() {
			if len(o.queues) > 0 {
				c.add(Finding{Code: CodeQueuesNotRead, Level: LevelNote,
					Message: fmt.Sprintf("usage checks not run: queues not read (%s) — usage against the limits, non-preemptible usage against the guarantees and the scheduler's Queue numbers were not compared",
						c.notReadReason(snapshot.SourceQueues))})
				return
			}
		}
		return
	}
	queues := c.sh.queues()
	for _, o := range c.owners() {
		for qi := range o.queues {
			q := &o.queues[qi]
			if lq := queues.Get(o.name(qi)); lq != nil && len(o.name(qi)) <= maxQueueName {
				for _, r := range quota.Resources {
					c.usage(o, qi, q, lq, r)
				}
			}
		}
	}
	// The same for every state of one plan: made once (c.before is the
	// plan's snapshot, beforeLoc locates in it alone).
	c.sh.diffsOnce.Do(c.liveDiffs)
	c.out = append(c.out, c.sh.diffs...)
}

// liveDiffs makes sh.diffs: the notes of the snapshot's queues whose live
// Queue is missing, set by hand (the manual-override label), or holds other
// numbers than the source.
func (c *checker) liveDiffs() {
	queues := c.sh.queues()
	for _, o := range ownersOf(c.before) {
		for qi := range o.queues {
			q, name := &o.queues[qi], o.name(qi)
			if len(name) > maxQueueName {
				continue
			}
			lq := queues.Get(name)
			if lq == nil {
				c.sh.diffs = append(c.sh.diffs, Finding{Code: CodeLiveQueueMissing, Level: LevelNote, Object: o.addr, Queue: name, Pool: q.NodePool,
					Message: fmt.Sprintf("%s: the scheduler has no Queue of this name; KRM has not created it yet", name),
					Where:   c.beforeLoc.At(o.field(qi, tenancy.FieldQueueName))})
				continue
			}
			if key := c.before.KRMConfig.OverrideKey(); tenancy.IsManualOverride(lq.Labels[key]) {
				c.sh.diffs = append(c.sh.diffs, Finding{Code: CodeManualOverride, Level: LevelNote, Object: o.addr, Queue: name, Pool: q.NodePool,
					Message: fmt.Sprintf("%s: the scheduler's Queue carries %s=%s, so KRM no longer writes it from the spec: its numbers are the ones set by hand, and a change to this queue in the source does not reach the scheduler until the label is removed",
						name, key, lq.Labels[key]),
					Where: c.beforeLoc.At(o.field(qi, tenancy.FieldQueueName))})
				continue // its numbers differ on purpose
			}
			lqq := &tenancy.Queue{Resources: lq.Resources} // the Queue's numbers, read as a queue's
			for _, r := range quota.Resources {
				c.liveDiffers(o, qi, q, lqq, r)
			}
		}
	}
}

// shared is what the checks of the states one plan compares read alike
// (the snapshot, the target, the part of the state each step is checked
// on: all have the snapshot's cluster data): each node's figures, read
// once; the live Queues, their usage parsed once; and the notes that
// compare those Queues with the snapshot, made by the first check that
// needs them. The checks of two states may share one at the same time.
type shared struct {
	nodes *capacity.Counter
	// live is read from lqs by the first check that needs it (queues):
	// while the other state's checks go on on the other core.
	lqs       []snapshot.LiveQueue
	liveOnce  sync.Once
	live      *live.Queues
	diffsOnce sync.Once
	diffs     []Finding
	// abandon, once set, ends the checks of the states being checked
	// early: their findings are not wanted (pending.stop).
	abandon atomic.Bool
}

// newShared is what the checks of states with s's cluster data share.
func newShared(s *snapshot.State) *shared {
	return &shared{nodes: capacity.NewCounter(s), lqs: s.LiveQueues}
}

// queues is the live Queues, read once.
func (sh *shared) queues() *live.Queues {
	sh.liveOnce.Do(func() { sh.live = live.Read(sh.lqs) })
	return sh.live
}

// usage warns when a queue uses more than its limit (Queue
// status.allocated), or its non-preemptible workloads more than its
// guarantee (status.allocatedNonPreemptible). KRM accepts a limit or a
// guarantee below the usage; KAI's scheduler then gives the queue nothing
// more until its usage is below the limit, and never evicts non-preemptible
// workloads, so a smaller guarantee is reached only as they finish.
func (c *checker) usage(o *owner, qi int, q *tenancy.Queue, lq *live.Queue, r quota.Resource) {
	for _, np := range []bool{false, true} {
		used, present, err := lq.Usage(r, np)
		if err == nil && !present {
			continue // nothing in use (most non-preemptible usage)
		}
		field, status, code := tenancy.Limit, "allocated", CodeUsageOverLimit
		if np {
			field, status, code = tenancy.Deserved, "allocatedNonPreemptible", CodeNonPreemptibleOverGuarantee
		}
		base := Finding{Object: o.addr, Queue: o.name(qi), Pool: q.NodePool, Resource: string(r)}
		if err != nil {
			name := snapshot.StatusResourceName[r]
			text := lq.Allocated[name]
			if np {
				text = lq.AllocatedNonPreemptible[name]
			}
			f := base
			f.Code, f.Level, f.Resource = CodeUsageUnreadable, LevelNote, string(r)+"."+status
			f.Message = fmt.Sprintf("%s: the scheduler's Queue status.%s holds %s %q, which is not a Kubernetes quantity; the %s usage was not compared", o.name(qi), status, name, text, r)
			c.add(f)
			continue
		}
		bound, _ := value(q, r, field)
		if badNegative(bound) || used.Cmp(bound) <= 0 {
			continue
		}
		f := base
		f.Code, f.Level, f.Where = code, LevelWarning, c.fieldLoc(o, qi, r, field)
		gap := quota.Amount(r, used.Sub(bound))
		if np {
			f.Message = fmt.Sprintf("%s: non-preemptible workloads use %s, above the queue's %s guarantee of %s — %s over; nothing is evicted, so the change waits for those workloads to finish",
				o.name(qi), quota.Amount(r, used), r, quota.Amount(r, bound), gap)
		} else {
			f.Message = fmt.Sprintf("%s: the queue uses %s, above its %s limit of %s — %s over; KAI's scheduler gives it no more %s until its usage is below the limit",
				o.name(qi), quota.Amount(r, used), r, quota.Amount(r, bound), gap, idleName[r])
		}
		c.add(f)
	}
}

// liveDiffers notes (in sh.diffs) a scheduler Queue whose quota, limit or
// overQuotaWeight differs from the source's deserved, limit or
// overQuotaWeight (an omitted field is 0 on both sides). KRM writes the source's numbers into the
// Queue, unconverted; a difference means it has not reconciled (or a
// GitOps tool has not synced) yet, or the Queue was edited directly.
// lqq is the live Queue's numbers as a queue's (its Resources).
func (c *checker) liveDiffers(o *owner, qi int, q, lqq *tenancy.Queue, r quota.Resource) {
	var have, want []string
	var where []tenancy.Location
	for _, field := range tenancy.QuotaFields {
		src, _ := value(q, r, field)
		got, _ := value(lqq, r, field)
		if src.Equal(got) {
			continue
		}
		amount := func(v quota.Value) string {
			if field == tenancy.OverQuotaWeight {
				return v.String()
			}
			return quota.Amount(r, v)
		}
		have = append(have, field.SchedulerName()+" "+amount(got))
		want = append(want, field.String()+" "+amount(src))
		where = append(where, c.beforeLoc.At(o.field(qi, tenancy.QuotaFieldOf(r, field)))...)
	}
	if len(have) == 0 {
		return
	}
	c.sh.diffs = append(c.sh.diffs, Finding{Code: CodeLiveQueueDiffers, Level: LevelNote, Object: o.addr, Queue: o.name(qi), Pool: q.NodePool, Resource: string(r),
		Message: fmt.Sprintf("%s: the scheduler's Queue has %s %s, the source has %s %s — not reconciled or synced yet, or the Queue was edited directly",
			o.name(qi), r, strings.Join(have, ", "), r, strings.Join(want, ", ")),
		Where: where})
}
