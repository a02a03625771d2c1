// Package snapshot is the state model of krmplan and its file, state.json:
// the KRM objects as read (node pools, departments, projects), what the
// cluster adds where one was reachable (nodes, live KAI Queues with their
// usage, namespaces), and where each value was written when it came from a
// tenancy YAML at a git ref. The readers for a git ref and for a live
// cluster live here too; everything else works on State.
package snapshot

import (
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/quota"
)

// FormatVersion is the version of the state.json schema this package writes
// and reads. 2: a value's position is one string (pos_json.go) and the
// digest is over the file's bytes (State.Seal).
const FormatVersion = 2

// State is one snapshot of a KRM tenancy (state.json). Lists are sorted by
// name so that the same input always gives the same bytes.
type State struct {
	FormatVersion int    `json:"format_version"`
	TakenAt       string `json:"taken_at"` // RFC 3339; the only field that varies between identical reads
	// Digest is "sha256:<hex>" over the state.json bytes with TakenAt and
	// Digest empty (Seal); plan files use it to name their snapshot.
	Digest string `json:"digest"`
	Source Source `json:"source"`

	NodePools   []NodePool   `json:"node_pools"`
	Departments []Department `json:"departments"`
	Projects    []Project    `json:"projects"`
	// ManagedNodes is the singleton ManagedNodesConfig, nil when absent.
	ManagedNodes *ManagedNodesConfig `json:"managed_nodes_config,omitempty"`
	// KRMConfig is the cluster's KRMConfig, nil when absent.
	KRMConfig *KRMConfig `json:"krm_config,omitempty"`
	// Other lists the documents of other kinds found in the tenancy files;
	// they are kept aside, not an error.
	Other []OtherDocument `json:"other_documents,omitempty"`
	// Profile is the repository profile (.krmplan.hcl at the repository
	// root, read at the ref) of a git snapshot, nil when the repository has
	// none: the files that move with a quota, the reminders and notes.
	Profile *profile.Profile `json:"profile,omitempty"`

	// Nodes, LiveQueues and Namespaces come from a cluster. Whether each was
	// read is told by NotRead, never by an empty list.
	Nodes      []Node      `json:"nodes,omitempty"`
	LiveQueues []LiveQueue `json:"live_queues,omitempty"`
	Namespaces []Namespace `json:"namespaces,omitempty"`
	// NotRead names every source that could not be read and why, so that
	// "not read" is never shown as "fine".
	NotRead []NotRead `json:"not_read"`
}

// Source says where a snapshot was read from.
type Source struct {
	// Kind is "git" or "cluster".
	Kind string `json:"kind"`
	// Context and Server name the cluster (live snapshots, or the live
	// overlay of a git snapshot).
	Context string `json:"context,omitempty"`
	Server  string `json:"server,omitempty"`
	// Repo (absolute path), Ref as given, Commit (the ref resolved) and
	// Files (tenancy files at that commit) describe a git snapshot.
	Repo   string       `json:"repo,omitempty"`
	Ref    string       `json:"ref,omitempty"`
	Commit string       `json:"commit,omitempty"`
	Files  []SourceFile `json:"files,omitempty"`
}

// SourceFile is one tenancy file at the snapshot's commit.
type SourceFile struct {
	Path string `json:"path"` // relative to the repository root, slash-separated
	Blob string `json:"blob"` // git blob id of the file at Commit
}

// The names of the sources a snapshot may lack, as used in NotRead.What.
const (
	SourceNodes      = "nodes"
	SourceQueues     = "queues"
	SourceNamespaces = "namespaces"
)

// NotRead records one source that was not read.
type NotRead struct {
	What   string `json:"what"`   // SourceNodes, SourceQueues or SourceNamespaces
	Reason string `json:"reason"` // e.g. "git snapshot without a cluster", "forbidden: ..."
}

// Read reports whether the source what (SourceNodes, …) was read.
func (s *State) Read(what string) bool {
	for _, n := range s.NotRead {
		if n.What == what {
			return false
		}
	}
	return true
}

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

// Origin is where an object is written in a git snapshot, and where each of
// its values is.
type Origin struct {
	File string `json:"file"` // repository-relative path
	Line int    `json:"line"` // 1-based line of the document's first key
	// Values maps a JSON pointer into the object ("/spec/queues/0/name",
	// "/spec/queues/0/resources/gpu/deserved") to the position of the value.
	// In a plan file's snapshot only the objects the plan changes keep
	// their values (planner.Build); the others keep File and Line.
	Values map[string]Pos `json:"values,omitempty"`
}

// Pos is the position of one scalar value in a file. state.json writes it
// as the string "LINE:COLUMN START-END TEXT" (pos_json.go).
type Pos struct {
	Line   int `json:"line"`   // 1-based
	Column int `json:"column"` // 1-based, in bytes
	Start  int `json:"start"`  // byte offset of the value's first byte
	End    int `json:"end"`    // byte offset just past the value
	// Text is the value exactly as written ("4", "4.0", `"4"`).
	Text string `json:"text"`
	// Alias marks a value reached through a YAML alias (*name), directly,
	// through an aliased mapping or through a merge key (<<: *name): the
	// bytes at Start..End are the alias, not the number, so it cannot be
	// spliced. AnchorLine is the line of the anchor (&name) it names, or
	// that holds it.
	Alias bool `json:"alias,omitempty"`
	// Anchor is set on a value that lies inside an anchored node (&name)
	// that an alias elsewhere in the document shares: editing its bytes
	// would change the aliases too, so it cannot be spliced either.
	Anchor     string `json:"anchor,omitempty"`
	AnchorLine int    `json:"anchor_line,omitempty"`
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

// Field names of a Resource, as KRM spells them.
const (
	FieldDeserved        = "deserved"
	FieldLimit           = "limit"
	FieldOverQuotaWeight = "overQuotaWeight"
)

// Fields lists the fields of a Resource in KRM's order.
var Fields = []string{FieldDeserved, FieldLimit, FieldOverQuotaWeight}

// Field returns a pointer to the named field's slot (deserved, limit,
// overQuotaWeight), or nil for another name.
func (r *Resource) Field(name string) **quota.Value {
	switch name {
	case FieldDeserved:
		return &r.Deserved
	case FieldLimit:
		return &r.Limit
	case FieldOverQuotaWeight:
		return &r.OverQuotaWeight
	}
	return nil
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

// The names of the singletons KRM reads: the one ManagedNodesConfig and
// the one KRMConfig it acts on. Another object of these kinds is ignored
// by KRM; the readers keep it in Other, and the checks say so.
const (
	ManagedNodesConfigName = "kai-managed-nodes-config"
	KRMConfigName          = "krm-config"
)

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

// OtherDocument is a document of a kind krmplan does not plan.
type OtherDocument struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
	File       string `json:"file"`
	Line       int    `json:"line"`
}

// Node is a cluster node as far as GPU capacity goes.
type Node struct {
	Name string `json:"name"`
	// Labels holds the node's labels (pools are matched by label pair).
	Labels map[string]string `json:"labels,omitempty"`
	// Capacity and Allocatable are nvidia.com/gpu, in cards.
	Capacity    quota.Value `json:"gpuCapacity"`
	Allocatable quota.Value `json:"gpuAllocatable"`
	Ready       bool        `json:"ready"`
	Cordoned    bool        `json:"cordoned"`
}

// Cards is the node's GPU cards: its nvidia.com/gpu capacity, or its
// allocatable when that is more (a device plugin that reports no
// capacity). The checks and the pool bars count a pool's cards with it.
func (n *Node) Cards() quota.Value {
	if n.Allocatable.Cmp(n.Capacity) > 0 {
		return n.Allocatable
	}
	return n.Capacity
}

// SchedulableCards is what KAI's scheduler can place on the node right
// now: its allocatable when it is Ready and not cordoned, else 0.
func (n *Node) SchedulableCards() quota.Value {
	if n.Ready && !n.Cordoned {
		return n.Allocatable
	}
	return quota.Zero
}

// LiveQueue is a KAI Queue (scheduling.run.ai/v2) as the scheduler holds
// it: its quota in spec units (cards, millicores, MB) and its usage as
// Kubernetes quantities keyed by resource name ("nvidia.com/gpu", "cpu",
// "memory"), in GPUs, cores and bytes.
type LiveQueue struct {
	Name        string    `json:"name"`
	ParentQueue string    `json:"parentQueue,omitempty"`
	Resources   Resources `json:"resources"`
	// Allocated and AllocatedNonPreemptible are status.allocated and
	// status.allocatedNonPreemptible, as written by the scheduler.
	Allocated               map[string]string `json:"allocated,omitempty"`
	AllocatedNonPreemptible map[string]string `json:"allocatedNonPreemptible,omitempty"`
}

// Namespace is a namespace and its labels.
type Namespace struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}
