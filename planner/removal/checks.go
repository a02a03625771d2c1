// Package removal holds what a plan knows of its removals (removed
// blocks) below the planner: the checks of what a removal breaks, read
// from the state after it and, where the cluster was read, from live usage
// (issue 16's blast radius). KRM's behaviour they encode, with sources, is
// in docs/krm-domain.md: a removed queue entry's KAI Queue is deleted at
// once; a project's deletion deletes its queues and keeps its namespace,
// still labelled for it; a department's deletion waits on its finalizer
// while projects name it; a node pool's deletion waits while projects have
// queues on it (ProjectReferencesExist), and a department that still names
// a deleted pool can no longer be updated. And the JSON-patch operations
// of the removal steps: the tests of an entry or an object as read, the
// removes of entries. It returns findings and operations in its own small
// types, which the planner takes over.
package removal

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/planner/finding"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// The codes of the findings of removals, as the planner's catalogue
// lists them (planner.Codes).
const (
	CodeBlocked       = "removal-blocked"        // an error
	CodeInUse         = "removal-in-use"         // an error
	CodeOrphansQueues = "removal-orphans-queues" // an error
	CodeForced        = "forced-removal"         // a warning
	CodeNamespaceKept = "removal-namespace-kept" // a warning
	CodeMoved         = "moved-project"          // a warning
	CodeUsageNotRead  = "removal-usage-not-read" // a note
	CodeQueueNameKept = "queue-name-kept"        // a warning
)

// The levels of the findings, as the planner's.
const (
	Error   = finding.Error
	Warning = finding.Warning
	Note    = finding.Note
)

// Finding is one finding of a removal (package finding's shape).
type Finding = finding.Finding

// Input is what the checks of removals read.
type Input struct {
	// Before and After index the snapshot's tenancy and the plan's target.
	Before, After *tenancy.Index
	// State is the target state: its cluster data (live queues,
	// namespaces, what was not read) are the snapshot's.
	State   *snapshot.State
	Changes []tenancy.Change
	// Where is where a change's removed block is written (desired.hcl).
	Where func(tenancy.FieldAddr) []tenancy.Location
}

// checker collects the findings of one Check.
type checker struct {
	in  Input
	out []Finding
}

func (c *checker) add(f Finding) { c.out = append(c.out, f) }

// notReadReason joins the reasons why the source what was not read.
func notReadReason(s *snapshot.State, what string) string {
	var reasons []string
	for _, n := range s.NotRead {
		if n.What == what {
			reasons = append(reasons, n.Reason)
		}
	}
	return strings.Join(reasons, "; ")
}

// removal is one destroy change with the queues it removes, as read.
type removal struct {
	c      *tenancy.Change
	queues []tenancy.Queue
}

// removals lists the plan's destroy changes with their queues as before
// holds them.
func (c *checker) removals() []removal {
	var out []removal
	for i := range c.in.Changes {
		ch := &c.in.Changes[i]
		if ch.Action != tenancy.ActionDestroy {
			continue
		}
		qs := c.in.Before.Queues(ch.Object())
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

// Check returns the findings of the removals among in.Changes, on the
// state after them: a removed department its projects still name, a
// removed pool with queues on it (removal-blocked); a removed department
// queue with project queues under it (removal-orphans-queues) and a
// removed queue with workloads allocated (removal-in-use), both a
// forced-removal warning with force = true; a removed project's namespace
// kept (removal-namespace-kept); a removed queue whose usage was not read
// (removal-usage-not-read); and an existing queue entry whose name the
// plan edits (queue-name-kept: KRM renames no Queue).
func Check(in Input) []Finding {
	c := &checker{in: in}
	c.check()
	return c.out
}

func (c *checker) check() {
	c.queueNamesKept()
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
// forced-removal with it. A removal without a removed block (no Source: a
// plan between two git refs, whose pull request deletes the YAML) is
// forced by plan's --force-removal flag, which the advice then names.
func (c *checker) forceable(r removal, f Finding) {
	f.Level = Error
	flag := "--force-removal " + tenancy.RemovalOf(r.c).String()
	switch {
	case r.c.Force && r.c.Source == nil:
		f.Code, f.Level = CodeForced, Warning
		f.Message += "; " + flag + " allows it"
	case r.c.Force:
		f.Code, f.Level = CodeForced, Warning
		f.Message += "; force = true allows it"
	case r.c.Source == nil:
		f.Message += "; plan with " + flag + " to remove it anyway"
	case r.c.MovedTo != "":
		f.Message += "; set force = true in the moved block to remove it anyway"
	default:
		f.Message += "; set force = true in the removed block to remove it anyway"
	}
	f.Where = c.in.Where(r.c.Field)
	c.add(f)
}

// departmentInUse: KRM's department finalizer keeps a department
// Terminating (DepartmentDeletionBlocked, ProjectsStillAssigned) while
// any project names it; force does not change that.
func (c *checker) departmentInUse(r removal) {
	name := r.c.Object().Name
	var kids []string
	for _, p := range c.in.After.Tenancy().Projects {
		if p.Spec.Parent == name {
			kids = append(kids, p.Metadata.Name)
		}
	}
	if len(kids) == 0 {
		return
	}
	c.add(Finding{Code: CodeBlocked, Level: Error, Object: r.c.Object(),
		Message: fmt.Sprintf("department %s is removed, but %s still %s it as parent: KRM keeps the department Terminating (its finalizer waits, DepartmentDeletionBlocked) until they move or go; give them another department or remove them in this plan",
			name, listOf("project", kids), verb(kids, "names", "name")),
		Where: c.in.Where(r.c.Field)})
}

// poolInUse: a node pool's deletion waits while any project has a queue on
// it (ProjectReferencesExist); a department that still has one can no
// longer be updated once the pool is gone.
func (c *checker) poolInUse(r removal) {
	pool := r.c.Object().Name
	t := c.in.After.Tenancy()
	var projects, departments []string
	for _, d := range t.Departments {
		if onPool(d.Spec.Queues, pool) {
			departments = append(departments, d.Metadata.Name)
		}
	}
	for _, p := range t.Projects {
		if onPool(p.Spec.Queues, pool) {
			projects = append(projects, p.Metadata.Name)
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
	c.add(Finding{Code: CodeBlocked, Level: Error, Object: r.c.Object(), Pool: pool,
		Message: fmt.Sprintf("node pool %s is removed, but %s; remove those queues in this plan", pool, strings.Join(why, ", and ")),
		Where:   c.in.Where(r.c.Field)})
}

// orphanedQueues: removing a department's queue on pool deletes its KAI
// Queue at once, while its projects' queues there still name it as
// parent: KAI's scheduler drops them and their workloads until each
// project's next reconcile makes them root queues.
func (c *checker) orphanedQueues(r removal, pool string) {
	kids := ProjectsOnPool(c.in.After, r.c.Object().Name, pool)
	if len(kids) == 0 {
		return
	}
	c.forceable(r, Finding{Code: CodeOrphansQueues, Object: r.c.Object(), Queue: r.c.Queue, Pool: pool,
		Message: fmt.Sprintf("%s: department %s's queue on node pool %s is removed, but %s still %s queues there: KAI's scheduler drops those queues and their workloads (QueueDoesNotExist) until KRM next reconciles each project and makes them root queues outside any department",
			r.c.Queue, r.c.Object().Name, pool, listOf("project", kids), verb(kids, "has", "have"))})
}

// ProjectsOnPool names the projects of department dept in x with a queue
// on pool.
func ProjectsOnPool(x *tenancy.Index, dept, pool string) []string {
	var out []string
	t := x.Tenancy()
	for i := range t.Projects {
		p := &t.Projects[i]
		if p.Spec.Parent != dept {
			continue
		}
		if onPool(p.Spec.Queues, pool) {
			out = append(out, p.Metadata.Name)
		}
	}
	return out
}

// namespaceKept: KRM deletes a removed project's queues, not its
// namespace, which keeps the project label.
func (c *checker) namespaceKept(r removal) {
	p := c.in.Before.Project(r.c.Object().Name)
	if p == nil {
		return
	}
	k := c.in.State.KRMConfig
	ns, key := p.NamespaceName(k.NamePrefix()), k.LabelKey()
	state := "its namespace " + ns
	if !c.in.State.Read(snapshot.SourceNamespaces) {
		state += " (namespaces not read)"
	} else if !slices.ContainsFunc(c.in.State.Namespaces, func(n snapshot.Namespace) bool { return n.Name == ns }) {
		return // no namespace to keep
	}
	if to := r.c.MovedTo; to != "" {
		c.add(Finding{Code: CodeMoved, Level: Warning, Object: r.c.Object(), Message: movedText(p, to, state, ns, key, k.OverrideKey()),
			Where: c.in.Where(r.c.Field)})
		return
	}
	c.add(Finding{Code: CodeNamespaceKept, Level: Warning, Object: r.c.Object(),
		Message: fmt.Sprintf("project %s is removed: KRM deletes its queues but keeps %s, still labelled %s=%s, with every workload in it; a new project can use it only after the label is changed (kubectl label namespace %s %s=<project> --overwrite), or delete the namespace by hand",
			p.Metadata.Name, state, key, p.Metadata.Name, ns, key),
		Where: c.in.Where(r.c.Field)})
}

// Renamed are the projects of the moved blocks, old and new (the destroys
// with MovedTo): while both exist they share the namespace, which is no
// error in a step of the plan — it is the rename's intermediate state, in
// which KRM refuses the namespace to the new project (NamespaceReady=False)
// until the patch script relabels it.
func Renamed(changes []tenancy.Change) map[tenancy.ObjectAddr]bool {
	out := map[tenancy.ObjectAddr]bool{}
	for i := range changes {
		if to := changes[i].MovedTo; to != "" {
			out[changes[i].Object()] = true
			out[tenancy.KindProject.Object(to)] = true
		}
	}
	return out
}

// movedText says what the rename of project p to project to does with its
// namespace ns (labelled with key) and its workloads. When ns is p's
// default namespace, KRM rewrites its labels for p at each reconcile of p
// while p exists, so the patch script holds it with the manual-override
// label (key override) until p is gone (docs/krm-domain.md, Renaming a
// project).
func movedText(p *tenancy.Project, to, state, ns, key, override string) string {
	var olds, news []string
	for _, q := range p.Spec.Queues {
		olds = append(olds, tenancy.QueueName(p.Metadata.Name, q.Name, q.NodePool))
		news = append(news, tenancy.QueueName(to, q.Name, q.NodePool))
	}
	hold := ""
	if p.Spec.Namespace == "" {
		hold = fmt.Sprintf(", with %s=true until %s is gone (while %s exists, KRM takes its default namespace back for it at each reconcile, and the relabel triggers one; the override makes KRM leave the namespace alone), then checks the label and removes the override", override, p.Metadata.Name, p.Metadata.Name)
	}
	return fmt.Sprintf("project %s is renamed to %s: KRM cannot rename a project, so %s is created naming %s in spec.namespace, then %s is removed; KRM keeps %s with its workloads, but refuses a namespace labelled for another project (NamespaceReady=False) and never moves the label, so the patch script relabels it (kubectl label namespace %s %s=%s --overwrite) between the two%s; by hand: workloads that name queue %s must be submitted again to %s (their PodGroups get QueueDoesNotExist once %s's queues go)",
		p.Metadata.Name, to, to, ns, p.Metadata.Name, state, ns, key, to, hold, strings.Join(olds, ", "), strings.Join(news, ", "), p.Metadata.Name)
}

// queueUsage is the blast radius of one removed queue from live usage:
// an error (a forced-removal warning with force) when workloads are
// allocated to it, a note when the usage was not read.
func (c *checker) queueUsage(r removal, q *tenancy.Queue) {
	// The KAI Queue's name: an entry without one has its owner's (KRM's
	// GetQueueName).
	name := tenancy.QueueName(r.c.Object().Name, q.Name, q.NodePool)
	if !c.in.State.Read(snapshot.SourceQueues) {
		c.add(Finding{Code: CodeUsageNotRead, Level: Note, Object: r.c.Object(), Queue: name, Pool: q.NodePool,
			Message: fmt.Sprintf("%s: the queue is removed, and its usage was not read (%s), so what stops running is unknown; read the cluster's Queues (snapshot --context, or --cluster-data) to see it",
				name, notReadReason(c.in.State, snapshot.SourceQueues)),
			Where: c.in.Where(r.c.Field)})
		return
	}
	var lq *snapshot.LiveQueue
	for i := range c.in.State.LiveQueues {
		if c.in.State.LiveQueues[i].Name == name {
			lq = &c.in.State.LiveQueues[i]
		}
	}
	if lq == nil {
		return
	}
	use := usageText(lq)
	if use == "" {
		return
	}
	c.forceable(r, Finding{Code: CodeInUse, Object: r.c.Object(), Queue: name, Pool: q.NodePool,
		Message: fmt.Sprintf("%s: %s: these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist)",
			name, use)})
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

// onPool reports whether one of qs is on pool.
func onPool(qs []tenancy.Queue, pool string) bool {
	return slices.ContainsFunc(qs, func(q tenancy.Queue) bool { return q.NodePool == pool })
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

// queueNamesKept: a change of an existing queue entry's name renames no
// KAI Queue. KRM finds a project's Queue by its labels (project, node
// pool) before its name, and a department's by its owner, and writes the
// new spec to the Queue it found, under its old name (docs/krm-domain.md,
// "How KRM finds a Queue later"): workloads keep naming the old Queue, and
// no Queue of the new name appears. The finding points at desired.hcl's
// name where it sets one, else at the name as read (a plan between refs
// then points it at the head's line).
func (c *checker) queueNamesKept() {
	for i := range c.in.Changes {
		ch := &c.in.Changes[i]
		if ch.Action != tenancy.ActionUpdate || ch.Field.Field != tenancy.FieldQueueName || ch.Field.Queue == tenancy.NoQueue {
			continue
		}
		was, _ := ch.Before.Str() // "" (null: absent) for a name KRM derives
		now, _ := ch.After.Str()
		o := ch.Object()
		old := tenancy.QueueName(o.Name, was, ch.Pool)
		if old == ch.Queue {
			continue
		}
		where := c.in.Where(ch.Field)
		if origin, _ := c.in.Before.Origin(o); len(where) == 0 && origin != nil {
			if pos, ok := c.in.Before.Pos(ch.Field); ok {
				where = []tenancy.Location{{File: origin.File, Line: pos.Line, Column: pos.Column}}
			}
		}
		c.add(Finding{Code: CodeQueueNameKept, Level: Warning, Object: o, Queue: ch.Queue, Pool: ch.Pool, Where: where,
			Message: fmt.Sprintf("%s %s's queue on node pool %s is renamed from %q to %q in the spec, but KRM finds the Queue it made by %s and keeps its name %s: no Queue %s is made, the checks and messages name it %s, and workloads keep naming %s; to get a Queue named %s, remove the entry in one plan (a removed block, or a pull request) and add it again in the next",
				o.Kind.Info().Word, o.Name, ch.Pool, was, now, findsBy(o.Kind), old, ch.Queue, ch.Queue, old, ch.Queue)})
	}
}

// findsBy says how KRM finds an object's existing Queue.
func findsBy(k tenancy.Kind) string {
	if k == tenancy.KindDepartment {
		return "its owner"
	}
	return "its labels (the project and the node pool)"
}
