// Package snapshot is state.json, one snapshot of a tenancy: the KRM
// objects as read (a tenancy.Tenancy, with where each value was written
// when it came from a tenancy YAML at a git ref), what the cluster adds
// where one was reachable (nodes, live KAI Queues with their usage,
// namespaces), what was not read, and the digest. The git reader and the
// YAML reader live here; the live cluster reader is snapshot/live.
package snapshot

import (
	"encoding/json"
	"fmt"

	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot/kustomize"
	"github.com/krmplan/krmplan/tenancy"
	"k8s.io/apimachinery/pkg/api/resource"
)

// FormatVersion is the version of the state.json schema this package writes
// and reads. 2: a value's position is one string (tenancy.Pos) and the
// digest is over the file's bytes (State.Seal). 3: the position string
// leaves out its end ("LINE:COLUMN START TEXT"; the end follows from the
// text), and the file is laid out one object to a line
// (jsonfile.MarshalLines). Decode reads both.
const FormatVersion = 3

// oldestFormat is the oldest state.json format Decode still reads: format
// 2 differs from 3 only in the position strings, which tenancy.Pos reads
// in both forms, and in layout.
const oldestFormat = 2

// State is one snapshot of a KRM tenancy (state.json). Lists are sorted by
// name so that the same input always gives the same bytes.
type State struct {
	FormatVersion int    `json:"format_version"`
	TakenAt       string `json:"taken_at"` // RFC 3339; the only field that varies between identical reads
	// Digest is "sha256:<hex>" over the state.json bytes with TakenAt and
	// Digest empty (Seal); plan files use it to name their snapshot.
	Digest string `json:"digest"`
	Source Source `json:"source"`

	// Tenancy is the objects: node_pools, departments, projects and the
	// singletons, members of state.json in this place.
	tenancy.Tenancy
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
	// Paths are the --tenancy paths the files came from, repository-relative:
	// files and folders. Render reads them again when the ref moved, so that
	// a file a colleague added to a tenancy folder is read at the tip too.
	// A snapshot of an older krmplan has none: then Files are read.
	Paths []string `json:"paths,omitempty"`
	// RefName is the full name of the ref that Ref named when it was read
	// (refs/heads/main; HEAD on a branch is that branch): render resolves
	// it again to catch a plan made before the ref moved. It is empty when
	// Ref names a fixed commit, which does not move: a commit id, an
	// expression such as main~1, a detached HEAD.
	RefName string `json:"ref_name,omitempty"`
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

// NoCluster is the reason of each cluster source a git snapshot without a
// cluster (no live overlay, no --cluster-data) did not read.
const NoCluster = "git snapshot without a cluster"

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

// OtherDocument is a document of a kind krmplan does not plan.
type OtherDocument struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
	File       string `json:"file"`
	Line       int    `json:"line"`
	// Patches are the patches of a kustomization document (kustomize's
	// Kustomization or Component): what each selects.
	Patches []kustomize.PatchTarget `json:"patches,omitempty"`
}

// Node is a cluster node as far as a pool's capacity goes: what KAI's
// scheduler divides (fairshare.Capacity reads it, through
// planner/capacity.Pools). Allocatable (and Capacity) are Kubernetes resource
// lists as in Node.status; a node given without them (the older shape of
// cluster data) has only its cards, GPUCapacity and GPUAllocatable, and
// its cpu and memory are unknown.
type Node struct {
	Name string `json:"name"`
	// Labels holds the node's labels (pools are matched by label pair).
	Labels map[string]string `json:"labels,omitempty"`
	// GPUCapacity and GPUAllocatable are nvidia.com/gpu of status.capacity
	// and status.allocatable, in cards. Where Capacity or Allocatable is
	// given, that list is counted instead (it holds these too).
	GPUCapacity    quota.Value `json:"gpuCapacity"`
	GPUAllocatable quota.Value `json:"gpuAllocatable"`
	// Capacity and Allocatable are status.capacity and status.allocatable:
	// the entries KAI's division reads (cpu, memory, nvidia.com/gpu,
	// amd.com/gpu, nvidia.com/mig-<N>g.<M>gb), as Kubernetes quantities.
	// nil when not given.
	Capacity    ResourceList `json:"capacity,omitempty"`
	Allocatable ResourceList `json:"allocatable,omitempty"`
	// Ready is whether the node's Ready condition is True.
	Ready bool `json:"ready"`
	// Cordoned is spec.unschedulable.
	Cordoned bool `json:"cordoned"`
	// Pressure holds the node's MemoryPressure, DiskPressure, PIDPressure
	// and NetworkUnavailable conditions whose status is not False, type →
	// status ("DiskPressure": "True"): KAI's scheduler counts nothing of
	// such a node (CheckNodeConditionPredicate). nil for a healthy node.
	Pressure map[string]string `json:"pressure,omitempty"`
}

// PressureConditions are the node conditions besides Ready that keep KAI's
// scheduler from counting a node unless their status is False.
var PressureConditions = []string{"MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}

// ResourceList is a Kubernetes resource list as in Node.status.allocatable:
// resource name → quantity ("nvidia.com/gpu": "8", "cpu": "64", "memory":
// "512G").
type ResourceList map[string]Quantity

// Quantity is a Kubernetes quantity as text ("8", "63500m", "512Gi").
// Decoding reads a JSON string or number and refuses text that is not a
// quantity (apimachinery's ParseQuantity) or is negative: a node's
// resources cannot be.
type Quantity string

// UnmarshalJSON reads a quantity from a JSON string or number.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	text := string(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
	case len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')):
		return fmt.Errorf("%s is not a Kubernetes quantity: write it as a string, e.g. \"8\" or \"512Gi\"", b)
	}
	v, err := resource.ParseQuantity(text)
	if err != nil {
		return fmt.Errorf("%q is not a Kubernetes quantity (%v)", text, err)
	}
	if v.Sign() < 0 {
		return fmt.Errorf("%q is negative; a node's resources cannot be", text)
	}
	*q = Quantity(text)
	return nil
}

// LiveQueue is a KAI Queue (scheduling.run.ai/v2) as the scheduler holds
// it: its quota in spec units (cards, millicores, MB) and its usage as
// Kubernetes quantities keyed by resource name ("nvidia.com/gpu", "cpu",
// "memory"), in GPUs, cores and bytes.
type LiveQueue struct {
	Name        string            `json:"name"`
	ParentQueue string            `json:"parentQueue,omitempty"`
	Resources   tenancy.Resources `json:"resources"`
	// Allocated and AllocatedNonPreemptible are status.allocated and
	// status.allocatedNonPreemptible, as written by the scheduler.
	Allocated               map[string]string `json:"allocated,omitempty"`
	AllocatedNonPreemptible map[string]string `json:"allocatedNonPreemptible,omitempty"`
	// Requested is status.requested: what the running and pending
	// workloads of the queue and its child queues request, as written by
	// the scheduler (the same shape as Allocated).
	Requested map[string]string `json:"requested,omitempty"`
	// CreationTimestamp is metadata.creationTimestamp, RFC 3339 ("" when
	// unknown): KAI's fair share breaks a tie between equal leftovers by
	// queue age.
	CreationTimestamp string `json:"creationTimestamp,omitempty"`
	// Labels holds the Queue's manual-override label
	// (tenancy.KRMConfig.OverrideKey, kai.resources/resource-manual-override
	// by default) when it has one; the live reader keeps no other label.
	Labels map[string]string `json:"labels,omitempty"`
}

// Namespace is a namespace and its labels.
type Namespace struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}
