package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
)

// Level is how serious a finding is. Errors block render; warnings and
// notes never change the exit code.
type Level string

// The finding levels, most serious first.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelNote    Level = "note"
)

func (l Level) rank() int {
	switch l {
	case LevelError:
		return 0
	case LevelWarning:
		return 1
	}
	return 2
}

// Finding is one result of the checks.
type Finding struct {
	Code  string `json:"code"` // stable, e.g. "projects-over-department"
	Level Level  `json:"level"`
	// Object is "Kind/name" of the object the finding is about, Queue the
	// queue name and Pool the node pool, where they apply.
	Object   string `json:"object,omitempty"`
	Queue    string `json:"queue,omitempty"`
	Pool     string `json:"pool,omitempty"`
	Resource string `json:"resource,omitempty"`
	Message  string `json:"message"`
	// Where lists the values that cause the finding: lines of the tenancy
	// files, or ranges of desired.hcl for values the plan sets.
	Where []Location `json:"where,omitempty"`
	// AlreadyPresent marks a finding of the target that the snapshot has
	// too: this plan does not introduce it, although it may change it.
	AlreadyPresent bool `json:"already_present,omitempty"`
	// Before is the snapshot's message of an AlreadyPresent finding when
	// it differs from Message: the plan changes the finding (5 of 4 cards
	// becomes 6 of 4, or a warning becomes an error), so a view says
	// "already present before this plan, but this plan changes it".
	Before string `json:"before,omitempty"`
}

// key identifies a finding across two states (before and after a change),
// without the numbers in its message.
func (f Finding) key() string {
	return strings.Join([]string{f.Code, f.Object, f.Queue, f.Pool, f.Resource}, "|")
}

// locator finds where a value of an object is written: the desired.hcl
// range when the plan sets it, else the tenancy file's line.
type locator struct {
	set     map[string]Location
	origins map[string]*snapshot.Origin // "Kind/name" → origin
}

func newLocator(s *snapshot.State, set map[string]Location) *locator {
	l := &locator{set: set, origins: s.Origins()}
	return l
}

// at returns the location of the value at path in kind/name, or of the
// object when the value itself has no position (omitted, or a live read).
func (l *locator) at(kind, name, path string) []Location {
	if loc, ok := l.set[valueKey(kind, name, path)]; ok {
		return []Location{loc}
	}
	o := l.origins[kind+"/"+name]
	if o == nil {
		return nil
	}
	if p, ok := o.Values[path]; ok {
		return []Location{{File: o.File, Line: p.Line, Column: p.Column}}
	}
	return []Location{{File: o.File, Line: o.Line}}
}

// atFirst is at for the first of paths that is written somewhere (set in
// desired.hcl or positioned in a tenancy file), else for the last one: it
// points at an omitted value's neighbours rather than at the whole object.
func (l *locator) atFirst(kind, name string, paths ...string) []Location {
	o := l.origins[kind+"/"+name]
	for _, p := range paths {
		if _, ok := l.set[valueKey(kind, name, p)]; ok {
			return l.at(kind, name, p)
		}
		if o != nil {
			if _, ok := o.Values[p]; ok {
				return l.at(kind, name, p)
			}
		}
	}
	return l.at(kind, name, paths[len(paths)-1])
}

// owner is an object that holds queues.
type owner struct {
	kind   string
	name   string
	queues []snapshot.Queue
	parent string // projects only
	ident  string // kind + "/" + name, made at the first use (see id)
}

func newOwner(kind, name string, queues []snapshot.Queue, parent string) *owner {
	return &owner{kind: kind, name: name, queues: queues, parent: parent}
}

// id is "Kind/name". It is made once, when first asked: a finding may
// name its owner several times, and most owners have no finding.
func (o *owner) id() string {
	if o.ident == "" {
		o.ident = o.kind + "/" + o.name
	}
	return o.ident
}

// ownedQueue is one queue with its owner and index.
type ownedQueue struct {
	o *owner
	i int
	q *snapshot.Queue
}

// checker runs every check over one state.
type checker struct {
	s   *snapshot.State
	loc *locator
	// before is the state a plan starts from (s itself when a state is
	// checked as it is): new node pools are those of s that before lacks,
	// and the scheduler's live Queues are compared with before's numbers,
	// located by beforeLoc.
	before    *snapshot.State
	beforeLoc *locator
	out       []Finding
	pools     map[string]*snapshot.NodePool
	depts     map[string]*owner
	projs     []*owner
	// deptQueue maps department+"/"+pool to the department's queue there.
	deptQueue map[string]ownedQueue
	// children maps department+"/"+pool to its projects' queues there.
	children map[string][]ownedQueue
	// Filled by index: the node pools of s that before lacks; the queues at
	// the top of each pool (each department's queue there, then the project
	// queues whose department has none there); those project queues; and,
	// when the nodes were read, each pool's nodes and cards.
	newPools map[string]bool
	top      map[string][]ownedQueue
	orphans  []ownedQueue
	poolInfo map[string]*poolInfo
}

// Check runs every check on the state s and returns the findings sorted:
// errors, then warnings, then notes; within a level by pool, queue, object
// and code. set maps values the plan sets to their desired.hcl ranges (nil
// when checking a state as it is).
func Check(s *snapshot.State, set map[string]Location) []Finding {
	return CheckChange(s, s, set)
}

// CheckChange is Check on target, the state a plan reaches from before.
// The findings are those of target, except two that depend on where the
// plan starts: a node pool of target that before lacks is new (its nodes
// and the ManagedNodesConfig are checked), and the scheduler's live Queues
// are compared with before's numbers (the plan's own changes are not "not
// reconciled yet"). CheckChange(s, s, set) is Check(s, set).
func CheckChange(before, target *snapshot.State, set map[string]Location) []Finding {
	return runChecks(before, target, set, false)
}

// checkErrors is the error findings of Check(s, nil), in its order, made
// without running the checks that only warn or note: the verification of
// the steps looks at errors only, on many small states.
func checkErrors(s *snapshot.State) []Finding {
	return runChecks(s, s, nil, true)
}

// runChecks is CheckChange; with errorsOnly it runs only the checks of the
// catalogue that can make an error, and keeps only their errors.
func runChecks(before, target *snapshot.State, set map[string]Location, errorsOnly bool) []Finding {
	c := newChecker(target, set)
	c.before, c.beforeLoc = before, c.loc
	if before != target {
		c.beforeLoc = newLocator(before, nil)
	}
	c.index()
	for _, check := range checks {
		if !errorsOnly || check.errors {
			check.run(c)
		}
	}
	if errorsOnly {
		c.out = slices.DeleteFunc(c.out, func(f Finding) bool { return f.Level != LevelError })
	}
	c.out = dropNotesOnUnknownPools(c.out)
	sortFindings(c.out)
	return c.out
}

// dropNotesOnUnknownPools leaves out the notes about a queue on a node pool
// that does not exist (unassigned share, idle-share weight, the scheduler's
// Queue): KRM's webhook rejects the queue, which its unknown-pool error
// says, and notes about its numbers would only distract from that.
func dropNotesOnUnknownPools(fs []Finding) []Finding {
	bad := map[[2]string]bool{}
	for _, f := range fs {
		if f.Code == "unknown-pool" {
			bad[[2]string{f.Object, f.Queue}] = true
		}
	}
	if len(bad) == 0 {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Level == LevelNote && f.Queue != "" && bad[[2]string{f.Object, f.Queue}] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// check is one check of the catalogue. errors is set when it can make an
// error finding: checkErrors runs only those.
type check struct {
	run    func(*checker)
	errors bool
}

// checks is the catalogue, in no particular order (the output is sorted).
var checks = []check{
	{(*checker).checkNodePools, true},
	{(*checker).checkQueues, true},
	{(*checker).checkParents, true},
	{(*checker).checkQueueNames, true},
	{(*checker).checkNamespaces, true},
	{(*checker).checkProjectsFitDepartment, true},
	{(*checker).checkPoolCapacity, true},
	// checks_tenancy.go
	{(*checker).checkOmittedLimits, false},
	{(*checker).checkZeroWeights, false},
	{(*checker).checkUnassignedShare, false},
	{(*checker).checkProjectQueuesUnderDepartment, false},
	{(*checker).checkDefaultNodePools, true},
	{(*checker).checkQueueNameLength, false},
	{(*checker).checkNames, true},
	{(*checker).checkIgnoredSingletons, false},
	// checks_cluster.go
	{(*checker).checkPoolNodes, false},
	{(*checker).checkNewPools, false},
	{(*checker).checkProjectNamespaces, false},
	{(*checker).checkLiveQueues, false},
	{(*checker).checkGitOps, false}, // checks_gitops.go
}

func newChecker(s *snapshot.State, set map[string]Location) *checker {
	c := &checker{s: s, loc: newLocator(s, set), pools: map[string]*snapshot.NodePool{}, depts: map[string]*owner{},
		deptQueue: map[string]ownedQueue{}, children: map[string][]ownedQueue{}}
	for i := range s.NodePools {
		c.pools[s.NodePools[i].Metadata.Name] = &s.NodePools[i]
	}
	for i := range s.Departments {
		d := &s.Departments[i]
		o := newOwner(KindDepartment, d.Metadata.Name, d.Spec.Queues, "")
		c.depts[o.name] = o
		for qi := range d.Spec.Queues {
			k := o.name + "/" + d.Spec.Queues[qi].NodePool
			if _, dup := c.deptQueue[k]; !dup {
				c.deptQueue[k] = ownedQueue{o, qi, &d.Spec.Queues[qi]}
			}
		}
	}
	for i := range s.Projects {
		p := &s.Projects[i]
		o := newOwner(KindProject, p.Metadata.Name, p.Spec.Queues, p.Spec.Parent)
		c.projs = append(c.projs, o)
		for qi := range p.Spec.Queues {
			k := p.Spec.Parent + "/" + p.Spec.Queues[qi].NodePool
			c.children[k] = append(c.children[k], ownedQueue{o, qi, &p.Spec.Queues[qi]})
		}
	}
	return c
}

// index fills the derived data several checks share: new pools, the queues
// at the top of each pool, and the pools' nodes. Everything is a map or a
// single pass, so Check stays linear in the size of the state.
func (c *checker) index() {
	c.newPools = map[string]bool{}
	if c.before != c.s {
		old := map[string]bool{}
		for _, p := range c.before.NodePools {
			old[p.Metadata.Name] = true
		}
		for _, p := range c.s.NodePools {
			if !old[p.Metadata.Name] {
				c.newPools[p.Metadata.Name] = true
			}
		}
	}
	c.top = map[string][]ownedQueue{}
	for i := range c.s.Departments {
		d := &c.s.Departments[i]
		for qi := range d.Spec.Queues {
			dq := &d.Spec.Queues[qi]
			if oq := c.deptQueue[d.Metadata.Name+"/"+dq.NodePool]; oq.q == dq {
				c.top[dq.NodePool] = append(c.top[dq.NodePool], oq)
			}
		}
	}
	for _, p := range c.projs {
		if _, ok := c.depts[p.parent]; !ok {
			continue // unknown-parent
		}
		for qi := range p.queues {
			q := &p.queues[qi]
			if _, ok := c.deptQueue[p.parent+"/"+q.NodePool]; ok || !c.knownPool(q.NodePool) {
				continue
			}
			oq := ownedQueue{p, qi, q}
			c.orphans = append(c.orphans, oq)
			c.top[q.NodePool] = append(c.top[q.NodePool], oq)
		}
	}
	if c.s.Read(snapshot.SourceNodes) {
		c.indexNodes()
	}
}

// poolNames lists the node pools of the state by name, and "default" when a
// queue uses it without a NodePool object for it (it always exists).
func (c *checker) poolNames() []string {
	out := make([]string, 0, len(c.s.NodePools)+1)
	for _, p := range c.s.NodePools {
		out = append(out, p.Metadata.Name)
	}
	if _, listed := c.pools["default"]; !listed && len(c.top["default"]) > 0 {
		out = append(out, "default")
	}
	return out
}

// owners lists departments then projects, each by name.
func (c *checker) owners() []*owner {
	out := make([]*owner, 0, len(c.depts)+len(c.projs))
	for _, d := range c.s.Departments {
		out = append(out, c.depts[d.Metadata.Name])
	}
	return append(out, c.projs...)
}

func (c *checker) add(f Finding) { c.out = append(c.out, f) }

// value returns a quota field as KRM reads it: an omitted field is 0.
func value(q *snapshot.Queue, r quota.Resource, field string) (v quota.Value, omitted bool) {
	res := q.Resources.Get(r)
	if res == nil || *res.Field(field) == nil {
		return quota.Zero, true
	}
	return **res.Field(field), false
}

func (c *checker) fieldLoc(o *owner, qi int, r quota.Resource, field string) []Location {
	return c.loc.at(o.kind, o.name, resourcePath(qi, r, field))
}

// knownPool reports whether a node pool exists; "default" always does.
func (c *checker) knownPool(name string) bool {
	_, ok := c.pools[name]
	return ok || name == "default"
}

// checkNodePools: two pools on one label pair select the same nodes; KRM's
// webhook rejects the second.
func (c *checker) checkNodePools() {
	first := map[string]string{}
	for _, p := range c.s.NodePools {
		if p.Spec.LabelKey == "" && p.Spec.LabelValue == "" {
			continue
		}
		pair := p.Spec.LabelKey + "=" + p.Spec.LabelValue
		if prev, ok := first[pair]; ok {
			c.add(Finding{Code: "duplicate-label-pair", Level: LevelError, Object: KindNodePool + "/" + p.Metadata.Name, Pool: p.Metadata.Name,
				Message: fmt.Sprintf("node pools %s and %s both select the nodes labelled %s; KRM's webhook rejects a second pool on a label pair", prev, p.Metadata.Name, pair),
				Where:   c.loc.at(KindNodePool, p.Metadata.Name, "/spec/labelValue")})
			continue
		}
		first[pair] = p.Metadata.Name
	}
}

// checkQueues: per queue, an unknown pool, two queues on one pool in one
// object, negative values other than -1, a negative weight, and a
// guarantee above the queue's own limit.
func (c *checker) checkQueues() {
	for _, o := range c.owners() {
		seen := map[string]string{}
		for qi := range o.queues {
			q := &o.queues[qi]
			if !c.knownPool(q.NodePool) {
				c.add(Finding{Code: "unknown-pool", Level: LevelError, Object: o.id(), Queue: q.Name, Pool: q.NodePool,
					Message: fmt.Sprintf("%s: node pool %q does not exist; KRM's webhook rejects a queue on an unknown pool", q.Name, q.NodePool),
					Where:   c.loc.at(o.kind, o.name, queuePath(qi)+"/nodepool")})
			}
			if prev, dup := seen[q.NodePool]; dup {
				c.add(Finding{Code: "two-queues-one-pool", Level: LevelError, Object: o.id(), Queue: q.Name, Pool: q.NodePool,
					Message: fmt.Sprintf("%s %s has two queues on node pool %s (%s and %s); KRM's webhook rejects this", strings.ToLower(o.kind), o.name, q.NodePool, prev, q.Name),
					Where:   c.loc.at(o.kind, o.name, queuePath(qi)+"/nodepool")})
			}
			seen[q.NodePool] = q.Name
			for _, r := range quota.Resources {
				c.checkResource(o, qi, q, r)
			}
		}
	}
}

func (c *checker) checkResource(o *owner, qi int, q *snapshot.Queue, r quota.Resource) {
	// Made per finding: most queues have none.
	base := func() Finding { return Finding{Object: o.id(), Queue: q.Name, Pool: q.NodePool, Resource: string(r)} }
	bad := false
	for _, f := range snapshot.Fields {
		v, omitted := value(q, r, f)
		if omitted || !v.IsNegative() {
			continue
		}
		fd := base()
		fd.Level = LevelError
		switch {
		case f == snapshot.FieldOverQuotaWeight:
			fd.Code = "negative-weight"
			fd.Message = fmt.Sprintf("%s: %s overQuotaWeight is %s; a weight cannot be negative", q.Name, r, v)
		case !v.IsUnlimited():
			fd.Code = "negative-value"
			fd.Message = fmt.Sprintf("%s: %s %s is %s; the only negative value KRM understands is -1 (unlimited)", q.Name, r, f, v)
		default:
			continue
		}
		fd.Resource = string(r) + "." + f // one finding per field
		// Located only now: -1 is negative too, and most values are not
		// findings, so locating every one would cost more than the check.
		fd.Where = c.fieldLoc(o, qi, r, f)
		c.add(fd)
		bad = bad || f != snapshot.FieldOverQuotaWeight
	}
	if bad {
		return // the comparison below would only repeat the same number
	}
	deserved, _ := value(q, r, snapshot.FieldDeserved)
	limit, limitOmitted := value(q, r, snapshot.FieldLimit)
	if deserved.Cmp(limit) <= 0 {
		return
	}
	f := base()
	f.Code, f.Level = "deserved-over-limit", LevelError
	f.Where = append(c.fieldLoc(o, qi, r, snapshot.FieldDeserved), c.fieldLoc(o, qi, r, snapshot.FieldLimit)...)
	limitText := "its own limit of " + quota.Amount(r, limit)
	if limitOmitted {
		limitText = fmt.Sprintf("its own limit of 0 (the %s limit is omitted, and KRM reads an omitted limit as 0, a ceiling of zero, not as unconstrained; write -1 for no ceiling)", r)
	}
	if deserved.IsUnlimited() {
		f.Message = fmt.Sprintf("%s: the %s guarantee is unlimited (-1), above %s", q.Name, r, limitText)
	} else {
		f.Message = fmt.Sprintf("%s: the %s guarantee of %s is above %s — %s of it can never be used", q.Name, r, quota.Amount(r, deserved), limitText, quota.Amount(r, deserved.Sub(limit)))
	}
	c.add(f)
}

// checkParents: a project whose parent department does not exist; KRM's
// webhook rejects it.
func (c *checker) checkParents() {
	for _, p := range c.projs {
		if _, ok := c.depts[p.parent]; ok {
			continue
		}
		c.add(Finding{Code: "unknown-parent", Level: LevelError, Object: p.id(),
			Message: fmt.Sprintf("project %s: parent department %q does not exist; KRM's webhook rejects a project under an unknown department", p.name, p.parent),
			Where:   c.loc.at(KindProject, p.name, "/spec/parent")})
	}
}

// checkQueueNames: queue names are cluster-wide, so two objects naming the
// same queue would share one KAI Queue.
func (c *checker) checkQueueNames() {
	type use struct {
		o  *owner
		qi int
	}
	first := map[string]use{}
	for _, o := range c.owners() {
		for qi, q := range o.queues {
			prev, dup := first[q.Name]
			if !dup {
				first[q.Name] = use{o, qi}
				continue
			}
			var where string
			if prev.o == o {
				where = "the same " + strings.ToLower(o.kind)
			} else {
				where = strings.ToLower(prev.o.kind) + " " + prev.o.name
			}
			c.add(Finding{Code: "duplicate-queue-name", Level: LevelError, Object: o.id(), Queue: q.Name, Pool: q.NodePool,
				Message: fmt.Sprintf("%s: the queue name is also used by %s; queue names are cluster-wide, so both would share one queue", q.Name, where),
				Where:   append(c.loc.at(o.kind, o.name, queuePath(qi)+"/name"), c.loc.at(prev.o.kind, prev.o.name, queuePath(prev.qi)+"/name")...)})
		}
	}
}

// checkNamespaces: a namespace belongs to one project.
func (c *checker) checkNamespaces() {
	first := map[string]string{}
	for i := range c.s.Projects {
		p := &c.s.Projects[i]
		ns := p.NamespaceName()
		if prev, dup := first[ns]; dup {
			c.add(Finding{Code: "shared-namespace", Level: LevelError, Object: KindProject + "/" + p.Metadata.Name,
				Message: fmt.Sprintf("project %s: namespace %s is already the namespace of project %s; a namespace belongs to one project", p.Metadata.Name, ns, prev),
				Where:   c.loc.at(KindProject, p.Metadata.Name, "/spec/namespace")})
			continue
		}
		first[ns] = p.Metadata.Name
	}
}

// checkProjectsFitDepartment: per department queue and resource, the sum of
// the projects' guarantees on that pool must fit in the department's.
// KRM accepts more; KAI's scheduler then cannot give every project its
// guarantee when the department is busy.
func (c *checker) checkProjectsFitDepartment() {
	for _, d := range c.s.Departments {
		dept := c.depts[d.Metadata.Name]
		for qi := range d.Spec.Queues {
			dq := &d.Spec.Queues[qi]
			kids := c.children[d.Metadata.Name+"/"+dq.NodePool]
			if c.deptQueue[d.Metadata.Name+"/"+dq.NodePool].q != dq || len(kids) == 0 {
				continue // a second queue on the pool is its own error
			}
			for _, r := range quota.Resources {
				c.fitDepartment(dept, qi, dq, kids, r)
			}
		}
	}
}

func (c *checker) fitDepartment(dept *owner, qi int, dq *snapshot.Queue, kids []ownedQueue, r quota.Resource) {
	have, _ := value(dq, r, snapshot.FieldDeserved)
	if have.IsUnlimited() {
		return
	}
	base := Finding{Level: LevelError, Object: dept.id(), Queue: dq.Name, Pool: dq.NodePool, Resource: string(r)}
	sum := quota.Zero
	for _, k := range kids {
		v, _ := value(k.q, r, snapshot.FieldDeserved)
		if v.IsNegative() && !v.IsUnlimited() {
			continue // reported as negative-value; it must not shrink the sum
		}
		if v.IsUnlimited() {
			f := base
			f.Code = "unlimited-under-finite"
			f.Object, f.Queue = k.o.id(), k.q.Name
			f.Message = fmt.Sprintf("%s: the %s guarantee is unlimited (-1), but department queue %s only has %s to share", k.q.Name, r, dq.Name, quota.Amount(r, have))
			f.Where = append(c.fieldLoc(k.o, k.i, r, snapshot.FieldDeserved), c.fieldLoc(dept, qi, r, snapshot.FieldDeserved)...)
			c.add(f)
			return
		}
		sum = sum.Add(v)
	}
	if sum.Cmp(have) <= 0 {
		return
	}
	f := base
	f.Code = "projects-over-department"
	f.Message = fmt.Sprintf("%s: the projects are guaranteed %s in total, but the department only has %s — %s of those guarantees cannot be met",
		dq.Name, quota.Amount(r, sum), quota.Amount(r, have), quota.Amount(r, sum.Sub(have)))
	f.Where = append(c.fieldLoc(dept, qi, r, snapshot.FieldDeserved), c.guaranteesLoc(kids, r)...)
	c.add(f)
}

// guaranteesLoc locates the guarantees of r that a sum over queues counts:
// each one that is neither 0 nor a negative other than -1. The sums locate
// their members only once they make a finding, since locating costs more
// than adding.
func (c *checker) guaranteesLoc(qs []ownedQueue, r quota.Resource) []Location {
	var where []Location
	for _, k := range qs {
		if v, _ := value(k.q, r, snapshot.FieldDeserved); !v.IsZero() && !badNegative(v) {
			where = append(where, c.fieldLoc(k.o, k.i, r, snapshot.FieldDeserved)...)
		}
	}
	return where
}

// checkPoolCapacity compares the departments' gpu guarantees on each pool
// with the pool's cards, when the nodes were read; without them it notes,
// per pool, that the card count is unknown (the comparison, the
// schedulable cards and a new pool's nodes were not checked).
func (c *checker) checkPoolCapacity() {
	if !c.s.Read(snapshot.SourceNodes) {
		reason := c.notReadReason(snapshot.SourceNodes)
		for _, name := range c.poolNames() {
			msg := fmt.Sprintf("node pool %s: the card count is unknown (nodes not read: %s), so the departments' guarantees were not compared with the pool's cards", name, reason)
			if p := c.pools[name]; c.newPools[name] && p != nil {
				msg += fmt.Sprintf(", and whether any node carries %s=%s was not checked", p.Spec.LabelKey, p.Spec.LabelValue)
			}
			c.add(Finding{Code: "pool-cards-unknown", Level: LevelNote, Object: KindNodePool + "/" + name, Pool: name, Message: msg})
		}
		return
	}
	for _, name := range c.poolNames() {
		c.poolOverCapacity(name)
	}
}

// notReadReason joins the reasons why the source what was not read.
func (c *checker) notReadReason(what string) string {
	var reasons []string
	for _, n := range c.s.NotRead {
		if n.What == what {
			reasons = append(reasons, n.Reason)
		}
	}
	return strings.Join(reasons, "; ")
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Level != b.Level {
			return a.Level.rank() < b.Level.rank()
		}
		if a.Pool != b.Pool {
			return a.Pool < b.Pool
		}
		if a.Queue != b.Queue {
			return a.Queue < b.Queue
		}
		if a.Object != b.Object {
			return a.Object < b.Object
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}
