package tenancy

import (
	"strings"

	"github.com/krmplan/krmplan/quota"
)

// Meta is the metadata krmplan keeps of an object: nothing else of the
// cluster's metadata (no managedFields, no status) is stored.
type Meta struct {
	Name            string `json:"name"`
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// GitOps holds the ownership keys present on the object (DESIGN §1:
	// argocd.argoproj.io/tracking-id, argocd.argoproj.io/instance,
	// kustomize.toolkit.fluxcd.io/name, helm.toolkit.fluxcd.io/name).
	GitOps map[string]string `json:"gitops,omitempty"`
}

// GitOpsKeys are the annotation and label keys that mark an object as owned
// by Argo CD or Flux: a live patch to it is put back at the next sync.
var GitOpsKeys = []string{
	"argocd.argoproj.io/tracking-id",
	"argocd.argoproj.io/instance",
	"kustomize.toolkit.fluxcd.io/name",
	"helm.toolkit.fluxcd.io/name",
}

// NodePool is a kai.resources/v1alpha1 NodePool: the nodes carrying the
// label pair. The pair is immutable after creation; pool "default" has none.
type NodePool struct {
	Metadata Meta         `json:"metadata"`
	Spec     NodePoolSpec `json:"spec"`
	Origin   *Origin      `json:"origin,omitempty"`
}

// NodePoolSpec is a NodePool's spec.
type NodePoolSpec struct {
	LabelKey   string `json:"labelKey,omitempty"`
	LabelValue string `json:"labelValue,omitempty"`
}

// Department is a kai.resources/v1alpha1 Department: a share of each node
// pool, divided further between its projects.
type Department struct {
	Metadata Meta           `json:"metadata"`
	Spec     DepartmentSpec `json:"spec"`
	Origin   *Origin        `json:"origin,omitempty"`
}

// DepartmentSpec is a Department's spec.
type DepartmentSpec struct {
	Queues []Queue `json:"queues"`
}

// Project is a kai.resources/v1alpha1 Project: a share of its parent
// department's queues, bound to one namespace.
type Project struct {
	Metadata Meta        `json:"metadata"`
	Spec     ProjectSpec `json:"spec"`
	Origin   *Origin     `json:"origin,omitempty"`
}

// ProjectSpec is a Project's spec. Namespace empty means KRM's default,
// <projectNamePrefix>-<project> (Tenancy.Namespace). Parent empty is a
// root project (KRM accepts it: its queues are root queues).
type ProjectSpec struct {
	Namespace string `json:"namespace,omitempty"`
	Parent    string `json:"parent"`
	// ParentOmitted says the object has no spec.parent key at all (a root
	// project written without one), which KRM reads as parent "". A patch
	// must then add the key: a JSON-patch test or replace of an absent
	// path fails. It is krmplan's, never part of a manifest.
	ParentOmitted    bool     `json:"parentOmitted,omitempty"`
	DefaultNodePools []string `json:"defaultNodePools,omitempty"`
	Queues           []Queue  `json:"queues"`
}

// NamespaceName is the project's namespace when KRM's namespaces are named
// with prefix (KRMConfig.NamePrefix): spec.namespace, else
// <prefix>-<project>, the namespace KRM creates and labels for it.
func (p *Project) NamespaceName(prefix string) string {
	if p.Spec.Namespace != "" {
		return p.Spec.Namespace
	}
	return prefix + "-" + p.Metadata.Name
}

// Queue is one entry of spec.queues: KRM turns it into a KAI Queue on the
// node pool, of the same name, or of a name derived from the owner's when
// Name is empty (KAIName). Name is kept as written, so a patch tests what
// the cluster holds. Priority nil means KAI's default, 100.
type Queue struct {
	Name      string    `json:"name"`
	NodePool  string    `json:"nodepool"`
	Priority  *int32    `json:"priority,omitempty"`
	Resources Resources `json:"resources"`
}

// DefaultPoolName is the node pool KRM treats as the default one
// (--default-nodepool-name): its queues' derived names carry no pool.
const DefaultPoolName = "default"

// QueueName is the name of the KAI Queue KRM makes for a queue entry
// named name on pool of the object owner (KRM's GetQueueName): name as
// written, or, when it is empty, <owner> on the default pool and
// <owner>-<pool> on another. KRM then suffixes a name over 58 characters,
// or one another object's Queue has, with "-" and 4 random characters
// when it creates the Queue (krm-facts 3); the suffix cannot be known
// from the spec.
func QueueName(owner, name, pool string) string {
	switch {
	case name != "":
		return name
	case pool == DefaultPoolName:
		return owner
	}
	return owner + "-" + pool
}

// KAIName is QueueName of q for its owner.
func (q *Queue) KAIName(owner string) string { return QueueName(owner, q.Name, q.NodePool) }

// DefaultPriority is the priority KAI gives a queue that states none.
const DefaultPriority = 100

// Resources is a queue's quota per resource; a nil member was omitted in the
// source, which KRM reads as all zeros.
type Resources struct {
	GPU    *Resource `json:"gpu,omitempty"`
	CPU    *Resource `json:"cpu,omitempty"`
	Memory *Resource `json:"memory,omitempty"`
}

// Get returns the resource block for r (nil when omitted).
func (rs *Resources) Get(r quota.Resource) *Resource {
	switch r {
	case quota.GPU:
		return rs.GPU
	case quota.CPU:
		return rs.CPU
	case quota.Memory:
		return rs.Memory
	}
	return nil
}

// Ensure returns the resource block for r, creating an empty one if omitted.
func (rs *Resources) Ensure(r quota.Resource) *Resource {
	p := map[quota.Resource]**Resource{quota.GPU: &rs.GPU, quota.CPU: &rs.CPU, quota.Memory: &rs.Memory}[r]
	if *p == nil {
		*p = &Resource{}
	}
	return *p
}

// CloneQueues copies qs deeply enough that the copy's queues (their
// priority and resources) can be changed without touching qs. The quota
// values themselves are immutable and are shared.
func CloneQueues(qs []Queue) []Queue {
	out := make([]Queue, len(qs))
	for i, q := range qs {
		if q.Priority != nil {
			p := *q.Priority
			q.Priority = &p
		}
		q.Resources = Resources{GPU: cloneResource(q.Resources.GPU), CPU: cloneResource(q.Resources.CPU), Memory: cloneResource(q.Resources.Memory)}
		out[i] = q
	}
	return out
}

func cloneResource(r *Resource) *Resource {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

// Resource is deserved (the guarantee), limit (the ceiling) and
// overQuotaWeight (the share of idle capacity) of one resource, in cards,
// millicores or MB. -1 is unlimited for deserved and limit. A nil field was
// omitted: KRM reads it as 0, and a limit of 0 is a ceiling of zero.
type Resource struct {
	Deserved        *quota.Value `json:"deserved,omitempty"`
	Limit           *quota.Value `json:"limit,omitempty"`
	OverQuotaWeight *quota.Value `json:"overQuotaWeight,omitempty"`
}

// QuotaField is one number of a Resource, as KRM names it: deserved (the
// guarantee), limit (the ceiling) or overQuotaWeight (the share of idle
// capacity).
type QuotaField uint8

// The numbers of a Resource, in KRM's order.
const (
	Deserved QuotaField = iota
	Limit
	OverQuotaWeight
)

// QuotaFields lists the numbers of a Resource in KRM's order.
var QuotaFields = []QuotaField{Deserved, Limit, OverQuotaWeight}

var quotaFieldNames = [...]string{Deserved: "deserved", Limit: "limit", OverQuotaWeight: "overQuotaWeight"}

// String is the field's name as KRM spells it ("overQuotaWeight").
func (f QuotaField) String() string {
	if int(f) < len(quotaFieldNames) {
		return quotaFieldNames[f]
	}
	return ""
}

// SchedulerName is the field of the KAI Queue (scheduling.run.ai/v2,
// spec.resources.<resource>) that KRM copies f into, unconverted: quota,
// limit or overQuotaWeight.
func (f QuotaField) SchedulerName() string {
	if f == Deserved {
		return "quota"
	}
	return f.String()
}

// ParseQuotaField returns the field KRM spells name ("deserved", "limit",
// "overQuotaWeight"); ok is false for another name.
func ParseQuotaField(name string) (f QuotaField, ok bool) {
	for i, n := range quotaFieldNames {
		if n == name {
			return QuotaField(i), true
		}
	}
	return 0, false
}

// Slot returns a pointer to field f's slot.
func (r *Resource) Slot(f QuotaField) **quota.Value {
	switch f {
	case Deserved:
		return &r.Deserved
	case Limit:
		return &r.Limit
	}
	return &r.OverQuotaWeight
}

// SlotNamed is Slot for the field KRM spells name, nil for another name.
func (r *Resource) SlotNamed(name string) **quota.Value {
	f, ok := ParseQuotaField(name)
	if !ok {
		return nil
	}
	return r.Slot(f)
}

// Get returns field f, nil when it is omitted (or r is nil: the whole
// resource is omitted).
func (r *Resource) Get(f QuotaField) *quota.Value {
	if r == nil {
		return nil
	}
	return *r.Slot(f)
}

// ManagedNodesConfig is the singleton kai-managed-nodes-config: the node
// selector of the nodes KRM manages.
type ManagedNodesConfig struct {
	Metadata Meta `json:"metadata"`
	// Terms is spec.inclusion_criteria.nodeSelectorTerms: a node is managed
	// when it matches every expression of at least one term.
	Terms  []NodeSelectorTerm `json:"nodeSelectorTerms"`
	Origin *Origin            `json:"origin,omitempty"`
}

// NodeSelectorTerm is a list of expressions that must all match.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions" yaml:"matchExpressions"`
}

// NodeSelectorRequirement is Kubernetes' key/operator/values selector
// (operators In, NotIn, Exists, DoesNotExist).
type NodeSelectorRequirement struct {
	Key      string   `json:"key" yaml:"key"`
	Operator string   `json:"operator" yaml:"operator"`
	Values   []string `json:"values,omitempty" yaml:"values"`
}

// KRMConfig is the cluster's KRM configuration, as far as krmplan uses it:
// the flags KRM's operator gives the project-controller. An empty field is
// KRM's default: the operator passes a flag only when it is set, and KRM
// never writes its defaults back. A flag repeated in
// spec.projectController.extraArgs is passed last and wins (ApplyExtraArgs).
type KRMConfig struct {
	Metadata Meta `json:"metadata"`
	// ProjectLabelKey is spec.global.namespaceProjectLabelKey: the
	// namespace label that binds a namespace to its project; empty means
	// "kai/project".
	ProjectLabelKey string `json:"projectLabelKey,omitempty"`
	// ProjectNamePrefix is spec.projectController.args.projectNamePrefix:
	// KRM names the namespace of a project without spec.namespace
	// <prefix>-<project>; empty means "kai".
	ProjectNamePrefix string `json:"projectNamePrefix,omitempty"`
	// ManualOverrideLabelKey is
	// spec.projectController.args.resourceManualOverrideLabelKey: a Queue
	// (or namespace, LimitRange, Project) carrying <key>=true is left alone
	// by KRM; empty means "kai.resources/resource-manual-override".
	ManualOverrideLabelKey string `json:"manualOverrideLabelKey,omitempty"`
	// CreateNamespaces is spec.projectController.features.createNamespaces:
	// whether KRM creates the namespace of a project without
	// spec.namespace; nil means true, the operator's default.
	CreateNamespaces *bool `json:"createNamespaces,omitempty"`
}

// The defaults of KRM's project-controller (its flags' defaults).
const (
	DefaultProjectLabelKey        = "kai/project"
	DefaultProjectNamePrefix      = "kai"
	DefaultManualOverrideLabelKey = "kai.resources/resource-manual-override"
)

// extraArgFlags are the project-controller flags krmplan reads, by the
// KRMConfig field each one sets.
var extraArgFlags = []struct {
	flag string
	set  func(*KRMConfig, string)
}{
	{"namespace-project-label-key", func(c *KRMConfig, v string) { c.ProjectLabelKey = v }},
	{"project-name-prefix", func(c *KRMConfig, v string) { c.ProjectNamePrefix = v }},
	{"resource-manual-override-label-key", func(c *KRMConfig, v string) { c.ManualOverrideLabelKey = v }},
}

// ApplyExtraArgs reads spec.projectController.extraArgs, which KRM's
// operator appends after every flag it builds, so that a flag there wins:
// --flag=value, -flag=value, and --flag value (Go's flag syntax).
func (c *KRMConfig) ApplyExtraArgs(args []string) {
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		for _, f := range extraArgFlags {
			if f.flag != name {
				continue
			}
			if !hasValue {
				if i+1 >= len(args) {
					break
				}
				i++
				value = args[i]
			}
			f.set(c, value)
		}
	}
}

// LabelKey is the namespace label key that binds a namespace to its
// project: c's, else KRM's default (c may be nil).
func (c *KRMConfig) LabelKey() string {
	if c != nil && c.ProjectLabelKey != "" {
		return c.ProjectLabelKey
	}
	return DefaultProjectLabelKey
}

// NamePrefix is the prefix of the namespaces KRM names for projects: c's,
// else KRM's default (c may be nil).
func (c *KRMConfig) NamePrefix() string {
	if c != nil && c.ProjectNamePrefix != "" {
		return c.ProjectNamePrefix
	}
	return DefaultProjectNamePrefix
}

// CreatesNamespaces reports whether KRM creates the namespaces of projects
// without spec.namespace: c's createNamespaces, else true (c may be nil).
func (c *KRMConfig) CreatesNamespaces() bool {
	return c == nil || c.CreateNamespaces == nil || *c.CreateNamespaces
}

// OverrideKey is the manual-override label key: c's, else KRM's default
// (c may be nil).
func (c *KRMConfig) OverrideKey() string {
	if c != nil && c.ManualOverrideLabelKey != "" {
		return c.ManualOverrideLabelKey
	}
	return DefaultManualOverrideLabelKey
}

// IsManualOverride reports whether a label value marks an object as
// manually overridden: "true" in any case, as KRM compares it.
func IsManualOverride(value string) bool { return strings.EqualFold(value, "true") }
