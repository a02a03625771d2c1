package fairshare

import (
	"fmt"
	"testing"
)

func TestCapacity(t *testing.T) {
	ready := map[string]string{"Ready": "True", "MemoryPressure": "False"}
	nodes := []Node{
		{Name: "a", Conditions: ready, Allocatable: map[string]string{"nvidia.com/gpu": "8", "cpu": "63500m", "memory": "512G"}},
		{Name: "mig", Conditions: ready, Allocatable: map[string]string{"nvidia.com/mig-1g.10gb": "7", "nvidia.com/mig-3g.40gb": "2", "cpu": "1", "memory": "1Gi"}},
		{Name: "amd", Allocatable: map[string]string{"amd.com/gpu": "4", "cpu": "0.0005", "memory": "1.5"}}, // no conditions: counts
		{Name: "odd-mig", Conditions: ready, Allocatable: map[string]string{"nvidia.com/mig-1g.10gb.me": "3", "intel.com/gpu": "1", "cpu": "2", "memory": "1k"}},
		{Name: "cordoned", Unschedulable: true, Conditions: ready, Allocatable: map[string]string{"nvidia.com/gpu": "8"}},
		{Name: "not-ready", Conditions: map[string]string{"Ready": "False"}, Allocatable: map[string]string{"nvidia.com/gpu": "8"}},
		{Name: "unknown-ready", Conditions: map[string]string{"Ready": "Unknown"}, Allocatable: map[string]string{"nvidia.com/gpu": "8"}},
		{Name: "disk-pressure", Conditions: map[string]string{"Ready": "True", "DiskPressure": "True"}, Allocatable: map[string]string{"nvidia.com/gpu": "8"}},
	}
	got, err := Capacity(nodes)
	if err != nil {
		t.Fatal(err)
	}
	// gpu: 8 + 7×1 + 2×3 + 4 (the .me profile and intel.com/gpu are not
	// counted); cpu: 63500m + 1 core + 0.5m rounded up + 2 cores;
	// memory: 512G + 1Gi + 1.5 bytes rounded up + 1k, in MB.
	if got.GPU.String() != "25" || got.CPU.String() != "66501" || got.Memory.String() != "513073.742826" {
		t.Errorf("capacity gpu %s cpu %s memory %s", got.GPU, got.CPU, got.Memory)
	}
	got, err = Capacity([]Node{{Name: "a", Allocatable: map[string]string{"nvidia.com/gpu": "8", "cpu": "8"}}, nodes[4]})
	if err != nil || got.GPU.String() != "8" || got.CPU == nil || got.Memory != nil {
		t.Errorf("a node without memory: %v %v %v, %v", got.GPU, got.CPU, got.Memory, err)
	}
	got, err = Capacity(nil)
	if err != nil || !got.GPU.IsZero() || !got.CPU.IsZero() || !got.Memory.IsZero() {
		t.Errorf("no nodes: %v %v %v, %v", got.GPU, got.CPU, got.Memory, err)
	}
	_, err = Capacity([]Node{{Name: "bad", Allocatable: map[string]string{"cpu": "8", "memory": "lots"}}})
	if err == nil || err.Error() != `node bad: allocatable memory "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'` {
		t.Errorf("bad quantity: %v", err)
	}
}

func TestResources(t *testing.T) {
	for _, tc := range []struct {
		list map[string]string
		want string
	}{
		{map[string]string{"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "7"}, "gpu 7 cpu <nil> memory <nil>"},
		{map[string]string{"nvidia.com/mig-3g.40gb": "2", "nvidia.com/mig-2g.20gb": "1", "amd.com/gpu": "1", "cpu": "1500m", "memory": "2G"}, "gpu 9 cpu 1500 memory 2000"},
		{map[string]string{"amd.com/gpu": "8", "nvidia.com/mig-1g.5gb.me": "4", "pods": "110", "intel.com/gpu": "2"}, "gpu 8 cpu <nil> memory <nil>"},
		{map[string]string{"cpu": "64", "memory": "512G"}, "gpu 0 cpu 64000 memory 512000"},
		{nil, "gpu 0 cpu <nil> memory <nil>"},
	} {
		got, err := Resources(tc.list)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprintf("gpu %v cpu %v memory %v", got.GPU, got.CPU, got.Memory); s != tc.want {
			t.Errorf("Resources(%v) = %s, want %s", tc.list, s, tc.want)
		}
	}
	if _, err := Resources(map[string]string{"amd.com/gpu": "x"}); err == nil || err.Error() != `amd.com/gpu "x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'` {
		t.Errorf("bad quantity: %v", err)
	}
}
