package integration

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/krmplan/krmplan/snapshot/live"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// testKRMConfigFlags sets the KRMConfig's project-controller flags (the
// namespace prefix, the manual-override label key, createNamespaces, and
// extraArgs, which win) and puts that override label on Queue
// workspace-rtx: the live snapshot and the git snapshot's live overlay
// both keep the label (the overlay finds the key in the cluster's
// KRMConfig), and the plan says the Queue's numbers are set by hand
// instead of calling them not reconciled. Everything is put back after.
func testKRMConfigFlags(f *fx) {
	f.mergePatch(live.GVRKRMConfig, "krm-config", `{"spec":{"projectController":{"args":{"projectNamePrefix":"team","resourceManualOverrideLabelKey":"example.com/ignored"},`+
		`"features":{"createNamespaces":false},"extraArgs":["--resource-manual-override-label-key=example.com/hands-off"]}}}`)
	quota, _, _ := unstructured.NestedFieldNoCopy(f.get(live.GVRQueue, "workspace-rtx").Object, "spec", "resources", "gpu", "quota")
	f.mergePatch(live.GVRQueue, "workspace-rtx", `{"metadata":{"labels":{"example.com/hands-off":"True"}},"spec":{"resources":{"gpu":{"quota":1}}}}`)
	defer func() {
		f.mergePatch(live.GVRKRMConfig, "krm-config", `{"spec":{"projectController":null}}`)
		f.mergePatch(live.GVRQueue, "workspace-rtx", fmt.Sprintf(`{"metadata":{"labels":{"example.com/hands-off":null}},"spec":{"resources":{"gpu":{"quota":%v}}}}`, quota))
	}()

	f.must(f.krmplan("snapshot", "-o", "flags.json"), 0, "snapshot with the KRMConfig's flags")
	s := f.state("flags.json")
	c := s.KRMConfig
	f.wantEqual("KRMConfig", strings.Join([]string{c.LabelKey(), c.NamePrefix(), c.OverrideKey()}, " "), "kai/project team example.com/hands-off")
	f.wantEqual("createNamespaces", c.CreatesNamespaces(), false)
	overridden := "Note: workspace-rtx: the scheduler's Queue carries example.com/hands-off=True, so KRM no longer writes it from the spec: its numbers are the ones set by hand, and a change to this queue in the source does not reach the scheduler until the label is removed"
	move := filepath.Join(f.root, "examples", "sample", "move-one-card.hcl")
	r := f.must(f.krmplan("plan", move, "--state", "flags.json", "--no-color"), 0, "plan on an overridden Queue")
	f.wantLine("plan on an overridden Queue", r.stdout, overridden)
	for _, l := range findings(r.stdout) {
		if strings.Contains(l, "workspace-rtx: the scheduler's Queue has") {
			f.t.Errorf("an overridden Queue is called not reconciled: %s", l)
		}
	}

	// The overlay of a git snapshot reads the override key from the
	// cluster's KRMConfig too.
	r = f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "--context", "envtest", "-o", "flags-overlay.json"), 0, "git snapshot with overlay")
	for _, q := range f.state("flags-overlay.json").LiveQueues {
		if q.Name == "workspace-rtx" {
			f.wantEqual("overlay labels", q.Labels, map[string]string{"example.com/hands-off": "True"})
		}
	}
}
