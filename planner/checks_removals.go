package planner

// The checks of removals (removed blocks): what a removal breaks, read
// from the state after it and, where the cluster was read, from live usage
// (issue 16's blast radius). KRM's behaviour they encode, with sources, is
// in docs/krm-domain.md: a removed queue entry's KAI Queue is deleted at
// once; a project's deletion deletes its queues and keeps its namespace,
// still labelled for it; a department's deletion waits on its finalizer
// while projects name it; a node pool's deletion waits while projects have
// queues on it (ProjectReferencesExist), and a department that still names
// a deleted pool can no longer be updated.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// removal is one destroy change with the queues it removes, as read.
type removal struct {
	c      *tenancy.Change
	queues []tenancy.Queue
}

// removals lists the plan's destroy changes with their queues as before
// holds them.
func (c *checker) removals() []removal {
	var out []removal
	for i := range c.changes {
		ch := &c.changes[i]
		if ch.Action != tenancy.ActionDestroy {
			continue
		}
		qs := c.bx.Queues(ch.Object())
		if ch.RemovesQueue() {
			if ch.Field.Queue >= len(qs) {
				continue
			}
			qs = qs[ch.Field.Queue : ch.Field.Queue+1]
		}
		out = append(out, removal{ch, qs})
	}
	return out
}

// checkRemovals runs on a plan's target (never on a state as it is).
func (c *checker) checkRemovals() {
	for _, r := range c.removals() {
		o := r.c.Object()
		switch {
		case r.c.Destroys() && o.Kind == tenancy.KindDepartment:
			c.departmentInUse(r)
		case r.c.Destroys() && o.Kind == tenancy.KindNodePool:
			c.poolInUse(r)
		case r.c.Destroys() && o.Kind == tenancy.KindProject:
			c.namespaceKept(r)
		case o.Kind == tenancy.KindDepartment:
			c.orphanedQueues(r, r.queues[0].NodePool)
		}
		for qi := range r.queues {
			c.queueUsage(r, &r.queues[qi])
		}
	}
}

// forceable is a finding about something a removal breaks that force =
// true in its removed block allows: an error without it, a warning of code
// forced-removal with it.
func (c *checker) forceable(r removal, f Finding) {
	f.Level = LevelError
	if r.c.Force {
		f.Code, f.Level = CodeForcedRemoval, LevelWarning
		f.Message += "; force = true allows it"
	} else {
		f.Message += "; set force = true in the removed block to remove it anyway"
	}
	f.Where = c.loc.at(r.c.Field)
	c.add(f)
}

// departmentInUse: KRM's department finalizer keeps a department
// Terminating (DepartmentDeletionBlocked, ProjectsStillAssigned) while
// any project names it; force does not change that.
func (c *checker) departmentInUse(r removal) {
	name := r.c.Object().Name
	var kids []string
	for _, p := range c.projs {
		if p.parent == name {
			kids = append(kids, p.addr.Name)
		}
	}
	if len(kids) == 0 {
		return
	}
	c.add(Finding{Code: CodeRemovalBlocked, Level: LevelError, Object: r.c.Object(),
		Message: fmt.Sprintf("department %s is removed, but %s still %s it as parent: KRM keeps the department Terminating (its finalizer waits, DepartmentDeletionBlocked) until they move or go; give them another department or remove them in this plan",
			name, listOf("project", kids), verb(kids, "names", "name")),
		Where: c.loc.at(r.c.Field)})
}

// poolInUse: a node pool's deletion waits while any project has a queue on
// it (ProjectReferencesExist); a department that still has one can no
// longer be updated once the pool is gone.
func (c *checker) poolInUse(r removal) {
	pool := r.c.Object().Name
	var projects, departments []string
	for _, o := range c.owners() {
		for _, q := range o.queues {
			if q.NodePool != pool {
				continue
			}
			if o.addr.Kind == tenancy.KindProject {
				projects = append(projects, o.addr.Name)
			} else {
				departments = append(departments, o.addr.Name)
			}
		}
	}
	var why []string
	if len(projects) > 0 {
		why = append(why, fmt.Sprintf("%s still %s queues on it, so KRM keeps the pool Deleting (ProjectReferencesExist)", listOf("project", projects), verb(projects, "has", "have")))
	}
	if len(departments) > 0 {
		why = append(why, fmt.Sprintf("%s still %s queues on it, and KRM's webhook refuses every later update of a department that names a missing pool", listOf("department", departments), verb(departments, "has", "have")))
	}
	if len(why) == 0 {
		return
	}
	c.add(Finding{Code: CodeRemovalBlocked, Level: LevelError, Object: r.c.Object(), Pool: pool,
		Message: fmt.Sprintf("node pool %s is removed, but %s; remove those queues in this plan", pool, strings.Join(why, ", and ")),
		Where:   c.loc.at(r.c.Field)})
}

// orphanedQueues: removing a department's queue on pool deletes its KAI
// Queue at once, while its projects' queues there still name it as
// parent: KAI's scheduler drops them and their workloads until each
// project's next reconcile makes them root queues.
func (c *checker) orphanedQueues(r removal, pool string) {
	kids := projectsOnPool(c.x, r.c.Object().Name, pool)
	if len(kids) == 0 {
		return
	}
	c.forceable(r, Finding{Code: CodeRemovalOrphansQueues, Object: r.c.Object(), Queue: r.c.Queue, Pool: pool,
		Message: fmt.Sprintf("%s: department %s's queue on node pool %s is removed, but %s still %s queues there: KAI's scheduler drops those queues and their workloads (QueueDoesNotExist) until KRM next reconciles each project and makes them root queues outside any department",
			r.c.Queue, r.c.Object().Name, pool, listOf("project", kids), verb(kids, "has", "have"))})
}

// projectsOnPool names the projects of department dept in x with a queue
// on pool.
func projectsOnPool(x *tenancy.Index, dept, pool string) []string {
	var out []string
	t := x.Tenancy()
	for i := range t.Projects {
		p := &t.Projects[i]
		if p.Spec.Parent != dept {
			continue
		}
		for _, q := range p.Spec.Queues {
			if q.NodePool == pool {
				out = append(out, p.Metadata.Name)
				break
			}
		}
	}
	return out
}

// namespaceKept: KRM deletes a removed project's queues, not its
// namespace, which keeps the project label.
func (c *checker) namespaceKept(r removal) {
	p := c.bx.Project(r.c.Object().Name)
	if p == nil {
		return
	}
	ns, key := p.NamespaceName(), c.projectLabelKey()
	state := "its namespace " + ns
	if !c.s.Read(snapshot.SourceNamespaces) {
		state += " (namespaces not read)"
	} else if !slices.ContainsFunc(c.s.Namespaces, func(n snapshot.Namespace) bool { return n.Name == ns }) {
		return // no namespace to keep
	}
	c.add(Finding{Code: CodeRemovalNamespaceKept, Level: LevelWarning, Object: r.c.Object(),
		Message: fmt.Sprintf("project %s is removed: KRM deletes its queues but keeps %s, still labelled %s=%s, with every workload in it; a new project can use it only after the label is changed (kubectl label namespace %s %s=<project> --overwrite), or delete the namespace by hand",
			p.Metadata.Name, state, key, p.Metadata.Name, ns, key),
		Where: c.loc.at(r.c.Field)})
}

// queueUsage is the blast radius of one removed queue from live usage:
// an error (a forced-removal warning with force) when workloads are
// allocated to it, a note when the usage was not read.
func (c *checker) queueUsage(r removal, q *tenancy.Queue) {
	if !c.s.Read(snapshot.SourceQueues) {
		c.add(Finding{Code: CodeRemovalUsageNotRead, Level: LevelNote, Object: r.c.Object(), Queue: q.Name, Pool: q.NodePool,
			Message: fmt.Sprintf("%s: the queue is removed, and its usage was not read (%s), so what stops running is unknown; snapshot with the cluster (--context) to see it",
				q.Name, c.notReadReason(snapshot.SourceQueues)),
			Where: c.loc.at(r.c.Field)})
		return
	}
	var lq *snapshot.LiveQueue
	for i := range c.s.LiveQueues {
		if c.s.LiveQueues[i].Name == q.Name {
			lq = &c.s.LiveQueues[i]
		}
	}
	if lq == nil {
		return
	}
	use := usageText(lq)
	if use == "" {
		return
	}
	c.forceable(r, Finding{Code: CodeRemovalInUse, Object: r.c.Object(), Queue: q.Name, Pool: q.NodePool,
		Message: fmt.Sprintf("%s: %s: these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist)",
			q.Name, use)})
}

// usageText is what a live queue has allocated, "" for nothing: "3 cards
// in use, 1 non-preemptible (and 7000 millicores of cpu, 60000 MB of
// memory)", or the cpu and memory alone when no card is in use.
func usageText(lq *snapshot.LiveQueue) string {
	inUse := func(res quota.Resource, np bool) (quota.Value, bool) {
		v, _, err := lq.Usage(res, np)
		return v, err == nil && !v.IsZero() && !v.IsNegative()
	}
	var other []string
	for _, res := range []quota.Resource{quota.CPU, quota.Memory} {
		if v, ok := inUse(res, false); ok {
			other = append(other, quota.Amount(res, v)+" of "+string(res))
		}
	}
	cards, ok := inUse(quota.GPU, false)
	if !ok {
		if len(other) == 0 {
			return ""
		}
		return strings.Join(other, " and ") + " in use"
	}
	s := quota.Amount(quota.GPU, cards) + " in use"
	if np, ok := inUse(quota.GPU, true); ok {
		s += ", " + np.String() + " non-preemptible"
	}
	if len(other) > 0 {
		s += " (and " + strings.Join(other, ", ") + ")"
	}
	return s
}

// verb is one when names has one name, many otherwise.
func verb(names []string, one, many string) string {
	if len(names) == 1 {
		return one
	}
	return many
}

// listOf is "project a" or "projects a, b and c", by name.
func listOf(word string, names []string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	if len(names) == 1 {
		return word + " " + names[0]
	}
	return word + "s " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// dropSuperseded drops the findings that a removal finding says better:
// unknown-parent of a project whose department this plan removes, and
// unknown-pool of a queue on a node pool it removes.
func (c *checker) dropSuperseded() {
	gone := map[tenancy.ObjectAddr]bool{}
	for i := range c.changes {
		if c.changes[i].Destroys() {
			gone[c.changes[i].Object()] = true
		}
	}
	if len(gone) == 0 {
		return
	}
	out := c.out[:0]
	for _, f := range c.out {
		switch f.Code {
		case CodeUnknownPool:
			if gone[tenancy.KindNodePool.Object(f.Pool)] {
				continue
			}
		case CodeUnknownParent:
			if p := c.x.Project(f.Object.Name); p != nil && gone[tenancy.KindDepartment.Object(p.Spec.Parent)] {
				continue
			}
		}
		out = append(out, f)
	}
	c.out = out
}
