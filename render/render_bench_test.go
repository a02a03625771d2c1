package render_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render"
)

// fixture is a clean plan on a generated tenancy of n projects (a move of
// 4 h100 cards between two departments in every 48 projects), read back
// from its plan.json, and the tenancy file's bytes.
func fixture(b *testing.B, n int) (*planner.Plan, []byte) {
	t := gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: gentenancy.BenchSeed})
	st, src, err := t.State()
	if err != nil {
		b.Fatal(err)
	}
	ov, diags := config.LoadOrdered(gentenancy.MoveFile, t.MoveHCL(0), nil, nil)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	built, diags := planner.Build(st, ov)
	if diags.HasErrors() || !built.Renderable {
		b.Fatalf("the plan does not render: %v", diags)
	}
	// The plan as show and render read it, decoded from plan.json: its
	// objects lie in memory in the file's order, as in the CLI.
	p, err := planner.Decode("plan.json", built.File())
	if err != nil {
		b.Fatal(err)
	}
	return p, src
}

func sizes(b *testing.B, run func(b *testing.B, n int)) {
	for _, n := range gentenancy.Sizes(testing.Short()) {
		b.Run(fmt.Sprintf("projects=%d", n), func(b *testing.B) { run(b, n) })
	}
}

// BenchmarkRenderText is the plan as `krmplan plan` and `show` print it:
// the changes, the pool bars and the findings, without colour.
func BenchmarkRenderText(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		p, _ := fixture(b, n)
		b.ReportAllocs()
		for b.Loop() {
			if err := render.Text(io.Discard, p, render.NewStyle(false)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRenderPatch is the kubectl patch script of the plan.
func BenchmarkRenderPatch(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		p, _ := fixture(b, n)
		b.ReportAllocs()
		for b.Loop() {
			render.PatchScript(p)
		}
	})
}

// BenchmarkRenderSplice is PrepareSplice of the plan, what `render
// --format splice` computes before it writes to git: the tenancy file read
// from a commit held in memory, the byte edits of every change, the spliced
// bytes and their check against the plan's target (the commit is git
// plumbing, measured by nothing here).
func BenchmarkRenderSplice(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		p, src := fixture(b, n)
		p.Snapshot.Source.Commit = "0123456789abcdef0123456789abcdef01234567"
		p.Snapshot.Source.Files[0].Blob = render.GitBlobID(src)
		repo := render.MemRepo{gentenancy.TenancyFile: src}
		b.ReportAllocs()
		for b.Loop() {
			sp, err := render.PrepareSplice(p, repo, render.SpliceOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if len(sp.Files) != 1 || len(sp.Files[0].New) == 0 {
				b.Fatalf("the splice wrote %d files", len(sp.Files))
			}
		}
	})
}
