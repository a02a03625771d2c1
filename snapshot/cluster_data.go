package snapshot

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/quota"
)

// ClusterData is what a cluster adds to a git snapshot: the nodes (pool
// capacity: resource lists, Ready, cordoned, pressure), the KAI Queues
// (live quotas, usage, requests and age) and the namespaces. A
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
	if err := jsonfile.DecodeLines(b, &d); err != nil {
		return nil, fmt.Errorf("%s: not cluster data: %w", path, err)
	}
	if err := checkCluster(d.Nodes, d.LiveQueues); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

// checkCluster refuses what decoding alone lets through in the nodes and
// Queues of cluster data or a state: a negative card count, a pressure
// condition KAI does not read or a status other than True, False and
// Unknown, a creationTimestamp that is not RFC 3339. (Resource lists are
// checked as they are decoded: Quantity.)
func checkCluster(nodes []Node, queues []LiveQueue) error {
	for i := range nodes {
		n := &nodes[i]
		for _, c := range []struct {
			field string
			v     quota.Value
		}{{"gpuCapacity", n.GPUCapacity}, {"gpuAllocatable", n.GPUAllocatable}} {
			if c.v.IsNegative() {
				return fmt.Errorf("node %s: %s is %s; a card count cannot be negative", n.Name, c.field, c.v)
			}
		}
		for t, st := range n.Pressure {
			if !slices.Contains(PressureConditions, t) {
				return fmt.Errorf("node %s: pressure has the condition %q; KAI reads only %s", n.Name, t, strings.Join(PressureConditions, ", "))
			}
			if st != "True" && st != "False" && st != "Unknown" {
				return fmt.Errorf("node %s: pressure %s is %q; a condition's status is True, False or Unknown", n.Name, t, st)
			}
		}
	}
	for i := range queues {
		q := &queues[i]
		if q.CreationTimestamp == "" {
			continue
		}
		if _, err := time.Parse(time.RFC3339, q.CreationTimestamp); err != nil {
			//lint:ignore ST1005 the message starts with the kind's name, Queue
			return fmt.Errorf("Queue %s: creationTimestamp %q is not an RFC 3339 time (2026-01-31T12:00:00Z)", q.Name, q.CreationTimestamp)
		}
	}
	return nil
}
