// Command gen writes the krmplan demo (examples/demo): a tenancy of 160
// GPUs on 20 nodes in two node pools, 8 departments and 48 projects,
// hand-formatted in aligned columns with comments (tenancy.yaml); what its
// cluster reports (cluster-data.json: nodes, live Queues with usage,
// namespaces); a desired file that guarantees the h100 pool's departments
// 8 cards more than it has (over-the-pool.hcl), and one that moves 8 h100
// cards cleanly between two departments (move-h100-cards.hcl).
//
// The output is a pure function of the flags. Regenerate the committed demo
// with `go generate ./examples`; a test keeps the committed files equal to
// what this program writes. With -projects N it writes a larger tenancy of
// the same kind (N/48 copies of the demo's cell), e.g. to try krmplan on
// 10,000 projects:
//
//	go run ./examples/demo/gen -projects 10000 -out /tmp/big
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/krmplan/krmplan/internal/gentenancy"
)

func main() {
	out := flag.String("out", ".", "write the files into this folder")
	projects := flag.Int("projects", gentenancy.ProjectsPerCell, "number of projects (48 is the demo)")
	seed := flag.Uint64("seed", gentenancy.DemoSeed, "random seed")
	flag.Parse()
	if *projects < 1 {
		fmt.Fprintln(os.Stderr, "gen: -projects must be at least 1")
		os.Exit(2)
	}
	t := gentenancy.Generate(gentenancy.Spec{Projects: *projects, Seed: *seed})
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, data := range gentenancy.Files(t) {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
