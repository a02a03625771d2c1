package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/planner/capacity"
	"github.com/krmplan/krmplan/planner/locate"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Level is how serious a finding is: diag's severity, the one type of the
// levels of findings and HCL problems. Errors block render; warnings and
// notes never change the exit code.
type Level = diag.Severity

// The finding levels, most serious first.
const (
	LevelError   = diag.Error
	LevelWarning = diag.Warning
	LevelNote    = diag.Note
)

// Finding is one result of the checks.
type Finding struct {
	Code  Code // stable, e.g. "projects-over-department" (Codes)
	Level Level
	// Object is the object the finding is about (the zero address for
	// none), Queue the queue name and Pool the node pool, where they apply.
	Object   tenancy.ObjectAddr
	Queue    string
	Pool     string
	Resource string
	Message  string
	// Where lists the values that cause the finding: lines of the tenancy
	// files, or ranges of desired.hcl for values the plan sets.
	Where []tenancy.Location
	// AlreadyPresent marks a finding of the target that the snapshot has
	// too: this plan does not introduce it, although it may change it.
	AlreadyPresent bool
	// Before is the snapshot's message of an AlreadyPresent finding when
	// it differs from Message: the plan changes the finding (5 of 4 cards
	// becomes 6 of 4, or a warning becomes an error), so a view says
	// "already present before this plan, but this plan changes it".
	Before string
}

// findingKey identifies a finding across two states (before and after a
// change), without the numbers in its message.
type findingKey struct {
	code                  Code
	object                tenancy.ObjectAddr
	queue, pool, resource string
}

func (f Finding) key() findingKey { return findingKey{f.Code, f.Object, f.Queue, f.Pool, f.Resource} }

// owner is an object that holds queues.
type owner struct {
	addr   tenancy.ObjectAddr
	queues []tenancy.Queue
	parent string // projects only
	// names are the KAI Queue names of the queues (tenancy.QueueName), made
	// only when a queue has no name of its own: nil means each is its Name.
	names []string
}

func newOwner(kind tenancy.Kind, name string, queues []tenancy.Queue, parent string) *owner {
	return new(owner).init(kind, name, queues, parent)
}

// init makes o the owner newOwner makes, and returns it.
func (o *owner) init(kind tenancy.Kind, name string, queues []tenancy.Queue, parent string) *owner {
	*o = owner{addr: kind.Object(name), queues: queues, parent: parent}
	for i := range queues {
		if queues[i].Name == "" {
			o.names = make([]string, len(queues))
			for j := range queues {
				o.names[j] = queues[j].KAIName(name)
			}
			break
		}
	}
	return o
}

// name is the KAI Queue name of the owner's qi-th queue: the one the
// findings name it by, and the live Queues are matched by.
func (o *owner) name(qi int) string {
	if o.names == nil {
		return o.queues[qi].Name
	}
	return o.names[qi]
}

// prevOnPool is the name of the owner's last queue before the qi-th on
// the qi-th's node pool, if any (an object has a handful of queues: a scan
// costs less than a map per object).
func (o *owner) prevOnPool(qi int) (string, bool) {
	for j := qi - 1; j >= 0; j-- {
		if o.queues[j].NodePool == o.queues[qi].NodePool {
			return o.name(j), true
		}
	}
	return "", false
}

// name is the KAI Queue name of the queue.
func (k ownedQueue) name() string { return k.o.name(k.i) }

// field is the address of field f of the owner's qi-th queue.
func (o *owner) field(qi int, f tenancy.Field) tenancy.FieldAddr { return o.addr.Queue(qi).Field(f) }

// onPool names a department's or a project's place on a node pool.
type onPool struct{ owner, pool string }

// kidSum is a sum of finite guarantees, and whether an unlimited one was
// left out.
type kidSum struct {
	sum       quota.Value
	unlimited bool
}

// ownedQueue is one queue with its owner and index.
type ownedQueue struct {
	o *owner
	i int
	q *tenancy.Queue
}

// checker runs every check over one state.
type checker struct {
	s   *snapshot.State
	x   *tenancy.Index // s's objects
	loc *locate.Locator
	// before is the state a plan starts from (s itself when a state is
	// checked as it is): new node pools are those of s that before lacks,
	// and the scheduler's live Queues are compared with before's numbers,
	// located by beforeLoc.
	before    *snapshot.State
	bx        *tenancy.Index // before's objects
	beforeLoc *locate.Locator
	// changes are the plan's changes (nil for a state checked as it is):
	// the removals' checks read their destroys.
	changes []tenancy.Change
	sh      *shared // what it shares with the checks of other states of one plan
	out     []Finding
	depts   map[string]*owner
	projs   []*owner
	// deptQueue maps a department and a pool to the department's queue
	// there (the first, when it has two).
	deptQueue map[onPool]ownedQueue
	// children maps a department and a pool to its projects' queues there.
	children map[onPool][]ownedQueue
	// Filled by index: the node pools of s that before lacks; the queues at
	// the top of each pool (each department's queue there, then the queues
	// of root projects, which have no department, and the project queues
	// whose department has none there); those last project queues
	// (orphans); and, when the nodes were read, each pool's nodes and cards.
	newPools  map[string]bool
	top       map[string][]ownedQueue
	orphans   []ownedQueue
	caps      map[string]*capacity.Pool     // nil when the nodes were not read
	ownerList []*owner                      // owners, once made
	kidSums   map[*tenancy.Queue]*[3]kidSum // kidsDeserved's, by department queue
	// pools, when not nil, are the only node pools whose cards are
	// compared with their guarantees (sh.errorsIn).
	pools map[string]bool
	// slips is checkUnitSlips' buffer, reused from group to group.
	slips []slipEntry
}

// Check runs every check on the state s and returns the findings sorted:
// errors, then warnings, then notes; within a level by pool, queue, object
// and code. set maps values the plan sets to their desired.hcl ranges (nil
// when checking a state as it is).
func Check(s *snapshot.State, set config.Ranges) []Finding {
	return CheckChange(s, s, set)
}

// CheckChange is Check on target, the state a plan reaches from before.
// The findings are those of target, except two that depend on where the
// plan starts: a node pool of target that before lacks is new (its nodes
// and the ManagedNodesConfig are checked), and the scheduler's live Queues
// are compared with before's numbers (the plan's own changes are not "not
// reconciled yet"). CheckChange(s, s, set) is Check(s, set).
func CheckChange(before, target *snapshot.State, set config.Ranges) []Finding {
	bx, tx := tenancy.NewIndex(&before.Tenancy), (*tenancy.Index)(nil)
	if tx = bx; target != before {
		tx = tenancy.NewIndex(&target.Tenancy)
	}
	return runChecks(before, target, bx, tx, set, nil, false)
}

// checkErrors is the error findings of Check(s, nil), in its order, made
// without running the checks that only warn or note: the verification of
// the steps looks at errors only, on many small states.
func checkErrors(s *snapshot.State) []Finding { return newShared(s).errors(s) }

// errors is checkErrors of s, a state with sh's cluster data.
func (sh *shared) errors(s *snapshot.State) []Finding { return sh.errorsIn(s, nil) }

// errorsIn is errors with the cards compared only of the node pools in
// pools (all when nil): a step's scope compares those of its closure
// (scope.Scope.Pools), whose nodes it holds; on its other pools the step
// raises no guarantee at the top, so it cannot add pool-over-capacity there.
func (sh *shared) errorsIn(s *snapshot.State, pools map[string]bool) []Finding {
	x := tenancy.NewIndex(&s.Tenancy)
	c := newChecker(s, x, nil)
	c.before, c.bx, c.beforeLoc, c.sh, c.pools = s, x, c.loc, sh, pools
	return c.run(true)
}

// runChecks is CheckChange with the states' indexes (bx of before's
// tenancy, tx of target's) and the plan's changes (whose removals are
// checked; nil for none); with errorsOnly it runs only the checks of the
// catalogue that can make an error, and keeps only their errors.
func runChecks(before, target *snapshot.State, bx, tx *tenancy.Index, set config.Ranges, changes []tenancy.Change, errorsOnly bool) []Finding {
	return newShared(target).run(before, target, bx, tx, set, changes, errorsOnly)
}

// run is runChecks with what the checks of the states of one plan share,
// sh, made from a state with target's cluster data.
func (sh *shared) run(before, target *snapshot.State, bx, tx *tenancy.Index, set config.Ranges, changes []tenancy.Change, errorsOnly bool) []Finding {
	c := newChecker(target, tx, set)
	c.before, c.bx, c.beforeLoc, c.changes, c.sh = before, bx, c.loc, changes, sh
	if before != target {
		c.beforeLoc = &locate.Locator{X: bx}
	}
	return c.run(errorsOnly)
}

// run runs the catalogue on c's state, with errorsOnly only the checks
// that can make an error, keeping only their errors, and sorts.
func (c *checker) run(errorsOnly bool) []Finding {
	c.index()
	for _, check := range checks {
		if c.sh.abandon.Load() {
			return nil // unwanted (pending.stop)
		}
		if !errorsOnly || check.errors {
			check.run(c)
		}
	}
	if c.changes != nil {
		c.checkRemovals()
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
	type queueOf struct {
		object tenancy.ObjectAddr
		queue  string
	}
	bad := map[queueOf]bool{}
	for _, f := range fs {
		if f.Code == CodeUnknownPool {
			bad[queueOf{f.Object, f.Queue}] = true
		}
	}
	if len(bad) == 0 {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Level == LevelNote && f.Queue != "" && bad[queueOf{f.Object, f.Queue}] {
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
	// checks_advice.go
	{(*checker).checkUnitSlips, false},
	{(*checker).checkPriorityWithoutGuarantee, false},
	// checks_cluster.go
	{(*checker).checkPoolNodes, false},
	{(*checker).checkNewPools, false},
	{(*checker).checkProjectNamespaces, false},
	{(*checker).checkLiveQueues, false},
	{(*checker).checkGitOps, false}, // package gitops
}

func newChecker(s *snapshot.State, x *tenancy.Index, set config.Ranges) *checker {
	nd := len(s.Departments)
	c := &checker{s: s, x: x, loc: &locate.Locator{Set: set, X: x}, depts: make(map[string]*owner, nd),
		deptQueue: make(map[onPool]ownedQueue, 2*nd), children: make(map[onPool][]ownedQueue, 2*nd), kidSums: make(map[*tenancy.Queue]*[3]kidSum, 2*nd),
		projs: make([]*owner, 0, len(s.Projects))}
	all := make([]owner, nd+len(s.Projects)) // one allocation for every owner
	for i := range s.Departments {
		d := &s.Departments[i]
		o := all[i].init(tenancy.KindDepartment, d.Metadata.Name, d.Spec.Queues, "")
		c.depts[o.addr.Name] = o
		for qi := range d.Spec.Queues {
			k := onPool{o.addr.Name, d.Spec.Queues[qi].NodePool}
			if _, dup := c.deptQueue[k]; !dup {
				c.deptQueue[k] = ownedQueue{o, qi, &d.Spec.Queues[qi]}
			}
		}
	}
	for i := range s.Projects {
		p := &s.Projects[i]
		o := all[nd+i].init(tenancy.KindProject, p.Metadata.Name, p.Spec.Queues, p.Spec.Parent)
		c.projs = append(c.projs, o)
		for qi := range p.Spec.Queues {
			k := onPool{p.Spec.Parent, p.Spec.Queues[qi].NodePool}
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
			if oq := c.deptQueue[onPool{d.Metadata.Name, dq.NodePool}]; oq.q == dq {
				c.top[dq.NodePool] = append(c.top[dq.NodePool], oq)
			}
		}
	}
	for _, p := range c.projs {
		root := p.parent == ""
		if _, ok := c.depts[p.parent]; !ok && !root {
			continue // unknown-parent
		}
		for qi := range p.queues {
			q := &p.queues[qi]
			if _, ok := c.deptQueue[onPool{p.parent, q.NodePool}]; ok || !c.knownPool(q.NodePool) {
				continue
			}
			oq := ownedQueue{p, qi, q}
			if !root {
				c.orphans = append(c.orphans, oq) // project-outside-department
			}
			c.top[q.NodePool] = append(c.top[q.NodePool], oq)
		}
	}
	c.caps = c.sh.nodes.PoolsOf(c.s, c.pools)
}

// poolNames lists the node pools of the state by name, and "default" when a
// queue uses it without a NodePool object for it (it always exists).
func (c *checker) poolNames() []string {
	out := make([]string, 0, len(c.s.NodePools)+1)
	for _, p := range c.s.NodePools {
		out = append(out, p.Metadata.Name)
	}
	if c.x.NodePool("default") == nil && len(c.top["default"]) > 0 {
		out = append(out, "default")
	}
	return out
}

// owners lists departments then projects, each by name: made once, by
// the first check that walks them (the checks only read it).
func (c *checker) owners() []*owner {
	if c.ownerList != nil {
		return c.ownerList
	}
	out := make([]*owner, 0, len(c.depts)+len(c.projs))
	for _, d := range c.s.Departments {
		out = append(out, c.depts[d.Metadata.Name])
	}
	c.ownerList = append(out, c.projs...)
	return c.ownerList
}

func (c *checker) add(f Finding) { c.out = append(c.out, f) }

// value returns a quota field as KRM reads it: an omitted field is 0.
func value(q *tenancy.Queue, r quota.Resource, field tenancy.QuotaField) (v quota.Value, omitted bool) {
	res := q.Resources.Get(r)
	if res == nil || *res.Slot(field) == nil {
		return quota.Zero, true
	}
	return **res.Slot(field), false
}

func (c *checker) fieldLoc(o *owner, qi int, r quota.Resource, field tenancy.QuotaField) []tenancy.Location {
	return c.loc.At(o.field(qi, tenancy.QuotaFieldOf(r, field)))
}

// suggestion is `; did you mean "x"?` for the name of names nearest to
// name, or "" when none is near.
func suggestion(name string, names []string) string {
	if dym := nearname.DidYouMean(name, names); dym != "" {
		return "; " + dym
	}
	return ""
}

// poolSuggestion is the suggestion for an unknown node pool: the nearest
// of the state's pools and "default"; or, when the name is a queue's,
// what that queue is (a queue label is the node pool, not the queue).
func (c *checker) poolSuggestion(name string) string {
	for _, o := range c.owners() {
		for qi, q := range o.queues {
			if o.name(qi) == name && q.NodePool != name {
				return fmt.Sprintf("; %q is the queue of %s %s on node pool %q: the label of a queue block is its node pool",
					name, strings.ToLower(o.addr.Kind.String()), o.addr.Name, q.NodePool)
			}
		}
	}
	return suggestion(name, append(c.x.Names(tenancy.KindNodePool), "default"))
}

// knownPool reports whether a node pool exists; "default" always does.
func (c *checker) knownPool(name string) bool {
	return name == "default" || c.x.NodePool(name) != nil
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
			c.add(Finding{Code: CodeDuplicateLabelPair, Level: LevelError, Object: tenancy.KindNodePool.Object(p.Metadata.Name), Pool: p.Metadata.Name,
				Message: fmt.Sprintf("node pools %s and %s both select the nodes labelled %s; KRM's webhook rejects a second pool on a label pair", prev, p.Metadata.Name, pair),
				Where:   c.loc.At(tenancy.KindNodePool.Object(p.Metadata.Name).Field(tenancy.FieldLabelValue))})
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
		for qi := range o.queues {
			q, name := &o.queues[qi], o.name(qi)
			if !c.knownPool(q.NodePool) {
				c.add(Finding{Code: CodeUnknownPool, Level: LevelError, Object: o.addr, Queue: name, Pool: q.NodePool,
					Message: fmt.Sprintf("%s: node pool %q does not exist; KRM's webhook rejects a queue on an unknown pool", name, q.NodePool) + c.poolSuggestion(q.NodePool),
					Where:   c.loc.At(o.field(qi, tenancy.FieldQueueNodePool))})
			}
			if prev, dup := o.prevOnPool(qi); dup {
				c.add(Finding{Code: CodeTwoQueuesOnePool, Level: LevelError, Object: o.addr, Queue: name, Pool: q.NodePool,
					Message: fmt.Sprintf("%s %s has two queues on node pool %s (%s and %s); KRM's webhook rejects this", strings.ToLower(o.addr.Kind.String()), o.addr.Name, q.NodePool, prev, name),
					Where:   c.loc.At(o.field(qi, tenancy.FieldQueueNodePool))})
			}
			for _, r := range quota.Resources {
				c.checkResource(o, qi, q, r)
			}
		}
	}
}

func (c *checker) checkResource(o *owner, qi int, q *tenancy.Queue, r quota.Resource) {
	// Made per finding: most queues have none.
	name := o.name(qi)
	base := func() Finding { return Finding{Object: o.addr, Queue: name, Pool: q.NodePool, Resource: string(r)} }
	bad := false
	for _, f := range tenancy.QuotaFields {
		v, omitted := value(q, r, f)
		if omitted || !v.IsNegative() {
			continue
		}
		fd := base()
		fd.Level = LevelError
		switch {
		case f == tenancy.OverQuotaWeight:
			fd.Code = CodeNegativeWeight
			fd.Message = fmt.Sprintf("%s: %s overQuotaWeight is %s; a weight cannot be negative", name, r, v)
		case !v.IsUnlimited():
			fd.Code = CodeNegativeValue
			fd.Message = fmt.Sprintf("%s: %s %s is %s; the only negative value KRM understands is -1 (unlimited)", name, r, f, v)
		default:
			continue
		}
		fd.Resource = string(r) + "." + f.String() // one finding per field
		// Located only now: -1 is negative too, and most values are not
		// findings, so locating every one would cost more than the check.
		fd.Where = c.fieldLoc(o, qi, r, f)
		c.add(fd)
		bad = bad || f != tenancy.OverQuotaWeight
	}
	if bad {
		return // the comparison below would only repeat the same number
	}
	deserved, _ := value(q, r, tenancy.Deserved)
	limit, limitOmitted := value(q, r, tenancy.Limit)
	if deserved.Cmp(limit) <= 0 {
		return
	}
	f := base()
	f.Code, f.Level = CodeDeservedOverLimit, LevelError
	f.Where = append(c.fieldLoc(o, qi, r, tenancy.Deserved), c.fieldLoc(o, qi, r, tenancy.Limit)...)
	limitText := "its own limit of " + quota.Amount(r, limit)
	if limitOmitted {
		limitText = fmt.Sprintf("its own limit of 0 (the %s limit is omitted, and KRM reads an omitted limit as 0, a ceiling of zero, not as unconstrained; write -1 for no ceiling)", r)
	}
	if deserved.IsUnlimited() {
		f.Message = fmt.Sprintf("%s: the %s guarantee is unlimited (-1), above %s", name, r, limitText)
	} else {
		f.Message = fmt.Sprintf("%s: the %s guarantee of %s is above %s — %s of it can never be used", name, r, quota.Amount(r, deserved), limitText, quota.Amount(r, deserved.Sub(limit)))
	}
	c.add(f)
}

// checkParents: a project whose parent department does not exist; KRM's
// webhook rejects it. A project without a parent (spec.parent absent or
// "") is valid: a root project, whose queues are root queues beside the
// departments (krm-facts 4).
func (c *checker) checkParents() {
	for _, p := range c.projs {
		if _, ok := c.depts[p.parent]; ok || p.parent == "" {
			continue
		}
		c.add(Finding{Code: CodeUnknownParent, Level: LevelError, Object: p.addr,
			Message: fmt.Sprintf("project %s: parent department %q does not exist; KRM's webhook rejects a project under an unknown department", p.addr.Name, p.parent) +
				suggestion(p.parent, c.x.Names(tenancy.KindDepartment)),
			Where: c.loc.At(tenancy.KindProject.Object(p.addr.Name).Field(tenancy.FieldParent))})
	}
}

// checkQueueNames: KAI Queue names are cluster-wide, and two queue entries
// (of two objects, or of one) cannot both have a Queue of one name. The
// name is the entry's, or the one KRM derives for an entry without a name
// (tenancy.QueueName), so <owner>-<pool> can collide with a name written
// elsewhere. KRM does not share the Queue: it creates the Queue of the
// entry it reconciles first, and gives the other one the name with "-" and
// 4 random characters (krm-facts 3), which nothing in the spec predicts.
// Within one object there is no suffix: KRM finds its own Queue of that
// name by name and writes both entries to it.
func (c *checker) checkQueueNames() {
	type use struct {
		o  *owner
		qi int
	}
	first := make(map[string]use, len(c.s.Departments)+len(c.s.Projects)) // about one queue per object, or more
	for _, o := range c.owners() {
		for qi, q := range o.queues {
			name := o.name(qi)
			prev, dup := first[name]
			if !dup {
				first[name] = use{o, qi}
				continue
			}
			var where string
			if prev.o == o {
				where = "the same " + strings.ToLower(o.addr.Kind.String())
			} else {
				where = strings.ToLower(prev.o.addr.Kind.String()) + " " + prev.o.addr.Name
			}
			var derived []string
			for _, u := range []use{prev, {o, qi}} {
				if uq := &u.o.queues[u.qi]; uq.Name == "" {
					derived = append(derived, fmt.Sprintf("%s %s's queue on %s has no name, so KRM names it %s", strings.ToLower(u.o.addr.Kind.String()), u.o.addr.Name, uq.NodePool, name))
				}
			}
			why := ""
			if len(derived) > 0 {
				why = " (" + strings.Join(derived, "; ") + ")"
			}
			what := fmt.Sprintf("queue names are cluster-wide and KRM does not share a Queue: the entry it reconciles second gets the name with a random suffix (%s-xxxx)", name)
			if prev.o == o {
				// KRM suffixes a name only when another object's Queue has
				// it; its own Queue of that name is found by name and reused.
				what = "KRM adds no suffix within one object (it suffixes a name only when another object's Queue has it), so both entries would be written to one Queue, each reconcile overwriting the other's"
			}
			c.add(Finding{Code: CodeDuplicateQueueName, Level: LevelError, Object: o.addr, Queue: name, Pool: q.NodePool,
				Message: fmt.Sprintf("%s: the queue name is also used by %s%s; %s", name, where, why, what),
				Where:   append(c.loc.At(o.field(qi, tenancy.FieldQueueName)), c.loc.At(prev.o.field(prev.qi, tenancy.FieldQueueName))...)})
		}
	}
}

// checkNamespaces: a namespace belongs to one project.
func (c *checker) checkNamespaces() {
	first := make(map[string]string, len(c.s.Projects))
	for i := range c.s.Projects {
		p := &c.s.Projects[i]
		ns := p.NamespaceName(c.s.KRMConfig.NamePrefix())
		if prev, dup := first[ns]; dup {
			c.add(Finding{Code: CodeSharedNamespace, Level: LevelError, Object: tenancy.KindProject.Object(p.Metadata.Name),
				Message: fmt.Sprintf("project %s: namespace %s is already the namespace of project %s; a namespace belongs to one project", p.Metadata.Name, ns, prev),
				Where:   c.loc.At(tenancy.KindProject.Object(p.Metadata.Name).Field(tenancy.FieldNamespace))})
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
			kids := c.children[onPool{d.Metadata.Name, dq.NodePool}]
			if c.deptQueue[onPool{d.Metadata.Name, dq.NodePool}].q != dq || len(kids) == 0 {
				continue // a second queue on the pool is its own error
			}
			for _, r := range quota.Resources {
				c.fitDepartment(dept, qi, dq, kids, r)
			}
		}
	}
}

// fitDepartment compares the projects' guarantees of r on one pool with
// their department's. Each unlimited (-1) project guarantee under a finite
// department is its own unlimited-under-finite error, so every one is
// named; the sum is then unlimited and not compared. A department
// guarantee that is negative (and not -1) is negative-value's alone: no
// arithmetic is done on it.
func (c *checker) fitDepartment(dept *owner, qi int, dq *tenancy.Queue, kids []ownedQueue, r quota.Resource) {
	have, _ := value(dq, r, tenancy.Deserved)
	if have.IsNegative() {
		return // unlimited holds anything; another negative is negative-value
	}
	dname := dept.name(qi)
	base := Finding{Level: LevelError, Object: dept.addr, Queue: dname, Pool: dq.NodePool, Resource: string(r)}
	sum, unlimited := c.kidsDeserved(dq, kids, r)
	for _, k := range kids {
		if v, _ := value(k.q, r, tenancy.Deserved); unlimited && v.IsUnlimited() {
			f := base
			f.Code = CodeUnlimitedUnderFinite
			f.Object, f.Queue = k.o.addr, k.name()
			f.Message = fmt.Sprintf("%s: the %s guarantee is unlimited (-1), but department queue %s only has %s to share", k.name(), r, dname, quota.Amount(r, have))
			f.Where = append(c.fieldLoc(k.o, k.i, r, tenancy.Deserved), c.fieldLoc(dept, qi, r, tenancy.Deserved)...)
			c.add(f)
		}
	}
	if unlimited || sum.Cmp(have) <= 0 {
		return
	}
	f := base
	f.Code = CodeProjectsOverDepartment
	f.Message = fmt.Sprintf("%s: the projects are guaranteed %s in total, but the department only has %s — %s of those guarantees cannot be met",
		dname, quota.Amount(r, sum), quota.Amount(r, have), quota.Amount(r, sum.Sub(have)))
	f.Where = append(c.fieldLoc(dept, qi, r, tenancy.Deserved), c.guaranteesLoc(kids, r)...)
	c.add(f)
}

// kidsDeserved is the sum of the guarantees of r of kids, the projects'
// queues under dq, without a -1 or another negative (-1 is unlimited: say
// whether one is there), summed once for projects-over-department and
// unassigned-share.
func (c *checker) kidsDeserved(dq *tenancy.Queue, kids []ownedQueue, r quota.Resource) (quota.Value, bool) {
	ri := slices.Index(quota.Resources, r)
	s, ok := c.kidSums[dq]
	if !ok {
		s = new([3]kidSum)
		for _, k := range kids {
			for i, r := range quota.Resources {
				if v, _ := value(k.q, r, tenancy.Deserved); !v.IsNegative() {
					s[i].sum = s[i].sum.Plus(v) // of finite values: Add without its tests
				} else if v.IsUnlimited() {
					s[i].unlimited = true
				}
			}
		}
		c.kidSums[dq] = s
	}
	return s[ri].sum, s[ri].unlimited
}

// guaranteesLoc locates the guarantees of r that a sum over queues counts:
// each one that is neither 0 nor a negative other than -1. The sums locate
// their members only once they make a finding, since locating costs more
// than adding.
func (c *checker) guaranteesLoc(qs []ownedQueue, r quota.Resource) []tenancy.Location {
	var where []tenancy.Location
	for _, k := range qs {
		if v, _ := value(k.q, r, tenancy.Deserved); !v.IsZero() && !badNegative(v) {
			where = append(where, c.fieldLoc(k.o, k.i, r, tenancy.Deserved)...)
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
			msg := fmt.Sprintf("node pool %s: the card count is unknown (nodes not read: %s), so the guarantees of the departments and of the project queues outside a department were not compared with the pool's cards", name, reason)
			if p := c.x.NodePool(name); c.newPools[name] && p != nil {
				msg += fmt.Sprintf(", and whether any node carries %s=%s was not checked", p.Spec.LabelKey, p.Spec.LabelValue)
			}
			c.add(Finding{Code: CodePoolCardsUnknown, Level: LevelNote, Object: tenancy.KindNodePool.Object(name), Pool: name, Message: msg})
		}
		return
	}
	for _, name := range c.poolNames() {
		if c.pools == nil || c.pools[name] {
			c.poolOverCapacity(name)
		}
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
			return a.Level.Rank() < b.Level.Rank()
		}
		if a.Pool != b.Pool {
			return a.Pool < b.Pool
		}
		if a.Queue != b.Queue {
			return a.Queue < b.Queue
		}
		if a.Object != b.Object {
			return a.Object.Compare(b.Object) < 0
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}
