// Package tenancy is the one model of a KRM tenancy that every other
// package shares: the kinds (one table), the objects (node pools,
// departments, projects and KRM's two singletons) as KRM stores them, the
// typed addresses of an object, a queue and a field, the values a change
// sets, the changes themselves, and Apply, the one way a tenancy becomes
// another. It imports only quota (exact decimal numbers), the standard
// library and the project's JSON codec, and does no I/O.
//
// Units are KRM's: gpu in cards (0.5 is half a card), cpu in millicores,
// memory in MB (10^6 bytes); -1 is unlimited for deserved and limit.
package tenancy

// Tenancy is the objects of one tenancy, each list in the order it was
// read (state.json sorts them by name). snapshot.State embeds it, so its
// members are state.json's: node_pools, departments, projects,
// managed_nodes_config and krm_config.
type Tenancy struct {
	NodePools   []NodePool   `json:"node_pools"`
	Departments []Department `json:"departments"`
	Projects    []Project    `json:"projects"`
	// ManagedNodes is the singleton ManagedNodesConfig, nil when absent.
	ManagedNodes *ManagedNodesConfig `json:"managed_nodes_config,omitempty"`
	// KRMConfig is the cluster's KRMConfig, nil when absent.
	KRMConfig *KRMConfig `json:"krm_config,omitempty"`
}
