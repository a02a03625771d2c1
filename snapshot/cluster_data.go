package snapshot

import (
	"fmt"

	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/quota"
)

// ClusterData is what a cluster adds to a git snapshot: the nodes (pool
// capacity), the KAI Queues (live quotas and usage) and the namespaces. A
// live reader fills it from the API server; `krmplan snapshot
// --cluster-data FILE` reads it from a JSON file of this shape (the demo
// ships one). NotRead names the sources that could not be read and why.
type ClusterData struct {
	Context    string      `json:"context,omitempty"`
	Server     string      `json:"server,omitempty"`
	Nodes      []Node      `json:"nodes"`
	LiveQueues []LiveQueue `json:"live_queues"`
	Namespaces []Namespace `json:"namespaces"`
	NotRead    []NotRead   `json:"not_read,omitempty"`
}

// Overlay puts the cluster data on s: it replaces the nodes, live queues
// and namespaces and the not-read entries of those sources, and records
// the cluster's context and server in the source. A source listed in
// d.NotRead stays not read.
func (s *State) Overlay(d *ClusterData) {
	s.Nodes, s.LiveQueues, s.Namespaces = d.Nodes, d.LiveQueues, d.Namespaces
	s.NotRead = append([]NotRead(nil), d.NotRead...)
	if d.Context != "" {
		s.Source.Context = d.Context
	}
	if d.Server != "" {
		s.Source.Server = d.Server
	}
}

// LoadClusterData reads a cluster data file. Unknown fields are refused,
// so a misspelt key is an error rather than a silently empty list.
func LoadClusterData(path string) (*ClusterData, error) {
	b, err := inputfile.Read(path, inputfile.ClusterData)
	if err != nil {
		return nil, err
	}
	var d ClusterData
	if err := jsonfile.DecodeStrict(b, &d); err != nil {
		return nil, fmt.Errorf("%s: not cluster data: %w", path, err)
	}
	for _, n := range d.Nodes {
		for _, c := range []struct {
			field string
			v     quota.Value
		}{{"gpuCapacity", n.Capacity}, {"gpuAllocatable", n.Allocatable}} {
			if c.v.IsNegative() {
				return nil, fmt.Errorf("%s: node %s: %s is %s; a card count cannot be negative", path, n.Name, c.field, c.v)
			}
		}
	}
	return &d, nil
}
