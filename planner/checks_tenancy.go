package planner

// The checks of the catalogue that need only the tenancy objects (node
// pools, departments, projects): omitted fields, idle-share weights,
// unassigned department share, project queues against their department,
// defaultNodePools and queue-name length. KRM accepts all of these; the
// docstrings say what KAI's scheduler then does.

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
	"k8s.io/apimachinery/pkg/util/validation"
)

// maxQueueName is the longest queue name KRM keeps as written; a longer
// name gets a random suffix on the scheduler's Queue.
const maxQueueName = 58

// ownersOf lists the departments then the projects of s, each by name.
func ownersOf(s *snapshot.State) []*owner {
	out := make([]*owner, 0, len(s.Departments)+len(s.Projects))
	for _, d := range s.Departments {
		out = append(out, newOwner(tenancy.KindDepartment, d.Metadata.Name, d.Spec.Queues, ""))
	}
	for _, p := range s.Projects {
		out = append(out, newOwner(tenancy.KindProject, p.Metadata.Name, p.Spec.Queues, p.Spec.Parent))
	}
	return out
}

// badNegative reports a negative value other than -1: negative-value
// reports it, and no other comparison should repeat it.
func badNegative(v quota.Value) bool { return v.IsNegative() && !v.IsUnlimited() }

// resourceLoc points at a queue's resource block: its first written
// field, else the queue's name.
func (c *checker) resourceLoc(o *owner, qi int, r quota.Resource) []tenancy.Location {
	return c.loc.AtFirst(o.field(qi, tenancy.QuotaFieldOf(r, tenancy.Limit)), o.field(qi, tenancy.QuotaFieldOf(r, tenancy.Deserved)),
		o.field(qi, tenancy.QuotaFieldOf(r, tenancy.OverQuotaWeight)), o.field(qi, tenancy.FieldQueueName))
}

// checkOmittedLimits warns about an omitted cpu or memory limit (or a
// whole omitted cpu or memory block). KRM accepts it and reads it as 0;
// KAI's scheduler then treats 0 as a ceiling of zero, so pods that request
// the resource in the queue are refused. Volcano and YuniKorn read an unset
// limit as unconstrained, so the message says it plainly. A queue whose
// guarantee is above that 0 already has deserved-over-limit, which says
// the limit is omitted; it gets no second finding.
func (c *checker) checkOmittedLimits() {
	for _, o := range c.owners() {
		for qi := range o.queues {
			q := &o.queues[qi]
			for _, r := range []quota.Resource{quota.CPU, quota.Memory} {
				if _, omitted := value(q, r, tenancy.Limit); !omitted {
					continue
				}
				if d, _ := value(q, r, tenancy.Deserved); d.Cmp(quota.Zero) > 0 {
					continue // deserved-over-limit
				}
				where := "in this queue"
				if o.addr.Kind == tenancy.KindDepartment {
					where = "in this department's queues"
				}
				what := fmt.Sprintf("the %s limit is omitted, and KRM reads an omitted limit as 0", r)
				if q.Resources.Get(r) == nil {
					what = fmt.Sprintf("the %s block is omitted, and KRM reads it as deserved 0, limit 0 and overQuotaWeight 0", r)
				}
				c.add(Finding{Code: CodeLimitOmitted, Level: LevelWarning, Object: o.addr, Queue: o.name(qi), Pool: q.NodePool, Resource: string(r),
					Message: fmt.Sprintf("%s: %s — a ceiling of zero, not unconstrained: pods that request %s %s will be refused; write -1 for no ceiling",
						o.name(qi), what, r, where),
					Where: c.resourceLoc(o, qi, r)})
			}
		}
	}
}

// idleName names the idle capacity of a resource in a message.
var idleName = map[quota.Resource]string{quota.GPU: "cards", quota.CPU: "cpu", quota.Memory: "memory"}

// checkZeroWeights notes an overQuotaWeight of 0 (written, or omitted and
// read as 0 by KRM) on a queue whose limit is above its guarantee. KRM
// accepts it; KAI's scheduler divides idle capacity by overQuotaWeight, so
// the queue never gets any of it although its limit would allow it. Where
// the limit is not above the guarantee the weight does nothing, and no
// note is made.
func (c *checker) checkZeroWeights() {
	for _, o := range c.owners() {
		for qi := range o.queues {
			q := &o.queues[qi]
			for _, r := range quota.Resources {
				w, wOmitted := value(q, r, tenancy.OverQuotaWeight)
				d, _ := value(q, r, tenancy.Deserved)
				l, _ := value(q, r, tenancy.Limit)
				if !w.IsZero() || badNegative(d) || badNegative(l) || l.Cmp(d) <= 0 {
					continue
				}
				what := fmt.Sprintf("the %s overQuotaWeight is 0", r)
				where := c.fieldLoc(o, qi, r, tenancy.OverQuotaWeight)
				if wOmitted {
					what = fmt.Sprintf("the %s overQuotaWeight is omitted, which KRM reads as 0", r)
					where = c.resourceLoc(o, qi, r)
				}
				c.add(Finding{Code: CodeZeroWeight, Level: LevelNote, Object: o.addr, Queue: o.name(qi), Pool: q.NodePool, Resource: string(r),
					Message: fmt.Sprintf("%s: %s, so KAI's scheduler never gives this queue a share of idle %s, although its limit (%s) is above its guarantee (%s)",
						o.name(qi), what, idleName[r], quota.Amount(r, l), quota.Amount(r, d)),
					Where: where})
			}
		}
	}
}

// checkUnassignedShare notes the part of a department's guarantee on a
// pool that no project is guaranteed. KRM accepts it; KAI's scheduler then
// gives it to the department's projects only as over-quota share, divided
// by overQuotaWeight and reclaimable, never as a guarantee. Exact: ten
// projects of 0.1 under 1 leave nothing unassigned.
func (c *checker) checkUnassignedShare() {
	for i := range c.s.Departments {
		d := &c.s.Departments[i]
		dept := c.depts[d.Metadata.Name]
		for qi := range d.Spec.Queues {
			dq := &d.Spec.Queues[qi]
			k := onPool{d.Metadata.Name, dq.NodePool}
			if c.deptQueue[k].q != dq {
				continue
			}
			for _, r := range quota.Resources {
				have, _ := value(dq, r, tenancy.Deserved)
				if have.IsNegative() || have.IsZero() {
					continue
				}
				sum, unlimited := c.kidsDeserved(dq, c.children[k], r)
				if unlimited || sum.Cmp(have) >= 0 {
					continue // fits exactly, or projects-over-department / unlimited-under-finite
				}
				c.add(Finding{Code: CodeUnassignedShare, Level: LevelNote, Object: dept.addr, Queue: dept.name(qi), Pool: dq.NodePool, Resource: string(r),
					Message: fmt.Sprintf("%s: the projects are guaranteed %s of the department's %s — %s not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight",
						dept.name(qi), quota.Amount(r, sum), quota.Amount(r, have), quota.Amount(r, have.Sub(sum))),
					Where: c.fieldLoc(dept, qi, r, tenancy.Deserved)})
			}
		}
	}
}

// checkProjectQueuesUnderDepartment compares each project queue with its
// department's queue on the same pool. A project queue on a pool where the
// department has no queue is accepted by KRM, which makes it a root queue
// of KAI's scheduler, outside any department's share. A project limit
// above the department's is accepted too; KAI's scheduler enforces both,
// so the department's limit wins. An omitted cpu or memory limit of the
// department is limit-omitted already and is not repeated per project, and
// a project limit of -1 (unlimited) is not a finding: the department caps
// it, as intended.
func (c *checker) checkProjectQueuesUnderDepartment() {
	for _, oq := range c.orphans {
		c.add(Finding{Code: CodeProjectOutsideDepartment, Level: LevelWarning, Object: oq.o.addr, Queue: oq.name(), Pool: oq.q.NodePool,
			Message: fmt.Sprintf("%s: department %s has no queue on node pool %s, so this queue becomes a root queue, outside any department's share",
				oq.name(), oq.o.parent, oq.q.NodePool),
			Where: c.loc.At(oq.o.field(oq.i, tenancy.FieldQueueNodePool))})
	}
	for _, p := range c.projs {
		for qi := range p.queues {
			q := &p.queues[qi]
			dq, ok := c.deptQueue[onPool{p.parent, q.NodePool}]
			if !ok {
				continue
			}
			for _, r := range quota.Resources {
				pl, _ := value(q, r, tenancy.Limit)
				dl, dlOmitted := value(dq.q, r, tenancy.Limit)
				// A project limit of -1 under a finite department is how a
				// project says "up to the department": KAI's scheduler caps
				// it at the department's limit, and nothing is misleading.
				if pl.IsNegative() || badNegative(dl) || (dlOmitted && r != quota.GPU) || pl.Cmp(dl) <= 0 {
					continue
				}
				mine := fmt.Sprintf("the project's %s limit of %s is", r, quota.Amount(r, pl))
				theirs := quota.Amount(r, dl)
				if dlOmitted {
					theirs = "0 (omitted, which KRM reads as 0)"
				}
				c.add(Finding{Code: CodeProjectLimitOverDepartment, Level: LevelWarning, Object: p.addr, Queue: p.name(qi), Pool: q.NodePool, Resource: string(r),
					Message: fmt.Sprintf("%s: %s above department queue %s's limit of %s; the department wins, so this queue never gets more than %s",
						p.name(qi), mine, dq.name(), theirs, quota.Amount(r, dl)),
					Where: append(c.fieldLoc(p, qi, r, tenancy.Limit), c.fieldLoc(dq.o, dq.i, r, tenancy.Limit)...)})
			}
		}
	}
}

// checkDefaultNodePools: every defaultNodePools entry of a project needs a
// queue of the project on that pool; KRM's webhook rejects the project
// otherwise.
func (c *checker) checkDefaultNodePools() {
	for i := range c.s.Projects {
		p := &c.s.Projects[i]
		if len(p.Spec.DefaultNodePools) == 0 {
			continue
		}
		has := map[string]bool{}
		for _, q := range p.Spec.Queues {
			has[q.NodePool] = true
		}
		for _, pool := range p.Spec.DefaultNodePools {
			if has[pool] {
				continue
			}
			has[pool] = true // one finding per entry
			var own []string
			for _, q := range p.Spec.Queues {
				own = append(own, q.NodePool)
			}
			// The project's own pools first; an entry that is no pool at
			// all is a misspelling of some pool, maybe one the project
			// has no queue on yet.
			dym := suggestion(pool, own)
			if dym == "" && !c.knownPool(pool) {
				dym = suggestion(pool, append(c.x.Names(tenancy.KindNodePool), "default"))
			}
			c.add(Finding{Code: CodeDefaultPoolWithoutQueue, Level: LevelError, Object: tenancy.KindProject.Object(p.Metadata.Name), Pool: pool,
				Message: fmt.Sprintf("project %s: defaultNodePools lists node pool %s, but the project has no queue on it; KRM's webhook rejects a defaultNodePools entry without a queue",
					p.Metadata.Name, pool) + dym,
				Where: c.loc.At(tenancy.KindProject.Object(p.Metadata.Name).Field(tenancy.FieldDefaultNodePools))})
		}
	}
}

// checkQueueNameLength: KRM accepts a queue name of any length, but cuts
// a name over 58 characters (as written, or derived for a queue without
// one) to 58 and appends "-" and 4 random characters when it creates the
// Queue (generateQueueNameForResource, krm-facts 3), so the queue is not
// called what the file says.
func (c *checker) checkQueueNameLength() {
	for _, o := range c.owners() {
		for qi, q := range o.queues {
			name := o.name(qi)
			if len(name) <= maxQueueName {
				continue
			}
			what := "the queue name is"
			if q.Name == "" {
				what = fmt.Sprintf("the queue has no name, and the one KRM derives (%s) is", name)
			}
			c.add(Finding{Code: CodeQueueNameTooLong, Level: LevelWarning, Object: o.addr, Queue: name, Pool: q.NodePool,
				Message: fmt.Sprintf("%s: %s %d characters; KRM cuts a queue name over %d characters to %d and appends \"-\" and 4 random characters, so the scheduler's queue will not be called what the file says",
					name, what, len(name), maxQueueName, maxQueueName),
				Where: c.loc.At(o.field(qi, tenancy.FieldQueueName))})
		}
	}
}

// checkNames: node pools, departments and projects are cluster-scoped
// Kubernetes objects, and so are the KAI Queues KRM creates from their
// queues, so each name must be a DNS-1123 subdomain; a project's namespace
// (<projectNamePrefix>-<project> when spec.namespace is empty: a name of
// 60 characters makes one of 64) must be a DNS-1123 label, and a
// node pool's label pair a valid label key and value. KRM's webhook does
// not check them: the API server refuses the object, or KRM fails to
// create the Queue or the namespace's binding, after the change is made.
func (c *checker) checkNames() {
	bad := func(f Finding, what, rule string, errs []string) {
		f.Code, f.Level = CodeInvalidName, LevelError
		f.Message += fmt.Sprintf("%s is not a valid %s: %s", what, rule, strings.Join(errs, "; "))
		c.add(f)
	}
	object := func(kind tenancy.Kind, name string) bool {
		errs := dns1123Subdomain(name)
		if len(errs) == 0 {
			return true
		}
		bad(Finding{Object: kind.Object(name), Message: kind.Info().Word + " " + name + ": ", Where: c.loc.At(kind.Object(name).Field(tenancy.FieldName))},
			"the name", "Kubernetes object name", errs)
		return false
	}
	type label struct {
		field tenancy.Field
		v     string
	}
	labelErrs := map[label][]string{}
	for _, p := range c.s.NodePools {
		name := p.Metadata.Name
		object(tenancy.KindNodePool, name)
		for _, l := range []label{{tenancy.FieldLabelKey, p.Spec.LabelKey}, {tenancy.FieldLabelValue, p.Spec.LabelValue}} {
			if l.v == "" && name == "default" {
				continue // pool default has no label pair
			}
			rule := "label key"
			if l.field == tenancy.FieldLabelValue {
				rule = "label value"
			}
			errs, known := labelErrs[l]
			if !known { // pools share label keys: each is checked once
				errs = validation.IsQualifiedName(l.v)
				if l.field == tenancy.FieldLabelValue {
					errs = validation.IsValidLabelValue(l.v)
				}
				labelErrs[l] = errs
			}
			if len(errs) > 0 {
				at := tenancy.KindNodePool.Object(name)
				bad(Finding{Object: at, Pool: name, Resource: l.field.String(), Message: "node pool " + name + ": ",
					Where: c.loc.At(at.Field(l.field))}, fmt.Sprintf("spec.%s %q", l.field, l.v), rule, errs)
			}
		}
	}
	for _, d := range c.s.Departments {
		object(tenancy.KindDepartment, d.Metadata.Name)
	}
	for i := range c.s.Projects {
		p := &c.s.Projects[i]
		nameOK := object(tenancy.KindProject, p.Metadata.Name)
		prefix := c.s.KRMConfig.NamePrefix()
		if p.Spec.Namespace == "" && !nameOK {
			continue // the name's finding says it; its namespace holds the same text
		}
		ns := p.NamespaceName(prefix)
		if errs := dns1123Label(ns); len(errs) > 0 {
			what := fmt.Sprintf("namespace %q", ns)
			if p.Spec.Namespace == "" {
				what = fmt.Sprintf("namespace %q (KRM's default when spec.namespace is empty: %s-<project>)", ns, prefix)
			}
			bad(Finding{Object: tenancy.KindProject.Object(p.Metadata.Name), Resource: "namespace", Message: "project " + p.Metadata.Name + ": ",
				Where: c.loc.At(tenancy.KindProject.Object(p.Metadata.Name).Field(tenancy.FieldNamespace))}, what, "namespace name", errs)
		}
	}
	for _, o := range c.owners() {
		for qi, q := range o.queues {
			if errs := dns1123Subdomain(o.name(qi)); len(errs) > 0 {
				bad(Finding{Object: o.addr, Queue: o.name(qi), Pool: q.NodePool, Message: o.name(qi) + ": ", Where: c.loc.At(o.field(qi, tenancy.FieldQueueName))},
					"the queue name", "Kubernetes object name (KRM creates a cluster-scoped KAI Queue of this name)", errs)
			}
		}
	}
}

// plainLabel reports whether s is a short name of lower-case letters,
// digits and inner hyphens: a valid DNS-1123 label, and so a valid
// subdomain too. Nearly every name is one, and this is much cheaper than
// the regular expressions of the validation package, which decide (and
// explain) the rest.
func plainLabel(s string) bool {
	if len(s) == 0 || len(s) > validation.DNS1123LabelMaxLength || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// dns1123Subdomain is validation.IsDNS1123Subdomain, with plainLabel's
// shortcut for the names that are plainly valid.
func dns1123Subdomain(s string) []string {
	if plainLabel(s) {
		return nil
	}
	return validation.IsDNS1123Subdomain(s)
}

// dns1123Label is validation.IsDNS1123Label, with plainLabel's shortcut.
func dns1123Label(s string) []string {
	if plainLabel(s) {
		return nil
	}
	return validation.IsDNS1123Label(s)
}

// checkIgnoredSingletons warns of a ManagedNodesConfig or KRMConfig under
// another name than the one KRM reads (kai-managed-nodes-config,
// krm-config): KRM ignores it, so its node selector or settings do
// nothing, and the checks do not use it either.
func (c *checker) checkIgnoredSingletons() {
	for _, o := range c.s.Other {
		k, err := tenancy.ParseKind(o.Kind)
		want := k.Info().Singleton
		if err != nil || o.APIVersion != tenancy.APIVersion || want == "" || o.Name == want {
			continue
		}
		f := Finding{Code: CodeSingletonIgnored, Level: LevelWarning, Object: k.Object(o.Name),
			Message: fmt.Sprintf("%s %s is ignored: KRM reads only the %s named %s", o.Kind, o.Name, o.Kind, want)}
		if o.File != "" {
			f.Where = []tenancy.Location{{File: o.File, Line: o.Line}}
		}
		c.add(f)
	}
}
