package tenancy

import "fmt"

// Kind is one of the KRM kinds krmplan reads, all cluster-scoped
// kai.resources/v1alpha1 objects. The zero Kind is no kind. Kind marshals
// to its KRM name ("NodePool"), as state.json and plan.json write it.
type Kind uint8

// The kinds, in the order of KindInfo's table.
const (
	KindNodePool Kind = iota + 1
	KindDepartment
	KindProject
	KindManagedNodesConfig
	KindKRMConfig
)

// The API group and version of every KRM kind, and the apiVersion a
// manifest of one carries.
const (
	Group      = "kai.resources"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
)

// KindInfo is one row of the kind table: everything krmplan writes about a
// kind in one place.
type KindInfo struct {
	// Name is the KRM kind ("NodePool").
	Name string
	// Resource is the API resource, the plural kubectl and client-go use
	// with Group ("nodepools": `kubectl get nodepools.kai.resources`).
	Resource string
	// Block is the desired.hcl block type ("node_pool"), also the
	// attribute of the repository profile's placement and the first part
	// of an address in the JSON view ("node_pool.h100").
	Block string
	// Word names an object of the kind in messages ("node pool").
	Word string
	// Singleton is the name of the one object KRM reads of a kind it reads
	// one of (ManagedNodesConfig, KRMConfig); "" for the others.
	Singleton string
	// Queues is set for the kinds whose spec holds queues.
	Queues bool
	// FileRank orders the kinds in a tenancy file: a new object goes after
	// the last document of its kind, or of an earlier-ranked one.
	FileRank int
	// Parent is the kind an object names in spec.parent (a project's
	// department), 0 for none.
	Parent Kind
}

var kinds = [...]KindInfo{
	KindNodePool:           {Name: "NodePool", Resource: "nodepools", Block: "node_pool", Word: "node pool", FileRank: 0},
	KindDepartment:         {Name: "Department", Resource: "departments", Block: "department", Word: "department", Queues: true, FileRank: 2},
	KindProject:            {Name: "Project", Resource: "projects", Block: "project", Word: "project", Queues: true, FileRank: 3, Parent: KindDepartment},
	KindManagedNodesConfig: {Name: "ManagedNodesConfig", Resource: "managednodesconfigs", Word: "ManagedNodesConfig", Singleton: "kai-managed-nodes-config", FileRank: 1},
	KindKRMConfig:          {Name: "KRMConfig", Resource: "krmconfigs", Word: "KRMConfig", Singleton: "krm-config", FileRank: 1},
}

// Kinds lists every kind krmplan reads, in the table's order.
var Kinds = []Kind{KindNodePool, KindDepartment, KindProject, KindManagedNodesConfig, KindKRMConfig}

// Planned lists the kinds a plan changes, in the order plans list them:
// node pools, departments, projects.
var Planned = []Kind{KindNodePool, KindDepartment, KindProject}

// Info returns k's row of the kind table; the zero KindInfo for no kind.
func (k Kind) Info() KindInfo {
	if k.Valid() {
		return kinds[k]
	}
	return KindInfo{}
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return k >= KindNodePool && int(k) < len(kinds) }

// String is the KRM kind name ("NodePool"); "" for no kind.
func (k Kind) String() string { return k.Info().Name }

// Plural is the resource with its group, as kubectl names it
// ("nodepools.kai.resources").
func (k Kind) Plural() string { return k.Info().Resource + "." + Group }

// ParseKind returns the kind named name ("Project"); an error names the
// text and the kinds for anything else.
func ParseKind(name string) (Kind, error) {
	for _, k := range Kinds {
		if kinds[k].Name == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%q is not a KRM kind (NodePool, Department, Project, ManagedNodesConfig or KRMConfig)", name)
}

// MarshalText writes the kind's name; no kind is an error.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("tenancy: no kind %d", k)
	}
	return []byte(kinds[k].Name), nil
}

// UnmarshalText reads a kind's name (ParseKind).
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	*k = v
	return err
}
