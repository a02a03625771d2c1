// Package config reads desired.hcl, the quota split a person wants, into a
// typed Overlay on a snapshot (DESIGN §4).
//
// An attribute that is set in the HCL replaces the snapshot's value; an
// attribute or block that is absent keeps it (a nil field in the Overlay);
// a block for an object or queue that the snapshot lacks creates it. Nothing
// is deleted but by a `removed { … }` block (Removed). Every value carries the hcl.Range of the expression that set
// it, so that findings about it can point at the source.
//
// The language: top-level blocks `locals {}`, `variable "name" {}`,
// `node_pool "name" {}`, `department "name" {}`, `project "name" {}` and
// `removed { project = "name" }`;
// `queue "<pool>" {}` blocks inside departments and projects; `gpu`, `cpu`
// and `memory` either as blocks or as object attributes; `unlimited` (-1),
// `local.x`, `var.x` and the pure go-cty standard library functions plus
// `sum`. Every problem is an hcl.Diagnostic with a Subject range.
//
// Numbers are exact decimals (quota.Value): units are cards for gpu,
// millicores for cpu and MB (10^6 bytes) for memory.
package config

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// Str is a string set in desired.hcl and the range of the attribute
// expression that set it.
type Str struct {
	Value string
	Range hcl.Range
}

// Num is a number set in desired.hcl and the range of the attribute
// expression that set it. Value is exact; `unlimited` is quota.Unlimited
// (-1). The unit is the resource's: cards for gpu, millicores for cpu, MB
// for memory; over_quota_weight has no unit.
type Num struct {
	Value quota.Value
	Range hcl.Range
}

// Int is a whole number (int32) set in desired.hcl and the range of the
// attribute expression that set it.
type Int struct {
	Value int32
	Range hcl.Range
}

// StrList is a list of strings set in desired.hcl and the range of the
// attribute expression that set it. An empty list is a value (clear the
// list), unlike a nil *StrList (keep the snapshot's list).
type StrList struct {
	Values []string
	Range  hcl.Range
}

// Overlay is desired.hcl decoded: the objects and queues it mentions, with
// nil for every attribute it leaves alone.
type Overlay struct {
	// File is the file name as given to Load.
	File string
	// Source is the HCL bytes as read.
	Source []byte
	// Variables maps every declared variable's name to its resolved value,
	// printed as HCL literal text (`64`, `"h100"`, `["a", "b"]`), for the
	// plan file. Variables whose value could not be resolved are absent.
	Variables map[string]string
	// Files holds every source a diagnostic of Load may point at, by the
	// file name used in its ranges: the HCL file, each var file, and one
	// pseudo file per --var value (named `<value for var.NAME>`): the
	// diag.Files that diag.WriteText shows the source lines of (the CLI
	// writes every diagnostic of Load with it).
	Files map[string]*hcl.File

	NodePools   []NodePool   // in file order
	Departments []Department // in file order
	Projects    []Project    // in file order
	// Removed are the removed blocks, in file order.
	Removed []Removed
	// Moved are the moved blocks (project renames), in file order.
	Moved []Moved
}

// NodePool is a `node_pool "name" {}` block.
type NodePool struct {
	Name     string
	DefRange hcl.Range // `node_pool "name"`
	// LabelKey and LabelValue are the node label pair; nil keeps the
	// snapshot's (the pair is immutable in KRM, so only a new pool sets it).
	LabelKey, LabelValue *Str
	// File names the tenancy file (repository-relative) that a splice
	// writes this object into when it is new; nil lets render choose.
	File *Str
}

// Department is a `department "name" {}` block.
type Department struct {
	Name     string
	DefRange hcl.Range // `department "name"`
	File     *Str      // as NodePool.File
	Queues   []Queue   // in file order, one per pool
}

// Project is a `project "name" {}` block.
type Project struct {
	Name     string
	DefRange hcl.Range // `project "name"`
	// Department is the parent department (spec.parent); Namespace is
	// spec.namespace (KRM's default is <projectNamePrefix>-<project>,
	// kai-<project> unless the KRMConfig sets another prefix);
	// DefaultNodePools is spec.defaultNodePools. Nil keeps the snapshot's
	// value.
	Department, Namespace *Str
	DefaultNodePools      *StrList
	File                  *Str    // as NodePool.File
	Queues                []Queue // in file order, one per pool
}

// Queue is a `queue "<pool>" {}` block of a department or a project.
type Queue struct {
	// Pool is the block label: the node pool the queue is on.
	Pool     string
	DefRange hcl.Range // `queue "<pool>"`
	// Name is the queue's cluster-wide name; Priority its KAI priority.
	// Nil keeps the snapshot's value.
	Name     *Str
	Priority *Int
	// GPU (cards), CPU (millicores) and Memory (MB) are nil when the queue
	// does not mention the resource.
	GPU, CPU, Memory *Resource
}

// Resource gives, for one resource of a queue, what the HCL sets; a nil
// field keeps the snapshot's value.
type Resource struct {
	Deserved, Limit, OverQuotaWeight *Num
	// Range is the `gpu`/`cpu`/`memory` word that introduced the block or
	// the object attribute.
	Range hcl.Range
}

// The keys of a resource block or object, as written in HCL.
const (
	KeyDeserved        = "deserved"
	KeyLimit           = "limit"
	KeyOverQuotaWeight = "over_quota_weight"
)

// ResourceKeys lists the keys of a resource in their canonical order, that
// of tenancy.QuotaFields: ResourceKeys[f] is the key of field f.
var ResourceKeys = []string{KeyDeserved, KeyLimit, KeyOverQuotaWeight}

// Resource returns the queue's GPU, CPU or Memory setting by name, nil
// when the queue does not mention it (or q is nil, or r is unknown).
func (q *Queue) Resource(r quota.Resource) *Resource {
	if q == nil {
		return nil
	}
	switch r {
	case quota.GPU:
		return q.GPU
	case quota.CPU:
		return q.CPU
	case quota.Memory:
		return q.Memory
	}
	return nil
}

// Field returns the value set for f, nil when it is not set (or r is nil).
func (r *Resource) Field(f tenancy.QuotaField) *Num {
	if r == nil {
		return nil
	}
	switch f {
	case tenancy.Deserved:
		return r.Deserved
	case tenancy.Limit:
		return r.Limit
	}
	return r.OverQuotaWeight
}
