package tenancy

import "github.com/krmplan/krmplan/quota"

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

// ProjectSpec is a Project's spec. Namespace empty means the project name.
type ProjectSpec struct {
	Namespace        string   `json:"namespace,omitempty"`
	Parent           string   `json:"parent"`
	DefaultNodePools []string `json:"defaultNodePools,omitempty"`
	Queues           []Queue  `json:"queues"`
}

// NamespaceName is the project's namespace: spec.namespace, or the project
// name when that is empty (KRM's default).
func (p *Project) NamespaceName() string {
	if p.Spec.Namespace != "" {
		return p.Spec.Namespace
	}
	return p.Metadata.Name
}

// Queue is one entry of spec.queues: KRM turns it into a KAI Queue of the
// same name on the node pool. Priority nil means KAI's default, 100.
type Queue struct {
	Name      string    `json:"name"`
	NodePool  string    `json:"nodepool"`
	Priority  *int32    `json:"priority,omitempty"`
	Resources Resources `json:"resources"`
}

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

// KRMConfig is the cluster's KRM configuration, as far as krmplan uses it.
type KRMConfig struct {
	Metadata Meta `json:"metadata"`
	// ProjectLabelKey is spec.global.namespaceProjectLabelKey: the
	// namespace label that binds a namespace to its
	// project; empty means "kai/project".
	ProjectLabelKey string `json:"projectLabelKey,omitempty"`
}

// DefaultProjectLabelKey is the namespace label KRM uses for a project.
const DefaultProjectLabelKey = "kai/project"
