package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestLoadClusterDataResourceLists: nodes[].allocatable and capacity are
// Kubernetes resource lists (strings or numbers, kept as text), pressure
// conditions and live_queues[].requested and creationTimestamp are read;
// they survive a state's round trip.
func TestLoadClusterDataResourceLists(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cluster.json")
	js := `{"nodes": [
  {"name": "mig-1", "allocatable": {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": 7, "cpu": "64", "memory": "512G"},
   "capacity": {"nvidia.com/mig-1g.10gb": "7"}, "ready": true, "cordoned": false, "pressure": {"DiskPressure": "True"}},
  {"name": "old", "gpuCapacity": 8, "gpuAllocatable": 8, "ready": true, "cordoned": false}],
 "live_queues": [{"name": "q", "resources": {}, "requested": {"nvidia.com/gpu": "3"}, "creationTimestamp": "2026-01-31T12:00:00Z"}],
 "namespaces": []}`
	if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadClusterData(p)
	if err != nil {
		t.Fatal(err)
	}
	n := d.Nodes[0]
	if want := (ResourceList{"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "7", "cpu": "64", "memory": "512G"}); !reflect.DeepEqual(n.Allocatable, want) {
		t.Errorf("allocatable = %v, want %v", n.Allocatable, want)
	}
	if !reflect.DeepEqual(n.Capacity, ResourceList{"nvidia.com/mig-1g.10gb": "7"}) || !reflect.DeepEqual(n.Pressure, map[string]string{"DiskPressure": "True"}) {
		t.Errorf("capacity %v, pressure %v", n.Capacity, n.Pressure)
	}
	if d.Nodes[1].Allocatable != nil || d.Nodes[1].GPUAllocatable.String() != "8" {
		t.Errorf("old shape: %+v", d.Nodes[1])
	}
	q := d.LiveQueues[0]
	if !reflect.DeepEqual(q.Requested, map[string]string{"nvidia.com/gpu": "3"}) || q.CreationTimestamp != "2026-01-31T12:00:00Z" {
		t.Errorf("live queue %+v", q)
	}
	s := &State{Source: Source{Kind: "git"}}
	s.Overlay(d)
	b := s.Seal()
	back, err := Decode("state.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Nodes, s.Nodes) || !reflect.DeepEqual(back.LiveQueues, s.LiveQueues) {
		t.Errorf("round trip:\n got %+v %+v\nwant %+v %+v", back.Nodes, back.LiveQueues, s.Nodes, s.LiveQueues)
	}
}

// TestLoadClusterDataRefusals: each bad value is an error naming the
// file, the place and the value.
func TestLoadClusterDataRefusals(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cluster.json")
	node := func(extra string) string {
		return `{"nodes": [{"name": "n", "ready": true, "cordoned": false, ` + extra + `}], "live_queues": [], "namespaces": []}`
	}
	for js, want := range map[string]string{
		node(`"allocatable": {"cpu": "lots"}`):          p + `: not cluster data: line 1: /nodes/0/allocatable/cpu: "lots" is not a Kubernetes quantity (quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')`,
		node(`"allocatable": {"nvidia.com/gpu": "-1"}`): p + `: not cluster data: line 1: /nodes/0/allocatable/nvidia.com~1gpu: "-1" is negative; a node's resources cannot be`,
		node(`"capacity": {"memory": true}`):            p + `: not cluster data: line 1: /nodes/0/capacity/memory: true is not a Kubernetes quantity: write it as a string, e.g. "8" or "512Gi"`,
		node(`"pressure": {"DiskPresure": "True"}`):     p + `: node n: pressure has the condition "DiskPresure"; KAI reads only MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable`,
		node(`"pressure": {"PIDPressure": "yes"}`):      p + `: node n: pressure PIDPressure is "yes"; a condition's status is True, False or Unknown`,
		`{"nodes": [], "live_queues": [{"name": "q", "resources": {}, "creationTimestamp": "yesterday"}], "namespaces": []}`: p + `: Queue q: creationTimestamp "yesterday" is not an RFC 3339 time (2026-01-31T12:00:00Z)`,
	} {
		if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadClusterData(p); fmt.Sprint(err) != want {
			t.Errorf("%s:\n got %v\nwant %s", js, err, want)
		}
	}
}
