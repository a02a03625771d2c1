package codeshape

import (
	"os/exec"
	"strings"
	"testing"
)

// forbidden lists, per package pattern, the imports that would turn DESIGN
// §7's one-way flow (snapshot → planner → render; client-go only at the
// edge) around. An import counts directly or through any other package
// (go list -deps).
var forbidden = []struct {
	pkg string
	not []string
}{
	// The live reader is at the edge, but below the planner: the dry runs
	// that send a plan's steps are render/dryrun.
	{"./snapshot/...", []string{mod + "/planner", mod + "/render", mod + "/config", mod + "/cmd"}},
	// Pure logic: checks, order and plans never reach a cluster.
	{"./planner", []string{"k8s.io/client-go"}},
	{"./tenancy", []string{"k8s.io/client-go", mod + "/snapshot", mod + "/planner", mod + "/config", mod + "/render"}},
	{"./fairshare", []string{"k8s.io/client-go", mod + "/tenancy", mod + "/snapshot", mod + "/planner"}},
}

const mod = "github.com/krmplan/krmplan"

// TestDependencyDirection fails when a package's dependencies include one
// that forbidden names for it, naming the package and the import.
func TestDependencyDirection(t *testing.T) {
	for _, f := range forbidden {
		cmd := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.ImportPath}}{{end}}`, f.pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", f.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, no := range f.not {
				if dep == no || strings.HasPrefix(dep, no+"/") {
					t.Errorf("%s depends on %s (go list -deps %s): DESIGN §7 says it must not", f.pkg, dep, f.pkg)
				}
			}
		}
	}
}
