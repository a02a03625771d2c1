// Package snapshot is state.json, one snapshot of a tenancy: the KRM
// objects as read (a tenancy.Tenancy, with where each value was written
// when it came from a tenancy YAML at a git ref), what the cluster adds
// where one was reachable (nodes, live KAI Queues with their usage,
// namespaces), what was not read, and the digest. The git reader and the
// YAML reader live here; the live cluster reader is snapshot/live.
package snapshot

import (
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// FormatVersion is the version of the state.json schema this package writes
// and reads. 2: a value's position is one string (tenancy.Pos) and the
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
	Name        string            `json:"name"`
	ParentQueue string            `json:"parentQueue,omitempty"`
	Resources   tenancy.Resources `json:"resources"`
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
