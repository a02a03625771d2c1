package snapshot_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/snapshot"
)

// TestDecodeReadsRealLabels: real files are read whole and well below the
// bound: a generated state of 1,000 projects, its cluster data, the demo's
// cluster data, and nodes as a GPU cluster labels them (22 labels, and
// capacity and allocatable of 8 resources each: half the bound).
func TestDecodeReadsRealLabels(t *testing.T) {
	g := gentenancy.Generate(gentenancy.Spec{Projects: 1000, Seed: gentenancy.BenchSeed})
	st, _, err := g.State()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := snapshot.Decode("state.json", st.Marshal()); err != nil || len(got.Projects) != len(st.Projects) || len(got.Nodes) != len(st.Nodes) {
		t.Errorf("the generated state: %v", err)
	}
	labels := `"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":"ip-10-0-1-23.ec2.internal",` +
		`"kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"p4d.24xlarge","topology.kubernetes.io/region":"us-east-1","topology.kubernetes.io/zone":"us-east-1a",` +
		`"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-40GB","nvidia.com/gpu.count":"8","nvidia.com/cuda.driver.major":"535","nvidia.com/gpu.memory":"40960",` +
		`"nvidia.com/mig.capable":"true","nvidia.com/gpu.family":"ampere","feature.node.kubernetes.io/cpu-cpuid.AVX512F":"true","feature.node.kubernetes.io/cpu-cpuid.AVX2":"true",` +
		`"feature.node.kubernetes.io/kernel-version.major":"5","eks.amazonaws.com/nodegroup":"gpu","eks.amazonaws.com/capacityType":"ON_DEMAND","k8s.io/cloud-provider-aws":"abc",` +
		`"failure-domain.beta.kubernetes.io/zone":"us-east-1a","x":"y"`
	res := `{"cpu":"96","memory":"1176Gi","nvidia.com/gpu":"8","pods":"110","ephemeral-storage":"100Gi","hugepages-1Gi":"0","hugepages-2Mi":"0","attachable-volumes-aws-ebs":"39"}`
	nodes := make([]string, 1000)
	for i := range nodes {
		nodes[i] = fmt.Sprintf(`{"name":"n%d","labels":{%s},"gpuCapacity":8,"gpuAllocatable":8,"capacity":%s,"allocatable":%s,"ready":true,"cordoned":false}`, i, labels, res, res)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"generated": g.ClusterDataJSON(),
		"gpu nodes": []byte(`{"nodes": [` + strings.Join(nodes, ",\n") + `], "live_queues": [], "namespaces": []}`),
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if d, err := snapshot.LoadClusterData(p); err != nil || len(d.Nodes) == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if d, err := snapshot.LoadClusterData("../examples/demo/cluster-data.json"); err != nil || len(d.Nodes) == 0 {
		t.Errorf("the demo: %v", err)
	}
}
